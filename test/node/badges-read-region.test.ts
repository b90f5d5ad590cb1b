/**
 * The badges' reads through a read region of a Global database (scripts/stack/far-region.ts: a
 * replica behind a delaying link, the near-region bridge routing as Upstash does), with the real
 * `@upstash/redis` client: a warm badges call and the badge hubs' reads are answered by the
 * replica, nothing reaches the primary; what a read finds due is written after it, to the primary.
 * With read regions on, a warm call finds nothing due within the day: the repair's active set is
 * kept by the user's own writes (and the day's first call), which the repair then takes.
 * The workers tests count the same per request class at N = 1 and N = 3
 * (test/badges/read-only.test.ts); this one watches the routing itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis as RedisConnection } from "ioredis";
import type { ReadRegion } from "../../scripts/stack/far-region.js";
import { activeRecord } from "../../src/badges/active";
import { getBadgesAndBigFollows } from "../../src/badges/badges";
import { readDirectMessages } from "../../src/badges/dms";
import { badgeKeys } from "../../src/badges/keys";
import { readCheapKinds } from "../../src/badges/live/values";
import { safetyKeys } from "../../src/safety/keys";
import { readNotificationType } from "../../src/badges/notifications";
import { takeActiveUsers } from "../../src/badges/repair";
import type { Env } from "../../src/env";
import { readFeedUnseenMany } from "../../src/feed/unseen";
import type { Services } from "../../src/lib/services";
import { regionServices, routedThrough, startRegionWithPrimary, type RegionWithPrimary } from "../support/read-region";

describe("badge reads through a read region 40 ms from the primary", () => {
  const FAR_MS = 40;
  const user = "4242";
  let world: RegionWithPrimary;
  let region: ReadRegion;
  let primaryServer: RedisConnection;
  let services: Services;
  /** The same, as a deployment with read regions on (`REDIS_READ_REGIONS = "on"`) builds it. */
  let withRegions: Services;
  let background: Promise<unknown>[];

  beforeAll(async () => {
    world = await startRegionWithPrimary({ name: "badges read-region test primary", token: "badges-region-token", farRoundTripMs: FAR_MS });
    ({ region, primaryServer } = world);
    services = regionServices(world, { noPostgres: "a warm badges read reads no Postgres", waitUntil: (p) => void background.push(p) });
    // The same, as a deployment with read regions on (`REDIS_READ_REGIONS = "on"`) builds it.
    withRegions = Object.create(services, { env: { value: { REDIS_READ_REGIONS: "on" } as Env } });
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
      // The safety sets (src/safety), built: nothing blocked or muted.
      .zadd(safetyKeys.blocked(user), 0, "0")
      .zadd(safetyKeys.blockedMe(user), 0, "0")
      .zadd(safetyKeys.mutes(user), 0, "0")
      .exec();
    await replicated();
  }, 60_000);
  afterAll(() => world?.stop());

  const replicated = () => world.replicated();

  /** What `read` sent to the replica and to the primary, and what was written after it (background). */
  const routed = (read: () => Promise<unknown>) => routedThrough(world, () => ((background = []), read()), () => Promise.all(background));

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

  it("read regions off: what a read finds due (the minute's active record) is written after the answer, to the primary", async () => {
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

  describe("read regions on", () => {
    const today = () => Math.floor(Date.now() / 86_400_000);

    it("a warm call a minute after the last active record sends nothing to the primary, after the answer either", async () => {
      const stale = Date.now() - 120_000;
      await primaryServer.hset(badgeKeys.markers(user), { act: stale, ttlDay: today() });
      await primaryServer.zadd(badgeKeys.activeUsers(), stale, user);
      await replicated();
      await routed(() => getBadgesAndBigFollows(withRegions, user, 99)); // loads the script if this client must
      expect(await routed(() => getBadgesAndBigFollows(withRegions, user, 99))).toEqual({ forAnswer: { replica: 1, primary: 0 }, after: { replica: 0, primary: 0 } });
      expect(Number(await primaryServer.zscore(badgeKeys.activeUsers(), user))).toBe(stale);
    });

    it("the first call of a day renews the TTLs and records the user active, after the answer", async () => {
      await primaryServer.hset(badgeKeys.markers(user), { act: Date.now() - 120_000, ttlDay: today() - 1 });
      await primaryServer.zrem(badgeKeys.activeUsers(), user);
      await replicated();
      const due = await routed(() => getBadgesAndBigFollows(withRegions, user, 99));
      expect(due.forAnswer).toEqual({ replica: 1, primary: 0 });
      expect(due.after.primary, "the write after the answer").toBeGreaterThan(0);
      expect(Number(await primaryServer.zscore(badgeKeys.activeUsers(), user))).toBeGreaterThan(Date.now() - 60_000);
      expect(Number(await primaryServer.hget(badgeKeys.markers(user), "ttlDay"))).toBe(today());
      expect(await takeActiveUsers(withRegions.redis)).toContain(user);
    });

    it("the user's mark read records them active in the same request, and the repair takes them", async () => {
      const reader = "4545";
      const record = activeRecord(withRegions.env, reader);
      await primaryServer.multi().hset(badgeKeys.notifications(reader), { reply: 3, like: 1, total: 4 }).hset(badgeKeys.dms(reader), { "9": 2, total: 2 }).exec();
      await readNotificationType(withRegions.redisFor(reader), reader, "like", record); // loads the script if the primary must (NOSCRIPT, then EVAL)
      await primaryServer.zrem(badgeKeys.activeUsers(), reader);
      expect(await takeActiveUsers(withRegions.redis)).not.toContain(reader);
      let cleared: unknown;
      const read = await routed(async () => (cleared = await readNotificationType(withRegions.redisFor(reader), reader, "reply", record)));
      expect(read.forAnswer, "one request: the mark read, carrying the record").toEqual({ replica: 0, primary: 1 });
      expect(read.after).toEqual({ replica: 0, primary: 0 });
      // The write itself is what it is alone: the record took its key and arguments off the end.
      expect(cleared).toEqual({ type: "reply", cleared: 3, total: 0 });
      expect(Number(await primaryServer.zscore(badgeKeys.activeUsers(), reader))).toBeGreaterThan(Date.now() - 60_000);
      expect(await takeActiveUsers(withRegions.redis)).toContain(reader);
      // Another write the same way (a script reading ARGV by position), and off: nothing recorded.
      await primaryServer.zrem(badgeKeys.activeUsers(), reader);
      expect(await readDirectMessages(withRegions.redisFor(reader), reader, "9", activeRecord({}, reader))).toMatchObject({ cleared: 2, total: 0 });
      expect(await primaryServer.zscore(badgeKeys.activeUsers(), reader)).toBeNull();
    });
  });
});
