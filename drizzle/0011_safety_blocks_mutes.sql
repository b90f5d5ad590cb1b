CREATE TABLE "safety_blocks" (
	"blocker_id" bigint NOT NULL,
	"blocked_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "safety_blocks_blocker_id_blocked_id_pk" PRIMARY KEY("blocker_id","blocked_id"),
	CONSTRAINT "safety_blocks_not_self" CHECK ("safety_blocks"."blocker_id" <> "safety_blocks"."blocked_id")
);
--> statement-breakpoint
CREATE TABLE "safety_mutes" (
	"muter_id" bigint NOT NULL,
	"muted_id" bigint NOT NULL,
	"notifications" boolean DEFAULT true NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "safety_mutes_muter_id_muted_id_pk" PRIMARY KEY("muter_id","muted_id"),
	CONSTRAINT "safety_mutes_not_self" CHECK ("safety_mutes"."muter_id" <> "safety_mutes"."muted_id")
);
--> statement-breakpoint
CREATE INDEX "safety_blocks_blocker_created_idx" ON "safety_blocks" USING btree ("blocker_id","created_at" DESC NULLS LAST,"blocked_id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "safety_blocks_blocked_created_idx" ON "safety_blocks" USING btree ("blocked_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "safety_mutes_muter_created_idx" ON "safety_mutes" USING btree ("muter_id","created_at" DESC NULLS LAST,"muted_id" DESC NULLS LAST);