CREATE TABLE "feed_big_accounts" (
	"author_id" bigint PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feed_big_accounts_state" CHECK ("feed_big_accounts"."state" in ('to-big', 'big', 'to-normal'))
);
--> statement-breakpoint
CREATE INDEX "counters_user_followers_idx" ON "counters" USING btree ("value") WHERE "counters"."entity" = 'user' and "counters"."field" = 'followers';