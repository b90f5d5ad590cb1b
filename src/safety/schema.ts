import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { idColumn } from "../db/columns";

/**
 * Who blocked whom: the truth every cached "whom I blocked" / "who blocked me" set is rebuilt
 * from. One row per pair (the primary key makes concurrent blocks collapse to one, and answers
 * "is there a block between these two" — both orders — with two index probes, which the follow
 * and reaction statements make in the statement they already run).
 */
export const safetyBlocks = pgTable(
  "safety_blocks",
  {
    blockerId: idColumn("blocker_id").notNull(),
    blockedId: idColumn("blocked_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.blockerId, t.blockedId] }),
    // "Whom X blocked, newest first": the list route's keyset page and a cache rebuild.
    index("safety_blocks_blocker_created_idx").on(t.blockerId, t.createdAt.desc(), t.blockedId.desc()),
    // "Who blocked X, newest first": a rebuild of X's "blocked me" set (its newest SAFETY cap).
    index("safety_blocks_blocked_created_idx").on(t.blockedId, t.createdAt.desc()),
    check("safety_blocks_not_self", sql`${t.blockerId} <> ${t.blockedId}`),
  ],
);

/**
 * Who mutes whom. `notifications`: the mute silences the muted user's notifications and DMs too.
 * `expiresAt` null: until unmuted; otherwise the mute ends by itself at that instant (rows past it
 * are ignored by every read and pruned by the muter's next mute).
 */
export const safetyMutes = pgTable(
  "safety_mutes",
  {
    muterId: idColumn("muter_id").notNull(),
    mutedId: idColumn("muted_id").notNull(),
    notifications: boolean("notifications").notNull().default(true),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "string" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.muterId, t.mutedId] }),
    // "Whom X mutes, newest first": the list route's keyset page.
    index("safety_mutes_muter_created_idx").on(t.muterId, t.createdAt.desc(), t.mutedId.desc()),
    check("safety_mutes_not_self", sql`${t.muterId} <> ${t.mutedId}`),
  ],
);

/** What a report says is wrong (`POST /v1/reports`). */
export const REPORT_CATEGORIES = ["spam", "harassment", "hate", "violence", "sexual", "illegal", "other"] as const;
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];

/**
 * Reports of a user (and some of their posts) waiting for, or acted on by, an operator. A
 * reporter's second report of the same user while one is open adds to that one (the partial
 * unique index makes it one row under concurrent calls). `reporter_id` null: an automatic report
 * (a post held by the term filter), or, with `reporter_erased`, a report whose reporter deleted
 * their account (the report stays: it is about someone else; docs/privacy.md).
 */
export const safetyReports = pgTable(
  "safety_reports",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    reporterId: idColumn("reporter_id"),
    reporterErased: boolean("reporter_erased").notNull().default(false),
    targetId: idColumn("target_id").notNull(),
    category: text("category").notNull(),
    comment: text("comment").notNull().default(""),
    status: text("status").notNull().default("open"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true, mode: "string" }),
    resolution: text("resolution"),
  },
  (t) => [
    // One open report per (reporter, target); automatic reports (reporter null) share one per target.
    // Reports of erased reporters are out of it: several may stay open about one target.
    uniqueIndex("safety_reports_open_pair_idx").on(sql`coalesce(${t.reporterId}, 0)`, t.targetId).where(sql`${t.status} = 'open' AND NOT ${t.reporterErased}`),
    // The queue, oldest first, and the console's open count and oldest age.
    index("safety_reports_status_created_idx").on(t.status, t.createdAt, t.id),
    // A user's reports made (their export, in id order) and about them (their account deletion).
    index("safety_reports_reporter_idx").on(t.reporterId, t.id),
    index("safety_reports_target_idx").on(t.targetId),
    check("safety_reports_status", sql`${t.status} in ('open', 'resolved')`),
    check("safety_reports_not_self", sql`${t.reporterId} is null or ${t.reporterId} <> ${t.targetId}`),
  ],
);

/** The posts a report names, with their text as it was when reported (the post may be edited or removed since). */
export const safetyReportPosts = pgTable(
  "safety_report_posts",
  {
    reportId: bigint("report_id", { mode: "bigint" }).notNull(),
    postId: bigint("post_id", { mode: "bigint" }).notNull(),
    text: text("text").notNull(),
    reportedAt: timestamp("reported_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.postId] })],
);

/** Every operator action on a report: who (null once that operator's account was deleted), when, what, and their note. */
export const safetyReportActions = pgTable(
  "safety_report_actions",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    reportId: bigint("report_id", { mode: "bigint" }).notNull(),
    actorId: idColumn("actor_id"),
    action: text("action").notNull(),
    note: text("note").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [
    index("safety_report_actions_report_idx").on(t.reportId, t.id),
    // The actions an operator took: their account deletion takes them off.
    index("safety_report_actions_actor_idx").on(t.actorId),
  ],
);

/** Users suspended now: the truth the suspended set (`sfy:sus` on database 0) is rebuilt from. */
export const safetySuspensions = pgTable("safety_suspensions", {
  userId: idColumn("user_id").primaryKey(),
  reason: text("reason").notNull(),
  /** The operator; null once their account was deleted. */
  suspendedBy: idColumn("suspended_by"),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
});

/** The term filter's list: one row (id 1), replaced whole by each PUT; `version` grows with each. */
export const safetyModerationTerms = pgTable(
  "safety_moderation_terms",
  {
    id: integer("id").primaryKey().default(1),
    terms: text("terms").array().notNull(),
    version: integer("version").notNull(),
    /** The operator; null once their account was deleted. */
    updatedBy: idColumn("updated_by"),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [check("safety_moderation_terms_one_row", sql`${t.id} = 1`)],
);
