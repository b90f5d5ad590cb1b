/**
 * The counter cache (`ctr:c:{entity}:{id}`, one packed string per entity): what Upstash bills for
 * its hot calls, and how the packed values behave when they expire, are incremented, or were
 * packed for another field list.
 *
 * Billed commands are EVALSHA + every command the script runs, counted per script call by
 * `countBilledCommands` (test/support/billed.ts); the domain functions the routes call run
 * unchanged on top of it. The bridge side (one request, one EVALSHA) is asserted in
 * `outages.test.ts` ("round trips").
 */
import { afterAll, describe, expect, it } from "vitest";
import { incrementCounters, readCounters } from "../../src/counters/counters";
import { counterKeys } from "../../src/counters/keys";
import { newId } from "../support/api";
import { countBilledCommands } from "../support/billed";
import { servicesFor } from "./support";

const { services, close } = servicesFor();
afterAll(() => close());

/** Domain dependencies over the test stack that record the billed commands of each script call. */
function billedRunner() {
  const { redis, billed } = countBilledCommands(services.redis);
  return { deps: { redisAt: () => redis, databases: 1, db: services.db }, billed };
}

const ids = (n: number) => Array.from({ length: n }, () => newId());

describe("billed commands", () => {
  it("a read of 100 cached entities bills EVALSHA + one MGET (at most 3)", async () => {
    const posts = ids(100);
    await incrementCounters(services, [{ entity: "post", id: posts[7]!, field: "comments", delta: 3 }]);
    const warmed = await readCounters(services, "post", posts);
    const { deps, billed } = billedRunner();
    const read = await readCounters(deps, "post", posts);
    expect(billed).toEqual([2]);
    expect(read.values).toEqual(warmed.values);
    expect(read.values.get(posts[7]!)).toEqual([0, 3, 0, 0, 0]);
  });

  it("an increment of one field of a cached entity bills 5: EVALSHA + the call's SET + GET + HINCRBY + SET", async () => {
    const [id] = ids(1) as [string];
    await readCounters(services, "user", [id]);
    const { deps, billed } = billedRunner();
    await incrementCounters(deps, [{ entity: "user", id, field: "coins", delta: 5 }]);
    expect(billed).toEqual([5]);
    expect((await readCounters(services, "user", [id])).values.get(id)).toEqual([0, 0, 0, 0, 0, 5, 0]);
  });

  it("an increment of an entity not cached bills 4, and several fields of a cached one 4 + one per field", async () => {
    const [cold, warm] = ids(2) as [string, string];
    await readCounters(services, "group", [warm]);
    const { deps, billed } = billedRunner();
    await incrementCounters(deps, [{ entity: "group", id: cold, field: "posts", delta: 1 }]);
    await incrementCounters(deps, [
      { entity: "group", id: warm, field: "subscribers", delta: 2 },
      { entity: "group", id: warm, field: "posts", delta: 1 },
      { entity: "group", id: warm, field: "featured", delta: 1 },
    ]);
    expect(billed).toEqual([4, 7]);
  });

  it("a post's like also moves trending: one ZINCRBY more (6 when cached)", async () => {
    const [id] = ids(1) as [string];
    await readCounters(services, "post", [id]);
    const { deps, billed } = billedRunner();
    await incrementCounters(deps, [{ entity: "post", id, field: "likes", delta: 1 }]);
    await incrementCounters(deps, [{ entity: "post", id, field: "likes", delta: 1 }], undefined, { trending: false });
    expect(billed).toEqual([6, 5]);
  });
});

describe("the packed cache entry", () => {
  it("holds the entity's values in registry field order and expires on its own", async () => {
    const [a, b] = ids(2) as [string, string];
    await incrementCounters(services, [{ entity: "post", id: a, field: "forwards", delta: -2 }]);
    await readCounters(services, "post", [a]);
    expect(await services.redis.get(counterKeys.cache("post", a))).toBe("0,0,0,0,-2");
    await services.redis.expire(counterKeys.cache("post", a), 100);
    await readCounters(services, "post", [a, b]);
    expect(await services.redis.ttl(counterKeys.cache("post", a))).toBeLessThanOrEqual(100);
    expect(await services.redis.ttl(counterKeys.cache("post", b))).toBeGreaterThan(12 * 3600 - 60);
  });

  it("keeps its expiry when incremented, and an increment never creates it", async () => {
    const [cached, cold] = ids(2) as [string, string];
    await readCounters(services, "post", [cached]);
    await services.redis.expire(counterKeys.cache("post", cached), 100);
    await incrementCounters(services, [
      { entity: "post", id: cached, field: "views", delta: 4 },
      { entity: "post", id: cold, field: "views", delta: 4 },
    ]);
    expect(await services.redis.get(counterKeys.cache("post", cached))).toBe("4,0,0,0,0");
    const ttl = await services.redis.ttl(counterKeys.cache("post", cached));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(100);
    expect(await services.redis.exists(counterKeys.cache("post", cold))).toBe(0);
    expect((await readCounters(services, "post", [cold])).values.get(cold)).toEqual([4, 0, 0, 0, 0]);
  });

  it("packed for another field list (the registry grew) reads as a miss: re-warmed, never misread or incremented", async () => {
    const [id] = ids(1) as [string];
    await incrementCounters(services, [{ entity: "post", id, field: "likes", delta: 2 }]);
    // As if written when posts had four counters: same prefix, one value short.
    await services.redis.set(counterKeys.cache("post", id), "9,9,9,9", { ex: 600 });
    await incrementCounters(services, [{ entity: "post", id, field: "likes", delta: 1 }]);
    expect(await services.redis.get(counterKeys.cache("post", id))).toBe("9,9,9,9");
    expect((await readCounters(services, "post", [id])).values.get(id)).toEqual([0, 0, 3, 0, 0]);
    expect(await services.redis.get(counterKeys.cache("post", id))).toBe("0,0,3,0,0");
    for (const bad of ["1,2,3,4,5,6", "1,2,x,4,5", "1,2,3,4,", ",1,2,3,4", "1,2,3,4,5 "]) {
      await services.redis.set(counterKeys.cache("post", id), bad, { ex: 600 });
      expect((await readCounters(services, "post", [id])).values.get(id), bad).toEqual([0, 0, 3, 0, 0]);
    }
  });
});
