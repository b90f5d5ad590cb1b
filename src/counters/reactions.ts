import { ApiError } from "../lib/errors";
import { newEventId } from "../lib/event-types";
import type { EventReports } from "../lib/events";
import type { Services } from "../lib/services";
import { blockBetweenSql, blockedError } from "../safety/store";
import { countsKey, incrementCounters, shownCounts } from "./counters";
import { edgeCacheBoundMs, forgetAtEdge, readAfterWrite } from "./edge-cache";
import { fieldsOf } from "./registry";
import { queryRows } from "./store";
import { countersReport } from "./subscriber";

export type Reaction = "like" | "favorite";
/** `counts`: the post's counters after the call (so the caller sees its own write); absent only when they could not be read. */
export type ReactionChange = {
  postId: string;
  userId: string;
  liked?: boolean;
  favorited?: boolean;
  changed: boolean;
  counts?: Record<string, number>;
};

const TABLE: Record<Reaction, string> = { like: "post_likes", favorite: "post_favorites" };

/**
 * Likes or favourites a live post; idempotent. The existence check, the block check (403 `blocked`
 * when a block stands between the user and the post's author, either way) and the insert are one
 * statement, and ON CONFLICT DO NOTHING makes N concurrent calls by one user insert one row: only
 * the call that inserted reports (and emits) a change, so the counter moves exactly once.
 */
export async function addReaction(services: Services, kind: Reaction, userId: string, postId: string): Promise<ReactionChange> {
  const [row] = await queryRows<{ author_id: string; changed: boolean; blocked: boolean }>(
    services.db,
    `WITH p AS (SELECT id, author_id FROM posts WHERE id = $1 AND deleted_at IS NULL),
          b AS (${blockBetweenSql("$2", "(SELECT author_id FROM p)")}),
          ins AS (INSERT INTO ${TABLE[kind]} (user_id, post_id) SELECT $2, id FROM p WHERE NOT EXISTS (SELECT 1 FROM b) ON CONFLICT DO NOTHING RETURNING 1)
     SELECT author_id::text AS author_id, EXISTS (SELECT 1 FROM ins) AS changed, EXISTS (SELECT 1 FROM b) AS blocked FROM p`,
    [postId, userId],
  );
  if (!row) throw new ApiError("not_found", `Post ${postId} not found`);
  if (row.blocked) throw blockedError(`You cannot ${kind} this post`);
  const reports = row.changed
    ? await services.events.emit({ type: `${kind}.created`, id: newEventId(), userId, postId, authorId: row.author_id, at: Date.now() }, services)
    : undefined;
  return { ...result(kind, postId, userId, true, row.changed), counts: await postCountsAfter(services, postId, reports) };
}

/** Removes a like or favourite; idempotent, and only the delete that removed the row emits. */
export async function removeReaction(services: Services, kind: Reaction, userId: string, postId: string): Promise<ReactionChange> {
  const [row] = await queryRows<{ author_id: string; changed: boolean }>(
    services.db,
    `WITH p AS (SELECT id, author_id FROM posts WHERE id = $1 AND deleted_at IS NULL),
          del AS (DELETE FROM ${TABLE[kind]} AS r USING p WHERE r.post_id = p.id AND r.user_id = $2 RETURNING 1)
     SELECT author_id::text AS author_id, EXISTS (SELECT 1 FROM del) AS changed FROM p`,
    [postId, userId],
  );
  if (!row) throw new ApiError("not_found", `Post ${postId} not found`);
  const reports = row.changed
    ? await services.events.emit({ type: `${kind}.deleted`, id: newEventId(), userId, postId, authorId: row.author_id, at: Date.now() }, services)
    : undefined;
  return { ...result(kind, postId, userId, false, row.changed), counts: await postCountsAfter(services, postId, reports) };
}

/**
 * The post's counts after a reaction, for its answer. A change's counts come back from the
 * increment script the event ran (the counters subscriber's report): no extra command or round
 * trip. Otherwise — nothing changed (no Redis call was made yet), or the post is not cached in
 * Redis — one read after the write (warming a cold post from Postgres). This isolate's edge copy
 * of the post is dropped either way.
 */
async function postCountsAfter(services: Services, postId: string, reports: EventReports | undefined): Promise<Record<string, number> | undefined> {
  const boundMs = edgeCacheBoundMs(services.env);
  const reported = reports && countersReport(reports)?.counts?.get(countsKey("post", postId));
  if (!reported) {
    const read = await readAfterWrite(services, "post", postId, boundMs); // drops the copy itself
    return read && shownCounts(read.fields, read.values.get(postId));
  }
  forgetAtEdge("post", [postId], boundMs);
  return shownCounts(fieldsOf("post"), reported);
}

function result(kind: Reaction, postId: string, userId: string, on: boolean, changed: boolean): ReactionChange {
  return kind === "like" ? { postId, userId, liked: on, changed } : { postId, userId, favorited: on, changed };
}

/**
 * Counts one view: one script call, no Postgres (the per-user VIEW_LIMITER in front keeps a loop from
 * inflating it). The post is not checked for existence — that would cost a query per view; views of
 * an id that is no post only move a counter nobody reads.
 */
export async function recordView(services: Services, postId: string): Promise<{ postId: string; counted: true }> {
  await incrementCounters(services, [{ entity: "post", id: postId, field: "views", delta: 1 }]);
  return { postId, counted: true };
}
