/**
 * Benchmark baseline for `npm run bench:feed` (bench-only: never in the deployed Worker): the home
 * page as a naive design computes it on every read — the follows ⋈ posts join for the newest 20,
 * then their counters and the reader's like/favourite flags — all from Postgres. Plus a seeding
 * tool: a backlog of follow syncs queued at once, as a burst of follows leaves it.
 */
import { Hono } from "hono";
import { queryRows } from "../../../src/counters/store";
import type { AppEnv } from "../../../src/lib/context";
import { authenticate } from "../../../src/lib/auth";

export const feedBaselineRoutes = new Hono<AppEnv>();

/**
 * Queues `count` follow syncs of `followeeId` for the followers `from`, `from + 1`, … (the bench
 * seeds those follows and intents), 100 messages per `sendBatch` — the Queues limit.
 */
feedBaselineRoutes.post("/v1/bench/feed/queue-syncs", authenticate({ roles: ["service"] }), async (c) => {
  const { followeeId, from, count } = await c.req.json<{ followeeId: string; from: number; count: number }>();
  const queue = c.env.FEED_SYNC_QUEUE;
  for (let i = 0; i < count; i += 100) {
    const batch = Array.from({ length: Math.min(100, count - i) }, (_, k) => ({ body: { kind: "sync" as const, followerId: String(from + i + k), followeeId } }));
    await queue.sendBatch(batch);
  }
  return c.json({ queued: count });
});

feedBaselineRoutes.get("/v1/bench/naive/feed", authenticate(), async (c) => {
  const { db } = c.var.services;
  const me = c.var.caller.userId;
  const posts = await queryRows<{ id: string; author_id: string; text: string; created_at: string }>(
    db,
    `SELECT p.id::text AS id, p.author_id::text AS author_id, p.text, p.created_at::text AS created_at
     FROM posts p JOIN follows f ON f.followee_id = p.author_id
     WHERE f.follower_id = $1 AND p.deleted_at IS NULL ORDER BY p.id DESC LIMIT 20`,
    [me],
  );
  const ids = posts.map((p) => p.id);
  const [counts, flags] = await Promise.all([
    queryRows<{ id: string; field: string; value: string }>(
      db,
      `SELECT entity_id::text AS id, field, value FROM counters WHERE entity = 'post' AND entity_id = ANY($1::bigint[])`,
      [ids],
    ),
    queryRows<{ id: string; kind: string }>(
      db,
      `SELECT post_id::text AS id, 'l' AS kind FROM post_likes WHERE user_id = $1 AND post_id = ANY($2::bigint[])
       UNION ALL SELECT post_id::text, 'v' FROM post_favorites WHERE user_id = $1 AND post_id = ANY($2::bigint[])`,
      [me, ids],
    ),
  ]);
  const items = posts.map((p) => ({
    post: { id: p.id, authorId: p.author_id, text: p.text, createdAt: new Date(p.created_at).toISOString() },
    counts: Object.fromEntries(counts.filter((x) => x.id === p.id).map((x) => [x.field, Number(x.value)])),
    liked: flags.some((f) => f.id === p.id && f.kind === "l"),
    favorited: flags.some((f) => f.id === p.id && f.kind === "v"),
  }));
  return c.json({ items, nextCursor: null, degraded: false });
});
