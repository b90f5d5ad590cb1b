import { sql } from "drizzle-orm";
import { check, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { idColumn } from "../db/columns";

/** States of a big account (push–pull hybrid); a normal account has no row. */
export const BIG_ACCOUNT_STATES = ["to-big", "big", "to-normal"] as const;
export type BigAccountState = (typeof BIG_ACCOUNT_STATES)[number];

/**
 * Accounts whose posts readers pull from the author's outbox instead of receiving them pushed:
 * `big` once the transition reached every follower, `to-big`/`to-normal` while it runs (posts are
 * then both pushed and kept in the outbox). Timeline builds read it to load only normal followees
 * and to know which followees to pull; Redis `feed:big` is a cache of it for the publish path.
 */
export const feedBigAccounts = pgTable(
  "feed_big_accounts",
  {
    authorId: idColumn("author_id").primaryKey(),
    state: text("state", { enum: BIG_ACCOUNT_STATES }).notNull(),
    changedAt: timestamp("changed_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [check("feed_big_accounts_state", sql`${t.state} in ('to-big', 'big', 'to-normal')`)],
);
