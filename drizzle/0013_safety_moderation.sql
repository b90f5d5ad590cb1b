CREATE TABLE "safety_moderation_terms" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"terms" text[] NOT NULL,
	"version" integer NOT NULL,
	"updated_by" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "safety_moderation_terms_one_row" CHECK ("safety_moderation_terms"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "safety_report_actions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "safety_report_actions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"report_id" bigint NOT NULL,
	"actor_id" bigint NOT NULL,
	"action" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "safety_report_posts" (
	"report_id" bigint NOT NULL,
	"post_id" bigint NOT NULL,
	"text" text NOT NULL,
	"reported_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "safety_report_posts_report_id_post_id_pk" PRIMARY KEY("report_id","post_id")
);
--> statement-breakpoint
CREATE TABLE "safety_reports" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "safety_reports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"reporter_id" bigint,
	"target_id" bigint NOT NULL,
	"category" text NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolution" text,
	CONSTRAINT "safety_reports_status" CHECK ("safety_reports"."status" in ('open', 'resolved')),
	CONSTRAINT "safety_reports_not_self" CHECK ("safety_reports"."reporter_id" is null or "safety_reports"."reporter_id" <> "safety_reports"."target_id")
);
--> statement-breakpoint
CREATE TABLE "safety_suspensions" (
	"user_id" bigint PRIMARY KEY NOT NULL,
	"reason" text NOT NULL,
	"suspended_by" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "held_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "safety_report_actions_report_idx" ON "safety_report_actions" USING btree ("report_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "safety_reports_open_pair_idx" ON "safety_reports" USING btree (coalesce("reporter_id", 0),"target_id") WHERE "safety_reports"."status" = 'open';--> statement-breakpoint
CREATE INDEX "safety_reports_status_created_idx" ON "safety_reports" USING btree ("status","created_at","id");