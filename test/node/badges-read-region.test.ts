/**
 * The badges' reads through a read region of a Global database (scripts/stack/far-region.ts: a
 * replica behind a delaying link, the near-region bridge routing as Upstash does), with the real
 * `@upstash/redis` client: a warm badges call and the badge hubs' reads are answered by the
 * replica, nothing reaches the primary; what a read finds due is written after it, to the primary.
 * The workers tests count the same per request class at N = 1 and N = 3
 * (test/badges/read-only.test.ts); this one watches the routing itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "@upstash/redis";
import type { Redis as RedisConnection } from "ioredis";
import type { ReadRegion } from "../../scripts/stack/far-region.js";
import type { UpstashBridge } from "../../scripts/stack/upstash-bridge.js";
import { getBadgesAndBigFollows } from "../../src/badges/badges";
import { badgeKeys } from "../../src/badges/keys";
import { readCheapKinds } from "../../src/badges/live/values";
import type { Env } from "../../src/env";
import { readFeedUnseenMany } from "../../src/feed/unseen";
import type { Services } from "../../src/lib/services";
import { startRegionWithPrimary, type RegionWithPrimary } from "../support/read-region";

describe("badge reads through a read region 40 ms from the primary", () => {
  const FAR_MS = 40;
  const user = "4242";
  let world: RegionWithPrimary;
  let primaryBridge: UpstashBridge;
  let region: ReadRegion;
  let primaryServer: RedisConnection;
  let services: Services;
  let background: Promise<unknown>[];

  beforeAll(async () => {
    world = await startRegionWithPrimary({ name: "badges read-region test primary", token: "badges-region-token", farRoundTripMs: FAR_MS });
    ({ primaryBridge, region, primaryServer } = world);
    // The Worker's client of a deployment with read regions: each request answered as fresh as the region has it.
    const client = new Redis({ url: region.restUrl, token: primaryBridge.token, enableAutoPipelining: false, readYourWrites: false }) as unknown as Services["redis"];
    services = {
      env: {} as Env,
      redis: client,
      databases: 1,
      redisAt: () => client,
      redisFor: () => client,
      get db(): never {
        throw new Error("a warm badges read reads no Postgres");
      },
      events: { emit: async () => {} } as unknown as Services["events"],
      waitUntil: (p) => void background.push(p),
    };
    // A warm user: every cache built, recorded active this minute, TTLs renewed today.
    const now = Date.now();
    await primaryServer
      .multi()
      .hset(badgeKeys.notifications(user), { reply: 2, total: 2 })
      .hset(badgeKeys.markers(user), { bc: "0", ttlDay: Math.floor(now / 86_400_000), act: now })
      .zadd(badgeKeys.broadcastIds(), 0, "0", "+inf", "top", 5, "5")
      .hset(badgeKeys.reddotChannels(), { news: "1" })
      .hset(badgeKeys.authorSeen(user), { _: "all", "7": "1" })
      .hset(badgeKeys.authorPublished(), { "7": "3" })
      .hset(badgeKeys.streamAccess(user), { _: "1" })
      .hset(badgeKeys.dms(user), { "9": 4, total: 4 })
      .hset(badgeKeys.inbox(user), { _: "1", system: 1, total: 1 })
      .exec();
    await replicated();
  }, 60_000);
  afterAll(() => world?.stop());

  const replicated = () => world.replicated();

  /** What `read` sent to the replica and to the primary, and what was written after it (background). */
  async function routed(read: () => Promise<unknown>) {
    background = [];
    region.near.resetStats();
    await read();
    const forAnswer = { replica: region.near.stats.replica, primary: region.near.stats.primary };
    await Promise.all(background);
    return { forAnswer, after: { replica: region.near.stats.replica - forAnswer.replica, primary: region.near.stats.primary - forAnswer.primary } };
  }

  it("a warm badges call is answered by the replica, and nothing goes to the primary", async () => {
    // The first call loads the script into the region (EVALSHA_RO, NOSCRIPT, then EVAL_RO: both near).
    const first = await routed(() => getBadgesAndBigFollows(services, user, 99));
    expect(first.forAnswer.primary).toBe(0);
    let badges: Awaited<ReturnType<typeof getBadgesAndBigFollows>> | undefined;
    const warm = await routed(async () => (badges = await getBadgesAndBigFollows(services, user, 99)));
    expect(warm).toEqual({ forAnswer: { replica: 1, primary: 0 }, after: { replica: 0, primary: 0 } });
    expect(badges!.badges).toMatchObject({
      degraded: false,
      notifications: { total: { count: 2, capped: false } },
      broadcasts: { count: 1, capped: false },
      reddots: { news: true },
      authors: { count: 2, capped: false },
      dms: { count: 4, capped: false },
      inbox: { total: { count: 1, capped: false } },
      feed: { count: 0, capped: false },
    });
  });

  it("the hubs' reads (a cheap kind, a fan-out page's feed counts) are answered by the replica", async () => {
    for (let round = 0; round < 2; round++) {
      const cheap = await routed(() => readCheapKinds(services.redis, user, 99, ["notifications", "dms", "feed"], 100));
      expect(cheap.forAnswer.primary + cheap.after.primary).toBe(0);
      const feeds = await routed(() => readFeedUnseenMany(services, [user, "4343"], 100));
      expect(feeds.forAnswer.primary + feeds.after.primary).toBe(0);
    }
  });

  it("what a read finds due (the minute's active record) is written after the answer, to the primary", async () => {
    await primaryServer.hset(badgeKeys.markers(user), { act: Date.now() - 120_000 });
    await replicated();
    const due = await routed(() => getBadgesAndBigFollows(services, user, 99));
    expect(due.forAnswer).toEqual({ replica: 1, primary: 0 });
    expect(due.after.primary, "the write after the answer").toBeGreaterThan(0);
    expect(Number(await primaryServer.zscore(badgeKeys.activeUsers(), user))).toBeGreaterThan(Date.now() - 60_000);
    // Once the region has it, the next call is warm again.
    await replicated();
    expect(await routed(() => getBadgesAndBigFollows(services, user, 99))).toEqual({ forAnswer: { replica: 1, primary: 0 }, after: { replica: 0, primary: 0 } });
  });
});
