import { bigserial, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Queue messages that failed every retry, kept for operators until they are sent back to their
 * queue (replayed) or discarded. Postgres, not Redis: they are rare, and they must outlive a Redis
 * restart (a dead fan-out page is the only record that its followers missed a post until their
 * timelines are rebuilt). A row is deleted only after its message was sent again.
 */
export const deadLetters = pgTable(
  "dead_letters",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The queue the message came from and is replayed to (`feed-fanout`, `feed-follow-sync`). */
    queue: text("queue").notNull(),
    /** The message body as it was sent. */
    body: jsonb("body").notNull(),
    diedAt: timestamp("died_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    /** The last delivery's error, as the consumer saw it (null when it is not known). */
    lastError: text("last_error"),
    /** Set while a replay sends it: a second replay started meanwhile leaves it alone. */
    replayingAt: timestamp("replaying_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [
    // The list is per queue, newest first (keyset on id), and the status counts per queue.
    index("dead_letters_queue_idx").on(t.queue, t.id),
  ],
);

