/**
 * A warm ranked feed through a read region of a Global database (scripts/stack/far-region.ts: a
 * replica behind a delaying link, the near-region bridge routing as Upstash does), with the
 * Worker's own Redis client (`redisAt`, read regions on): the first page and a next page are
 * answered by the replica, and nothing reaches the primary's bridge, before the answer or after
 * it — the cursor carries the ranking, nothing is stored. The workers tests class the same
 * requests at N = 1 and N = 3 (test/feed/read-only.test.ts); this one watches the routing itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis as RedisConnection } from "ioredis";
import type { ReadRegion } from "../../scripts/stack/far-region.js";
import type { UpstashBridge } from "../../scripts/stack/upstash-bridge.js";
import { counterKeys } from "../../src/counters/keys";
import { fieldsOf } from "../../src/counters/registry";
import type { Env } from "../../src/env";
import { feedKeys, TIMELINE_TTL_SECONDS, timelineMember } from "../../src/feed/keys";
import { encodeCachedPost, rankScore, readHomeFeed, type FeedPage } from "../../src/feed/timeline";
import { readingFirstPage } from "../../src/feed/unseen";
import { redisAt } from "../../src/lib/redis";
import type { Services } from "../../src/lib/services";
import { moderationCopy } from "../../src/safety/copy";
import { moderationKeys, safetyKeysOf, SETS_TTL_SECONDS } from "../../src/safety/keys";
import { routedThrough, startRegionWithPrimary, type RegionWithPrimary } from "../support/read-region";

describe("ranked feed pages through a read region 40 ms from the primary", () => {
  const FAR_MS = 40;
  const [reader, author] = ["5151", "77"];
  /** 30 posts of the author, ids 9001…9030; post k has k % 4 likes (ties), the reader liked every fifth. */
  const posts = Array.from({ length: 30 }, (_, k) => ({ id: String(9001 + k), likes: k % 4, liked: k % 5 === 0 }));
  let world: RegionWithPrimary;
  let primaryBridge: UpstashBridge;
  let region: ReadRegion;
  let primaryServer: RedisConnection;
  let services: Services;
  let background: Promise<unknown>[];

  beforeAll(async () => {
    world = await startRegionWithPrimary({ name: "feed read-region test primary", token: "feed-region-token", farRoundTripMs: FAR_MS });
    ({ primaryBridge, region, primaryServer } = world);
    const env = { UPSTASH_REDIS_REST_URL: region.restUrl, UPSTASH_REDIS_REST_TOKEN: primaryBridge.token, REDIS_READ_REGIONS: "on" } as Env;
    const client = redisAt(env, 0);
    services = {
      env,
      redis: client,
      databases: 1,
      redisAt: () => client,
      redisFor: () => client,
      get db(): never {
        throw new Error("a warm ranked page reads no Postgres");
      },
      get pooledDb(): never {
        throw new Error("a warm ranked page reads no Postgres");
      },
      events: { emit: async () => {} } as unknown as Services["events"],
      waitUntil: (p) => void background.push(p),
    };
    // A warm reader: the timeline built (sentinel 0, a week's TTL), every post and its counters
    // cached, the flags hash complete from the oldest post up, the `feed` marker at the top.
    const fields = fieldsOf("post");
    const now = Date.now();
    const write = primaryServer.multi();
    write.zadd(feedKeys.timeline(reader), 0, "0", ...posts.flatMap((p) => [p.id, timelineMember(p.id, author)]));
    write.expire(feedKeys.timeline(reader), TIMELINE_TTL_SECONDS);
    for (const [k, p] of posts.entries()) {
      write.set(feedKeys.post(p.id), encodeCachedPost({ authorId: author, text: `p${k}`, createdAt: new Date(now - (k % 3) * 3_600_000).toISOString() }), "EX", 3_600);
      write.set(counterKeys.cache("post", p.id), fields.map((f) => (f === "likes" ? p.likes : 0)).join(","), "EX", 3_600);
    }
    write.hset(feedKeys.flags(reader), { f: posts[0]!.id, ...Object.fromEntries(posts.filter((p) => p.liked).map((p) => [`l${p.id}`, "1"])) });
    write.expire(feedKeys.flags(reader), TIMELINE_TTL_SECONDS);
    write.set(feedKeys.seen(reader), posts[posts.length - 1]!.id, "EX", TIMELINE_TTL_SECONDS);
    // The reader's safety sets built, with nothing in them (the empty markers).
    for (const key of safetyKeysOf(reader).slice(0, 3)) write.zadd(key, 0, "0").expire(key, SETS_TTL_SECONDS);
    // The suspended set (database 0), nobody in it: what the isolate's copy is refreshed from.
    write.zadd(moderationKeys.suspended(), 1, "v", 0, "t");
    await write.exec();
    await replicated();
  }, 60_000);
  afterAll(() => world?.stop());

  const replicated = () => world.replicated();

  /** What `read` sent to the replica and to the primary (the near bridge's count and the primary bridge's own), before its answer and after it. */
  const routed = (read: () => Promise<unknown>) =>
    routedThrough(world, () => ((background = []), read()), () => Promise.all(background), { primaryBridge: true });

  const firstPage = () => readingFirstPage(services, reader, (scoped) => readHomeFeed(scoped, reader, { limit: 10, order: "ranked" }));

  it("a warm ranked first page and its next page: one request each, to the replica; none to the primary, after the answer either", async () => {
    // The isolate's copy of the suspended set, as a signed-in request's `authenticate` leaves it
    // (the pages hand its ids to their script): fresh for the next REFRESH_MS, so no refresh of it
    // lands in the windows counted below.
    await moderationCopy(services);
    // The first calls load the script into the region (EVALSHA_RO, NOSCRIPT, then EVAL_RO: both near).
    await firstPage();
    let first!: FeedPage;
    const warm = await routed(async () => (first = await firstPage()));
    expect(warm).toEqual({ forAnswer: { replica: 1, primary: 0, primaryBridge: 0 }, after: { replica: 0, primary: 0, primaryBridge: 0 } });
    expect(first.items).toHaveLength(10);
    expect(first.nextCursor).toMatch(/^r1\./);

    const pages = [first];
    for (let cursor = first.nextCursor; cursor; cursor = pages[pages.length - 1]!.nextCursor) {
      let next!: FeedPage;
      const later = await routed(async () => (next = await readHomeFeed(services, reader, { limit: 10, order: "ranked", cursor: cursor! })));
      expect(later).toEqual({ forAnswer: { replica: 1, primary: 0, primaryBridge: 0 }, after: { replica: 0, primary: 0, primaryBridge: 0 } });
      pages.push(next);
    }
    // The walk: every post once, highest score first, each with its likes and the reader's flag.
    const items = pages.flatMap((p) => p.items);
    expect(items.map((i) => i.post.id).sort()).toEqual(posts.map((p) => p.id).sort());
    for (const item of items) {
      const p = posts.find((q) => q.id === item.post.id)!;
      expect([item.counts.likes, item.liked], item.post.id).toEqual([p.likes, p.liked]);
    }
    const now = Date.now();
    const scores = items.map((i) => rankScore(i.counts, Date.parse(i.post.createdAt), now));
    for (let k = 1; k < scores.length; k++) expect(scores[k - 1]! * (1 + 1e-6), `rank ${k}`).toBeGreaterThanOrEqual(scores[k]!);
    expect(pages.every((p) => !p.degraded)).toBe(true);
  });
});
