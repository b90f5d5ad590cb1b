import { sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import type { Caller } from "../lib/auth";
import { type Database, type PooledDatabase, queryRows } from "../lib/db";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { decodeCursor, toPage } from "../lib/pagination";
import type { Services } from "../lib/services";
/** What the term filter's automatic report needs of a held post (social's `Post` has more). */
type HeldPost = { id: string; authorId: string };
import { newEventId } from "../lib/event-types";
import type { ReportCategory } from "./schema";
import { suspendUser } from "./suspension";

/** Posts one report may name in one call, and in all (a reporter's later reports add to an open one). */
export const MAX_POSTS_PER_CALL = 20;
export const MAX_REPORT_POSTS = 100;
export const MAX_COMMENT_LENGTH = 1_000;
/** A report's comment, grown by later reports of the same reporter, is cut here. */
const MAX_STORED_COMMENT = 5_000;

export const REPORT_ACTIONS = ["dismiss", "remove-posts", "suspend", "approve"] as const;
export type ReportAction = (typeof REPORT_ACTIONS)[number];
/** What resolved a report: an operator's action, or the reported user's account deletion (src/safety/erase.ts). */
export const REPORT_RESOLUTIONS = [...REPORT_ACTIONS, "account-deleted"] as const;
export type ReportResolution = (typeof REPORT_RESOLUTIONS)[number];

export type NewReport = { userId: string; postIds: string[]; category: ReportCategory; comment: string };
export type ReportReceipt = { id: string; userId: string; category: ReportCategory; postIds: string[]; status: "open"; createdAt: string; updatedAt: string };

export type ReportItem = {
  id: string;
  status: "open" | "resolved";
  reporterId: string | null;
  reporterErased: boolean;
  userId: string;
  category: ReportCategory;
  comment: string;
  createdAt: string;
  updatedAt: string;
  ageSeconds: number;
  resolvedAt: string | null;
  resolution: ReportResolution | null;
  posts: { postId: string; text: string; reportedAt: string; state: "live" | "held" | "deleted" }[];
  actions: { action: ReportAction; actorId: string | null; note: string; at: string }[];
};

/**
 * A user reports `userId` (and some of their posts). The posts must be that user's live posts
 * (400 naming `postIds` otherwise); their text is copied as it is now, so the operator reads what
 * was reported even after an edit or removal. A second report of the same user by the same
 * reporter while the first is open adds its posts and comment to it (same id, `201` only for a new one).
 */
export async function createReport(services: Services, reporterId: string, input: NewReport): Promise<{ report: ReportReceipt; created: boolean }> {
  if (input.userId === reporterId) throw new ApiError("bad_request", "You cannot report yourself", [{ field: "userId", message: "must not be your own id" }]);
  const postIds = [...new Set(input.postIds)];
  // Interactive: the posts checked, then the report upserted and grown by what it answered.
  return services.pooledDb.transaction(async (tx) => {
    const found = postIds.length
      ? (await tx.execute<{ id: string; author_id: string; text: string }>(sql`
          SELECT id::text, author_id::text, text FROM posts
           WHERE id = ANY(${`{${postIds.join(",")}}`}::bigint[]) AND deleted_at IS NULL AND held_at IS NULL`)).rows
      : [];
    const bad = postIds.filter((id) => !found.some((p) => p.id === id && p.author_id === input.userId));
    if (bad.length) throw new ApiError("bad_request", "Every reported post must be a live post of the reported user", [{ field: "postIds", message: `not posts of user ${input.userId}: ${bad.join(", ")}` }]);
    const report = await upsertReport(tx, reporterId, input.userId, input.category, input.comment);
    const total = await addPosts(tx, report.id, postIds);
    if (total > MAX_REPORT_POSTS) {
      throw new ApiError("conflict", `A report names at most ${MAX_REPORT_POSTS} posts; wait for an operator to act on this one`, [{ field: "postIds", message: `over ${MAX_REPORT_POSTS} posts in the open report` }]);
    }
    const ids = await tx.execute<{ id: string }>(sql`SELECT post_id::text AS id FROM safety_report_posts WHERE report_id = ${report.id} ORDER BY post_id`);
    return {
      created: report.created,
      report: { id: report.id, userId: input.userId, category: report.category, postIds: ids.rows.map((r) => r.id), status: "open", createdAt: isoTimestamp(report.created_at), updatedAt: isoTimestamp(report.updated_at) },
    };
  });
}

/** The automatic report of a post the term filter held: no reporter, category `other`, the comment naming the term. */
export async function reportHeldPost(services: Services, post: HeldPost, term: string): Promise<void> {
  await services.pooledDb.transaction(async (tx) => {
    const report = await upsertReport(tx, null, post.authorId, "other", `held by the term filter: post ${post.id} matched the term "${term}"`);
    await addPosts(tx, report.id, [post.id]);
  });
}

type Tx = Parameters<Parameters<PooledDatabase["transaction"]>[0]>[0];

/** The open report of (reporter, target), made or grown; `created` when this call made it. */
async function upsertReport(tx: Tx, reporterId: string | null, targetId: string, category: ReportCategory, comment: string) {
  const { rows } = await tx.execute<{ id: string; category: ReportCategory; created_at: string; updated_at: string; created: boolean }>(sql`
    INSERT INTO safety_reports (reporter_id, target_id, category, comment)
    VALUES (${reporterId}, ${targetId}, ${category}, ${comment})
    ON CONFLICT (coalesce(reporter_id, 0), target_id) WHERE status = 'open' AND NOT reporter_erased DO UPDATE
      SET updated_at = now(),
          comment = left(concat_ws(E'\\n', nullif(safety_reports.comment, ''), nullif(excluded.comment, '')), ${MAX_STORED_COMMENT})
    RETURNING id::text, category, created_at::text, updated_at::text, (xmax = 0) AS created`);
  return rows[0]!;
}

/** Adds posts (their text now) to a report; answers how many it names. */
async function addPosts(tx: Tx, reportId: string, postIds: readonly string[]): Promise<number> {
  const { rows } = await tx.execute<{ n: number }>(sql`
    WITH ins AS (
      INSERT INTO safety_report_posts (report_id, post_id, text)
      SELECT ${reportId}, id, text FROM posts WHERE id = ANY(${`{${postIds.join(",")}}`}::bigint[])
      ON CONFLICT DO NOTHING RETURNING 1)
    SELECT (SELECT count(*)::int FROM safety_report_posts WHERE report_id = ${reportId}) + (SELECT count(*)::int FROM ins) AS n`);
  return Number(rows[0]!.n);
}

type ReportRow = {
  id: string;
  reporter_id: string | null;
  reporter_erased: boolean;
  target_id: string;
  category: ReportCategory;
  comment: string;
  status: "open" | "resolved";
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  resolution: ReportResolution | null;
  age_ms: string;
  posts: { postId: string; text: string; reportedAt: string; held: boolean; deleted: boolean }[];
  actions: { action: ReportAction; actorId: string | null; note: string; at: string }[];
};

const REPORT_SELECT = `
  SELECT r.id::text, r.reporter_id::text, r.reporter_erased, r.target_id::text, r.category, r.comment, r.status,
         r.created_at::text, r.updated_at::text, r.resolved_at::text, r.resolution,
         (extract(epoch FROM now() - r.created_at) * 1000)::bigint::text AS age_ms,
         coalesce((SELECT json_agg(json_build_object('postId', p.post_id::text, 'text', p.text, 'reportedAt', p.reported_at,
                                                     'held', po.held_at IS NOT NULL, 'deleted', po.id IS NULL OR po.deleted_at IS NOT NULL) ORDER BY p.post_id)
                     FROM safety_report_posts p LEFT JOIN posts po ON po.id = p.post_id WHERE p.report_id = r.id), '[]') AS posts,
         coalesce((SELECT json_agg(json_build_object('action', a.action, 'actorId', a.actor_id::text, 'note', a.note, 'at', a.created_at) ORDER BY a.id)
                     FROM safety_report_actions a WHERE a.report_id = r.id), '[]') AS actions
    FROM safety_reports r`;

function toItem(row: ReportRow): ReportItem {
  return {
    id: row.id,
    status: row.status,
    reporterId: row.reporter_id,
    reporterErased: row.reporter_erased,
    userId: row.target_id,
    category: row.category,
    comment: row.comment,
    createdAt: isoTimestamp(row.created_at),
    updatedAt: isoTimestamp(row.updated_at),
    ageSeconds: Math.max(0, Math.floor(Number(row.age_ms) / 1000)),
    resolvedAt: row.resolved_at === null ? null : isoTimestamp(row.resolved_at),
    resolution: row.resolution,
    posts: row.posts.map((p) => ({ postId: p.postId, text: p.text, reportedAt: isoTimestamp(p.reportedAt), state: p.deleted ? "deleted" : p.held ? "held" : "live" })),
    actions: row.actions.map((a) => ({ action: a.action, actorId: a.actorId, note: a.note, at: isoTimestamp(a.at) })),
  };
}

/** The queue: open reports oldest first (the one waiting longest on top); resolved ones newest first. */
export async function listReports(services: Services, query: { status: "open" | "resolved"; limit: number; cursor?: string }) {
  const after = query.cursor ? decodeReportCursor(query.cursor) : undefined;
  const open = query.status === "open";
  const rows = await queryRows<ReportRow>(
    services.db,
    `${REPORT_SELECT}
      WHERE r.status = $1 ${after ? `AND (r.created_at, r.id) ${open ? ">" : "<"} ($3::timestamptz, $4::bigint)` : ""}
      ORDER BY r.created_at ${open ? "ASC" : "DESC"}, r.id ${open ? "ASC" : "DESC"} LIMIT $2`,
    after ? [query.status, query.limit + 1, after.createdAt, after.id] : [query.status, query.limit + 1],
  );
  return toPage(rows, query.limit, toItem, (row) => [row.created_at, row.id]);
}

function decodeReportCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = decodeCursor(cursor, 2) as [string, string];
  if (!isId(id) || Number.isNaN(Date.parse(createdAt))) throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  return { createdAt, id };
}

async function readReport(db: Database, id: string): Promise<ReportItem> {
  const [row] = await queryRows<ReportRow>(db, `${REPORT_SELECT} WHERE r.id = $1`, [id]);
  if (!row) throw new ApiError("not_found", `Report ${id} not found`);
  return toItem(row);
}

/**
 * Has social remove or publish `postIds` (its subscriber of `moderation.posts`: safety imports
 * nothing of social). A failure there fails the action, whose retry completes it.
 */
async function postsAction(services: Services, caller: Caller, op: "remove" | "publish", postIds: string[]): Promise<void> {
  if (postIds.length === 0) return;
  await services.events.emitOrFail({ type: "moderation.posts", id: newEventId(), op, postIds, moderatorId: caller.userId, at: Date.now() }, services);
}

/**
 * An operator acts on an open report (409 on a resolved one):
 *  - `dismiss`: nothing is wrong; the report is resolved (a held post stays held);
 *  - `remove-posts`: the reported posts are deleted through the post delete path (their
 *    `post.deleted` events clear them from timelines, counters and trending);
 *  - `suspend`: the reported user is suspended (`note` is the reason);
 *  - `approve`: the report's held posts are published as if just posted (409 when none is held).
 * The action is done first (each part is idempotent, so a retry after a failure completes it),
 * then recorded (who, when, what, the note) and the report resolved.
 */
export async function actOnReport(services: Services, caller: Caller, id: string, input: { action: ReportAction; note: string }): Promise<ReportItem> {
  const report = await readReport(services.db, id);
  if (report.status !== "open") throw new ApiError("conflict", `Report ${id} is already resolved (${report.resolution})`, [{ field: "action", message: "the report is not open" }]);
  if (input.action === "remove-posts") {
    await postsAction(services, caller, "remove", report.posts.filter((p) => p.state !== "deleted").map((p) => p.postId));
  } else if (input.action === "suspend") {
    await suspendUser(services, caller.userId, report.userId, input.note || `report ${id}`);
  } else if (input.action === "approve") {
    const held = report.posts.filter((p) => p.state === "held");
    if (held.length === 0) throw new ApiError("conflict", `Report ${id} holds no post to approve`, [{ field: "action", message: "no held post in this report" }]);
    await postsAction(services, caller, "publish", held.map((p) => p.postId));
  }
  await services.db.execute(sql`
    WITH act AS (INSERT INTO safety_report_actions (report_id, actor_id, action, note) VALUES (${id}, ${caller.userId}, ${input.action}, ${input.note}) RETURNING 1)
    UPDATE safety_reports SET status = 'resolved', resolved_at = now(), resolution = ${input.action}, updated_at = now()
     WHERE id = ${id} AND status = 'open' AND EXISTS (SELECT 1 FROM act)`);
  return readReport(services.db, id);
}
