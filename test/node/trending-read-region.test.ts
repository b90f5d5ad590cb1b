/**
 * Trending through a read region of a Global database (scripts/stack/far-region.ts: a replica
 * behind a delaying link, the near-region bridge routing as Upstash does), with the real
 * `@upstash/redis` client: the per-minute cron's refresh (`feed.trending-refresh`) goes to the
 * primary and stores every window's list; a read is answered by the replica and sends the primary
 * nothing — with the stored copy older than the recompute period, and with no copy young enough
 * (the reader computes the list from the replica itself). The workers tests count the same per
 * request class (test/feed/trending-near.test.ts); this one watches the routing itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis as RedisConnection } from "ioredis";
import type { ReadRegion } from "../../scripts/stack/far-region.js";
import { counterKeys } from "../../src/counters/keys";
import { fieldsOf } from "../../src/counters/registry";
import { hourOf } from "../../src/counters/trending";
import { feedKeys } from "../../src/feed/keys";
import { feedTrendingTask } from "../../src/feed/tasks";
import { encodeCachedPost } from "../../src/feed/timeline";
import { NEAR_COPY_MAX_AGE_MS, readTrending } from "../../src/feed/trending";
import type { Services } from "../../src/lib/services";
import { regionServices, startRegionWithPrimary, type RegionWithPrimary } from "../support/read-region";

describe("trending through a read region 40 ms from the primary", () => {
  const FAR_MS = 40;
  let world: RegionWithPrimary;
  let region: ReadRegion;
  let primaryServer: RedisConnection;
  let services: Services;
  let background: Promise<unknown>[];
  /** Each read steps past the isolate's copy (2 s) with its own clock. */
  let clock = Date.now();

  beforeAll(async () => {
    world = await startRegionWithPrimary({ name: "trending read-region test primary", token: "trending-region-token", farRoundTripMs: FAR_MS });
    ({ region, primaryServer } = world);
    // The cron's client too: its writes are forwarded to the primary.
    services = regionServices(world, {
      env: { REDIS_READ_REGIONS: "on" },
      noPostgres: "every post and counter is cached: trending reads no Postgres here",
      waitUntil: (p) => void background.push(p),
    });
  }, 60_000);
  afterAll(() => world?.stop());

  const replicated = () => world.replicated();

  /** A post moving `score` in this hour's bucket, with its post cache entry and cached counters (on the primary). */
  async function moving(id: string, score: number) {
    const counts = fieldsOf("post").map((f) => (f === "likes" ? score : 0));
    await primaryServer
      .multi()
      .zincrby(counterKeys.trendingBucket(hourOf(Date.now())), score, id)
      .set(feedKeys.post(id), encodeCachedPost({ authorId: "7", text: `post ${id}`, createdAt: new Date().toISOString() }))
      .set(counterKeys.cache("post", id), counts.join(","))
      .exec();
  }

  /** A read: what it sent to the replica and to the primary, before its answer and after it. */
  async function routed(window: "1h" | "24h") {
    background = [];
    region.near.resetStats();
    const page = await readTrending(services, window, 20, (clock += 3_000));
    const forAnswer = { replica: region.near.stats.replica, primary: region.near.stats.primary };
    await Promise.all(background);
    return { ids: page.items.map((i) => i.post.id), degraded: page.degraded, forAnswer, afterPrimary: region.near.stats.primary - forAnswer.primary };
  }

  it("the cron stores the lists on the primary; a read older than the recompute period or the bound sends the primary nothing", async () => {
    await moving("101", 50);
    await moving("102", 40);
    region.near.resetStats();
    expect(await feedTrendingTask.run(services)).toEqual({ recomputed: ["1h", "24h", "7d"], kept: [], incomplete: [] });
    expect(region.near.stats.primary, "the cron's turns and stores went to the primary").toBeGreaterThan(0);
    expect(await primaryServer.hget(counterKeys.trendingLast("24h"), "o")).toBe("101,102");

    // The stored copy 70 s old (the fresh copy gone): answered by the replica as stored.
    await moving("103", 60);
    await primaryServer.del(counterKeys.trendingResult("24h"));
    await primaryServer.pexpire(counterKeys.trendingLast("24h"), (await primaryServer.pttl(counterKeys.trendingLast("24h"))) - 70_000);
    await replicated();
    await routed("24h"); // the region loads the script (EVALSHA_RO, then EVAL_RO: both near)
    expect(await routed("24h")).toEqual({ ids: ["101", "102"], degraded: false, forAnswer: { replica: 1, primary: 0 }, afterPrimary: 0 });

    // Older than the bound: computed from the replica's buckets, stored nowhere.
    await primaryServer.pexpire(counterKeys.trendingLast("24h"), (await primaryServer.pttl(counterKeys.trendingLast("24h"))) - NEAR_COPY_MAX_AGE_MS);
    await replicated();
    const computed = await routed("24h");
    expect(computed.ids).toEqual(["103", "101", "102"]);
    expect(computed.forAnswer.primary + computed.afterPrimary).toBe(0);
    expect(await primaryServer.hget(counterKeys.trendingLast("24h"), "o"), "nothing stored").toBe("101,102");

    // No copy at all: the same.
    await primaryServer.del(counterKeys.trendingResult("1h"), counterKeys.trendingLast("1h"));
    await replicated();
    const cold = await routed("1h");
    expect(cold.ids).toEqual(["103", "101", "102"]);
    expect(cold.forAnswer.primary + cold.afterPrimary).toBe(0);

    // The next cron run stores what moved; reads find it near.
    await primaryServer.del(...["1h", "24h", "7d"].map((w) => counterKeys.trendingResult(w)));
    expect(await feedTrendingTask.run(services)).toEqual({ recomputed: ["1h", "24h", "7d"], kept: [], incomplete: [] });
    await replicated();
    expect(await routed("24h")).toEqual({ ids: ["103", "101", "102"], degraded: false, forAnswer: { replica: 1, primary: 0 }, afterPrimary: 0 });
  });
});
