/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'counter_flush_batches'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "counter_flush_batches" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
ALTER TABLE "counter_flush_batches" ADD COLUMN "database" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "counter_flush_batches_database_batch_idx" ON "counter_flush_batches" USING btree ("database","batch");