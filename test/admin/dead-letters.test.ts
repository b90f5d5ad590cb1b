import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { recordDeadLetters } from "../../src/lib/ops/dead-letters";
import { opsKeys } from "../../src/lib/ops/keys";
import { queryRows } from "../../src/counters/store";
import type { Env } from "../../src/env";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import type { FeedMessage } from "../../src/feed/messages";
import { eventually, feed, fileServices, redis } from "../feed/support";
import { api, type ApiResponse, newId, show } from "../support/api";

const services = fileServices();
const admin = { userId: "1", role: "admin" as const };

type Listed = { id: string; queue: string; body: any; diedAt: string; lastError: string | null };

async function listed(query = "queue=feed-fanout&limit=100"): Promise<Listed[]> {
  const res = await api("GET", `/v1/admin/dead-letters?${query}`, { as: admin });
  expect(res.status, show(res)).toBe(200);
  return res.body.items;
}

async function replay(body: unknown) {
  const res = await api("POST", "/v1/admin/dead-letters/replay", { as: admin, body });
  expect(res.status, show(res)).toBe(200);
  return res.body as { replayed: number; ids: string[]; more: boolean };
}

/** Fan-out completions recorded for `postId` (one per delivery of its last page). */
async function completions(postId: string): Promise<number> {
  const entries = (await redis.xrevrange(opsKeys.fanouts(), "+", "-", 100)) as Record<string, { post: unknown }>;
  return Object.values(entries).filter((e) => String(e.post) === postId).length;
}

/** How many times `postId` sits in `userId`'s timeline (a sorted set: 0 or 1, never 2). */
async function copies(userId: string, postId: string, authorId: string) {
  return (await redis.zscore(feedKeys.timeline(userId), timelineMember(postId, authorId))) === null ? 0 : 1;
}

describe("dead letters: a poisoned fan-out page", () => {
  it("ends in the dead letters, is listed, replayed once (its followers get the post), and replayed again (nothing doubles)", async () => {
    const author = newId();
    const followers = [newId(), newId()];
    // Followers with a timeline and the follow intent, as a follow leaves them, written directly: a
    // real follow also queues a sync that backfills the author's newest posts, and a late one would
    // bring the poisoned post in behind the dead letter's back.
    await queryRows(services.db, `INSERT INTO follows (follower_id, followee_id) SELECT unnest($1::bigint[]), $2`, [followers, author]);
    for (const f of followers) {
      await redis.zadd(feedKeys.timeline(f), { score: 0, member: "0" });
      await redis.expire(feedKeys.timeline(f), 600);
      await redis.set(feedKeys.intent(f, author), "1", { ex: 600 });
    }
    // A post in Postgres whose fan-out message the test sends itself, poisoned: its cache key holds
    // the wrong type, so every delivery fails (WRONGTYPE) until an operator repairs it.
    const [row] = await queryRows<{ id: string }>(services.db, `INSERT INTO posts (author_id, text) VALUES ($1, 'poisoned') RETURNING id::text AS id`, [author]);
    const postId = row!.id;
    await redis.hset(feedKeys.post(postId), { wrong: "type" });
    const message: FeedMessage = { kind: "fanout", op: "add", postId, authorId: author, after: null, publishedAt: Date.now() };
    await (env as unknown as Env).FEED_QUEUE.send(message);

    const dead = await eventually(
      () => listed(),
      (items) => items.some((d) => d.body?.postId === postId),
      20_000,
    );
    const letter = dead.find((d) => d.body?.postId === postId)!;
    expect(letter).toMatchObject({ queue: "feed-fanout", body: message, diedAt: expect.any(String), lastError: expect.stringContaining("WRONGTYPE") });
    for (const f of followers) expect(await copies(f, postId, author)).toBe(0);
    const status = await api("GET", "/v1/admin/status", { as: admin });
    expect(status.body.feed.deadLetters["feed-fanout"]).toBeGreaterThanOrEqual(1);

    // Kept in Postgres: a Redis restart (or FLUSHALL) would not lose it.
    const [kept] = await queryRows<{ n: number }>(services.db, `SELECT count(*)::int AS n FROM dead_letters WHERE id = $1`, [letter.id]);
    expect(kept!.n).toBe(1);

    // The operator repairs the cause and replays it: sent, then removed.
    await redis.del(feedKeys.post(postId));
    expect(await replay({ ids: [letter.id] })).toEqual({ replayed: 1, ids: [letter.id], more: false });
    expect((await listed()).some((d) => d.id === letter.id)).toBe(false);
    await eventually(() => completions(postId), (n) => n >= 1, 15_000);
    for (const f of followers) {
      expect(await copies(f, postId, author)).toBe(1);
      const page = await feed(f);
      expect(page.items.filter((i) => i.post.id === postId)).toHaveLength(1);
    }

    // Replayed again: the same id is gone (sent once only)…
    expect(await replay({ ids: [letter.id] })).toEqual({ replayed: 0, ids: [], more: false });
    // …and the same message dead a second time (a duplicate) replays into the same timelines.
    const [again] = await recordDeadLetters(services.db, [{ queue: "feed-fanout", body: message, lastError: "duplicate" }]);
    expect(await replay({ ids: [again!] })).toMatchObject({ replayed: 1 });
    await eventually(() => completions(postId), (n) => n >= 2, 15_000);
    for (const f of followers) {
      expect(await copies(f, postId, author)).toBe(1);
      const page = await feed(f);
      expect(page.items.filter((i) => i.post.id === postId)).toHaveLength(1);
    }
  });

  it("replays all of a queue, oldest first, and discards one without sending it", async () => {
    const marker = newId();
    const bodies = [1, 2, 3].map((n) => ({ kind: "sync", followerId: `x${marker}${n}`, followeeId: `x${marker}` }));
    const ids = await recordDeadLetters(services.db, bodies.map((body) => ({ queue: "feed-follow-sync" as const, body, lastError: "test" })));
    const discarded = await api("DELETE", `/v1/admin/dead-letters/${ids[0]}`, { as: admin });
    expect(discarded.status, show(discarded)).toBe(200);
    expect(discarded.body).toEqual({ id: ids[0], discarded: true });
    expect((await api("DELETE", `/v1/admin/dead-letters/${ids[0]}`, { as: admin })).status).toBe(404);

    const page = await listed("queue=feed-follow-sync&limit=2");
    expect(page.length).toBeLessThanOrEqual(2);
    const result = await replay({ queue: "feed-follow-sync" });
    expect(result.ids).toEqual(expect.arrayContaining([ids[1], ids[2]]));
    // Not ids: they die again and come back as new dead letters (the replay itself removed them).
    const back = await eventually(
      () => listed("queue=feed-follow-sync&limit=100"),
      (items) => items.filter((d) => String(d.body?.followeeId) === `x${marker}`).length === 2,
      20_000,
    );
    expect(back.filter((d) => ids.includes(d.id))).toEqual([]);
  });

  it("pages with a cursor, newest first, without repeats", async () => {
    const marker = newId();
    await recordDeadLetters(services.db, [1, 2, 3, 4, 5].map((n) => ({ queue: "feed-fanout" as const, body: { kind: "test", marker, n }, lastError: null })));
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const res: ApiResponse = await api("GET", `/v1/admin/dead-letters?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { as: admin });
      expect(res.status, show(res)).toBe(200);
      seen.push(...res.body.items.map((d: Listed) => d.id));
      cursor = res.body.nextCursor;
      if (!cursor) break;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => Number(BigInt(b) - BigInt(a)))).toEqual(seen);
    const bad = await api("GET", "/v1/admin/dead-letters?cursor=nope", { as: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe("cursor");
  });
});
