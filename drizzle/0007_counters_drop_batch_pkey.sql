-- Custom SQL migration file, put your code below! ---- drizzle-kit cannot name the single-column primary key it created in 0002 (0006 leaves its DROP
-- commented out): batch numbers are now unique per Redis database, by the unique index 0006
-- created on (database, batch), so the old key on batch alone must go.
ALTER TABLE "counter_flush_batches" DROP CONSTRAINT IF EXISTS "counter_flush_batches_pkey";
