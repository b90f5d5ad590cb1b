DROP INDEX "safety_reports_open_pair_idx";--> statement-breakpoint
ALTER TABLE "safety_moderation_terms" ALTER COLUMN "updated_by" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "safety_report_actions" ALTER COLUMN "actor_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "safety_suspensions" ALTER COLUMN "suspended_by" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "safety_reports" ADD COLUMN "reporter_erased" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "safety_report_actions_actor_idx" ON "safety_report_actions" USING btree ("actor_id");--> statement-breakpoint
CREATE INDEX "safety_reports_reporter_idx" ON "safety_reports" USING btree ("reporter_id","id");--> statement-breakpoint
CREATE INDEX "safety_reports_target_idx" ON "safety_reports" USING btree ("target_id");--> statement-breakpoint
CREATE UNIQUE INDEX "safety_reports_open_pair_idx" ON "safety_reports" USING btree (coalesce("reporter_id", 0),"target_id") WHERE "safety_reports"."status" = 'open' AND NOT "safety_reports"."reporter_erased";