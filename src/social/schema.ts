import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { idColumn } from "../db/columns";

/** Who follows whom. One row per pair; the primary key makes concurrent follows collapse to one. */
export const follows = pgTable(
  "follows",
  {
    followerId: idColumn("follower_id").notNull(),
    followeeId: idColumn("followee_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.followerId, t.followeeId] }),
    // "Followers of X, newest first" and the fan lookup of live rooms (followee, follower).
    index("follows_followee_created_idx").on(t.followeeId, t.createdAt.desc(), t.followerId.desc()),
    // "Whom X follows, newest first".
    index("follows_follower_created_idx").on(t.followerId, t.createdAt.desc(), t.followeeId.desc()),
    check("follows_not_self", sql`${t.followerId} <> ${t.followeeId}`),
  ],
);

export const MAX_POST_LENGTH = 5000;

/** Posts; deletion is soft so counters and feeds can still see what was removed. */
export const posts = pgTable(
  "posts",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    authorId: idColumn("author_id").notNull(),
    text: text("text").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "string" }),
    /** Set while the term filter holds the post: stored, shown to its author only, never fanned out or pushed. */
    heldAt: timestamp("held_at", { withTimezone: true, mode: "string" }),
  },
  (t) => [
    // "Posts of X, newest first", live posts only.
    index("posts_author_id_idx").on(t.authorId, t.id.desc()).where(sql`${t.deletedAt} is null`),
    // "Posts deleted in the last minutes": the feed re-writes their tombstones (deleted rows only).
    index("posts_deleted_at_idx").on(t.deletedAt).where(sql`${t.deletedAt} is not null`),
    check("posts_text_length", sql`char_length(${t.text}) <= ${sql.raw(String(MAX_POST_LENGTH))}`),
  ],
);
