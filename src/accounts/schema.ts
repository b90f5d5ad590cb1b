import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn } from "../db/columns";

export const DELETION_STATUSES = ["running", "finished"] as const;
export type DeletionStatus = (typeof DELETION_STATUSES)[number];

/**
 * One row per account deletion, kept after it finished: what remains of a deleted account (the id,
 * when it was asked, when it finished, how much each capability removed). The row is also the
 * deletion's state while it runs: which eraser (`eraser`, an index into the registry) and where in
 * it (`cursor`) the next step starts, and `step`, the number of steps done, which makes a step's
 * bookkeeping happen once however often the queue delivers it. At most one running deletion per
 * user (the partial unique index): a repeated request finds it and answers its id.
 */
export const accountDeletions = pgTable(
  "account_deletions",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: idColumn("user_id").notNull(),
    askedAt: timestamp("asked_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "string" }),
    status: text("status", { enum: DELETION_STATUSES }).notNull().default("running"),
    /** `{capability: {removed, done}}`, in the registry's order. */
    progress: jsonb("progress").notNull().default(sql`'{}'::jsonb`),
    eraser: integer("eraser").notNull().default(0),
    cursor: text("cursor"),
    step: integer("step").notNull().default(0),
    /** When the last step was recorded (asked_at before the first): a repeated request resumes a deletion stuck past STALLED_AFTER_SECONDS. */
    steppedAt: timestamp("stepped_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("account_deletions_running_user_idx").on(t.userId).where(sql`${t.status} = 'running'`),
    index("account_deletions_user_idx").on(t.userId),
    check("account_deletions_status", sql`${t.status} in ('running', 'finished')`),
  ],
);
