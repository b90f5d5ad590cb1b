import { sql } from "drizzle-orm";
import { bigint, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn } from "../db/columns";

/**
 * Flushed counter values, narrow so adding a field needs no migration. `value` is the stored truth
 * and is never clamped (a read clamps negatives to 0 for clients).
 */
export const counters = pgTable(
  "counters",
  {
    entity: text("entity").notNull(),
    entityId: idColumn("entity_id").notNull(),
    field: text("field").notNull(),
    value: bigint("value", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.entity, t.entityId, t.field] }),
    // "Users with at least N followers": the feed's per-minute big-account scan reads a range of it.
    index("counters_user_followers_idx").on(t.value).where(sql`${t.entity} = 'user' and ${t.field} = 'followers'`),
  ],
);

/**
 * Batches already applied to `counters`, per Redis database (each database cuts and numbers its
 * own batches; 0 is the only one at N = 1). The unique (database, batch) key is what makes a flush exactly-once:
 * the insert of a (database, batch) pair and its deltas commit in one statement, and a second
 * attempt (crashed flush, concurrent flush) inserts nothing and applies nothing. `max(batch)` of a
 * database is its watermark W, which a cache warm reads in the same snapshot as the values; the
 * key's order (database first) makes that an index lookup. (A unique index rather than a primary
 * key: the migration from the single-column key then needs no constraint name.)
 */
export const counterFlushBatches = pgTable(
  "counter_flush_batches",
  {
    database: integer("database").notNull().default(0),
    batch: bigint("batch", { mode: "number" }).notNull(),
    appliedAt: timestamp("applied_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    deltas: integer("deltas").notNull(),
  },
  (t) => [uniqueIndex("counter_flush_batches_database_batch_idx").on(t.database, t.batch)],
);

/**
 * Entities whose cached values went stale because an increment was applied straight to Postgres
 * while Redis was unreachable. The next flush deletes their cache keys, then these rows.
 */
export const counterStaleCache = pgTable(
  "counter_stale_cache",
  {
    entity: text("entity").notNull(),
    entityId: idColumn("entity_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.entity, t.entityId] })],
);

/**
 * A user's reaction to a post (a like, a favourite). One row per pair: concurrent reactions by one
 * user collapse to one. Keyed by post first: the add/remove statement and the reconcile count are
 * by post. The (user_id, post_id) index serves the feed's "which of these posts did I react to"
 * (a reader's flags from a post id up). (No "by user" list exists yet; add (user_id, created_at) with it.)
 */
function reactionTable<Name extends string>(name: Name) {
  return pgTable(
    name,
    {
      userId: idColumn("user_id").notNull(),
      postId: idColumn("post_id").notNull(),
      createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    },
    (t) => [primaryKey({ columns: [t.postId, t.userId] }), index(`${name}_user_post_idx`).on(t.userId, t.postId)],
  );
}

export const postLikes = reactionTable("post_likes");
export const postFavorites = reactionTable("post_favorites");
