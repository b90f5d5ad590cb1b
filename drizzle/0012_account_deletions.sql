CREATE TABLE "account_deletions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "account_deletions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" bigint NOT NULL,
	"asked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"status" text DEFAULT 'running' NOT NULL,
	"progress" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"eraser" integer DEFAULT 0 NOT NULL,
	"cursor" text,
	"step" integer DEFAULT 0 NOT NULL,
	"stepped_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_deletions_status" CHECK ("account_deletions"."status" in ('running', 'finished'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "account_deletions_running_user_idx" ON "account_deletions" USING btree ("user_id") WHERE "account_deletions"."status" = 'running';--> statement-breakpoint
CREATE INDEX "account_deletions_user_idx" ON "account_deletions" USING btree ("user_id");