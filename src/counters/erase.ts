import type { Eraser } from "../lib/erasers";
import { pageStep } from "../lib/erasers";
import { queryRows } from "../lib/db";
import { databaseOf } from "../lib/redis-topology";
import { flushAll } from "./flush";
import { counterKeys } from "./keys";
import { removeReaction, type Reaction } from "./reactions";
import { hourOf, TRENDING_BUCKET_TTL_SECONDS } from "./trending";

/**
 * The counters capability's erasers (docs/privacy.md):
 * - `counters.reactions`: every like and favourite the user gave, through `removeReaction` (the
 *   unlike path), so each post's counter drops exactly once whether the like is still a pending
 *   delta in Redis or already flushed to Postgres: the row's delete is the one guard. A like of a
 *   post deleted since (which `removeReaction` no longer sees) is a row only: its counter is gone
 *   with the post.
 * - `counters.values` (after the user's posts and follows are gone, before the post rows): the
 *   counter rows, cached values and trending scores of the user and of each of their posts, and the
 *   other users' reactions to those posts. Its first step flushes every database, so no pending
 *   delta of theirs is applied to Postgres after the rows are deleted.
 */

export const REACTIONS_PER_STEP = 50;
/** Posts whose counters one step removes (each: one row delete, a DEL and the trending ZREMs). */
export const COUNTED_POSTS_PER_STEP = 200;

const TABLE: Record<Reaction, string> = { like: "post_likes", favorite: "post_favorites" };

export const countersReactionsEraser: Eraser = {
  name: "counters.reactions",
  async step(services, userId) {
    let removed = 0;
    let full = false;
    for (const kind of ["like", "favorite"] as const) {
      const rows = await queryRows<{ post_id: string; live: boolean }>(
        services.db,
        `SELECT r.post_id::text AS post_id, (p.id IS NOT NULL AND p.deleted_at IS NULL) AS live
         FROM ${TABLE[kind]} r LEFT JOIN posts p ON p.id = r.post_id WHERE r.user_id = $1 LIMIT $2`,
        [userId, REACTIONS_PER_STEP],
      );
      full ||= rows.length === REACTIONS_PER_STEP;
      for (const row of rows) {
        const change = row.live ? await removeReaction(services, kind, userId, row.post_id).catch(() => undefined) : undefined;
        if (change?.changed) {
          removed++;
          continue;
        }
        // The post is gone (or went between the two statements): the row alone.
        const gone = await queryRows(services.db, `DELETE FROM ${TABLE[kind]} WHERE user_id = $1 AND post_id = $2 RETURNING 1`, [userId, row.post_id]);
        removed += gone.length;
      }
    }
    return pageStep(removed, full);
  },
};

/** The hourly trending buckets that can still hold a post's score (their TTL). */
function liveBuckets(now: number): string[] {
  const hour = hourOf(now);
  const hours = Math.ceil(TRENDING_BUCKET_TTL_SECONDS / 3600);
  return Array.from({ length: hours + 1 }, (_, i) => counterKeys.trendingBucket(hour - i));
}

export const countersValuesEraser: Eraser = {
  name: "counters.values",
  async step(services, userId, cursor) {
    if (cursor === null) await flushAll(services);
    const after = cursor && cursor !== "flushed" ? cursor : "0";
    const posts = await queryRows<{ id: string }>(
      services.db,
      "SELECT id::text AS id FROM posts WHERE author_id = $1 AND id > $2::bigint ORDER BY posts.id LIMIT $3",
      [userId, after, COUNTED_POSTS_PER_STEP],
    );
    const ids = posts.map((p) => p.id);
    let removed = 0;
    if (ids.length > 0) {
      const rows = await queryRows(
        services.db,
        `WITH c AS (DELETE FROM counters WHERE entity = 'post' AND entity_id = ANY($1::bigint[]) RETURNING 1),
              l AS (DELETE FROM post_likes WHERE post_id = ANY($1::bigint[]) RETURNING 1),
              f AS (DELETE FROM post_favorites WHERE post_id = ANY($1::bigint[]) RETURNING 1),
              s AS (DELETE FROM counter_stale_cache WHERE entity = 'post' AND entity_id = ANY($1::bigint[]) RETURNING 1)
         SELECT 1 FROM c UNION ALL SELECT 1 FROM l UNION ALL SELECT 1 FROM f UNION ALL SELECT 1 FROM s`,
        [ids],
      );
      removed += rows.length;
      const buckets = liveBuckets(Date.now());
      const byDatabase = new Map<number, string[]>();
      for (const id of ids) {
        const index = databaseOf(id, services.databases);
        byDatabase.set(index, [...(byDatabase.get(index) ?? []), id]);
      }
      // Every database's buckets: a score lands on the post's database, but a reshard may have left one elsewhere.
      await Promise.all(
        Array.from({ length: services.databases }, async (_, index) => {
          const pipeline = services.redisAt(index).pipeline();
          for (const id of byDatabase.get(index) ?? []) pipeline.del(counterKeys.cache("post", id));
          for (const bucket of buckets) pipeline.zrem(bucket, ...ids);
          await pipeline.exec();
        }),
      );
    }
    if (ids.length === COUNTED_POSTS_PER_STEP) return { removed, cursor: ids[ids.length - 1]! };
    // Last: the user's own counters (followers, following, posts…), moved to zero by the erasers before.
    const own = await queryRows(
      services.db,
      `WITH c AS (DELETE FROM counters WHERE entity = 'user' AND entity_id = $1 RETURNING 1),
            s AS (DELETE FROM counter_stale_cache WHERE entity = 'user' AND entity_id = $1 RETURNING 1)
       SELECT 1 FROM c UNION ALL SELECT 1 FROM s`,
      [userId],
    );
    await services.redisFor(userId).del(counterKeys.cache("user", userId));
    return pageStep(removed + own.length, false);
  },
};
