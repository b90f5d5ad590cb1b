CREATE TABLE "live_session_starts" (
	"room_id" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"host_id" bigint NOT NULL,
	"started_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dead_letters" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"queue" text NOT NULL,
	"body" jsonb NOT NULL,
	"died_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"replaying_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "live_session_starts_started_idx" ON "live_session_starts" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "dead_letters_queue_idx" ON "dead_letters" USING btree ("queue","id");