/**
 * Counters over three Redis databases (the test stack's, `test/support/databases.ts`), each
 * reached through a private chaos bridge so that one can be killed and its requests counted
 * without noise from other test files: one database's outage degrades only its entities, loses
 * nothing and leaves the others exact; a batch read is one request per database; a wrong setting
 * writes nothing; a database past its command budget degrades like an outage and is counted.
 */
import { describe, expect, it } from "vitest";
import { flushAll, flushOnce } from "../../src/counters/flush";
import { counterKeys } from "../../src/counters/keys";
import type { Env } from "../../src/env";
import { rateLimitedAnswers, redisAt } from "../../src/lib/redis";
import { api, newId, show } from "../support/api";
import { databasesEnv, newIdOn, stackDatabases, useChaosDatabases } from "../support/databases";
import { createChaos } from "../support/stack";
import { postgresCoins, readCounts, withServices } from "./support";

const service = { userId: newId(), role: "service" as const };
const databases = useChaosDatabases();
const { enough, pairs } = databases;

const incr = (id: string, coins: number, env = databases.env) => api("POST", `/v1/counters/user/${id}`, { as: service, body: { deltas: { coins } }, env });



describe.skipIf(!enough)("one of three databases killed mid-traffic", () => {
  it("degrades only its own entities (stale, as a full outage does), loses nothing, and the others stay exact", async () => {
    const ids = [newIdOn(0, 3), newIdOn(1, 3), newIdOn(2, 3)];
    const model: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
    const add = async (id: string, coins: number) => {
      const res = await incr(id, coins);
      expect(res.status, show(res)).toBe(200);
      model[id]! += coins;
    };
    for (let round = 1; round <= 3; round++) for (const id of ids) await add(id, round);
    expect(await readCounts("user", ids, { env: databases.env })).toEqual({ stale: false, counts: Object.fromEntries(ids.map((id) => [id, expect.objectContaining({ coins: model[id] })])) });
    await withServices(databases.env, (services) => flushAll(services));
    // Database 2 holds unflushed deltas of its entity when it goes down.
    await add(ids[2]!, 10);
    await add(ids[0]!, 1);
    const unflushedOn2 = 10;

    await pairs[2]!.setRedisDown(true);
    try {
      // Traffic goes on: every increment is accepted (database 2's go to Postgres directly).
      for (const id of ids) await add(id, 2);
      for (const id of ids.slice(0, 2)) {
        expect(await readCounts("user", [id], { env: databases.env }), "an entity of a healthy database").toEqual({ stale: false, counts: { [id]: expect.objectContaining({ coins: model[id] }) } });
      }
      // Its entity: Postgres' values, marked stale — without what database 2 still buffers.
      expect(await readCounts("user", [ids[2]!], { env: databases.env })).toEqual({ stale: true, counts: { [ids[2]!]: expect.objectContaining({ coins: model[ids[2]!]! - unflushedOn2 }) } });
      const batch = await readCounts("user", ids, { env: databases.env });
      expect(batch.stale).toBe(true);
      expect([batch.counts[ids[0]!]!.coins, batch.counts[ids[1]!]!.coins], "the healthy databases' entities in a mixed read").toEqual([model[ids[0]!], model[ids[1]!]]);
      // The flush applies the healthy databases' batches and reports the dead one.
      await expect(withServices(databases.env, (services) => flushOnce(services))).rejects.toThrow();
      const during = await postgresCoins(ids.slice(0, 2));
      expect(during).toEqual({ [ids[0]!]: model[ids[0]!], [ids[1]!]: model[ids[1]!] });
      await add(ids[1]!, 5);
    } finally {
      await pairs[2]!.setRedisDown(false);
    }

    await add(ids[2]!, 7);
    await withServices(databases.env, (services) => flushAll(services));
    expect(await readCounts("user", ids, { env: databases.env })).toEqual({ stale: false, counts: Object.fromEntries(ids.map((id) => [id, expect.objectContaining({ coins: model[id] })])) });
    expect(await postgresCoins(ids), "Postgres after the outage and a full flush: nothing lost, nothing twice").toEqual(model);
  });
});

describe.skipIf(!enough)("Postgres down during the flush of three databases", () => {
  it("every database keeps its cut batches until Postgres is back, then each is applied exactly once", async () => {
    const ids = [newIdOn(0, 3), newIdOn(1, 3), newIdOn(2, 3)];
    const before = await postgresCoins(ids);
    for (const [i, id] of ids.entries()) expect((await incr(id, i + 1)).status).toBe(200);
    const viaPair = { ...databases.env, NEON_WS_PROXY: pairs[0]!.wsProxy, NEON_HTTP_PROXY: pairs[0]!.httpProxy };
    await pairs[0]!.setPostgresDown(true);
    try {
      await expect(withServices(viaPair, (services) => flushOnce(services))).rejects.toThrow();
      // Cut, not applied: reads still count every increment once.
      expect(await readCounts("user", ids, { env: databases.env })).toEqual({ stale: false, counts: Object.fromEntries(ids.map((id, i) => [id, expect.objectContaining({ coins: before[id]! + i + 1 })])) });
    } finally {
      await pairs[0]!.setPostgresDown(false);
    }
    await withServices(viaPair, (services) => flushAll(services));
    await withServices(viaPair, (services) => flushAll(services));
    expect(await postgresCoins(ids)).toEqual(Object.fromEntries(ids.map((id, i) => [id, before[id]! + i + 1])));
    expect(await readCounts("user", ids, { env: databases.env })).toEqual({ stale: false, counts: Object.fromEntries(ids.map((id, i) => [id, expect.objectContaining({ coins: before[id]! + i + 1 })])) });
  });
});

describe.skipIf(!enough)("round trips at N = 3", () => {
  async function requestsPerDatabase(call: () => Promise<unknown>): Promise<number[]> {
    const before = await Promise.all(pairs.map((p) => p.stats()));
    await call();
    const after = await Promise.all(pairs.map((p) => p.stats()));
    return after.map((a, i) => a.requests - before[i]!.requests);
  }

  it("a read of cached entities on all three databases is one request to each, and one on one database is one request", async () => {
    const ids = [0, 1, 2, 0, 1, 2].map((i) => newIdOn(i, 3));
    await readCounts("user", ids, { env: databases.env }); // warms them (and checks each database's marker once)
    expect(await requestsPerDatabase(() => readCounts("user", ids, { env: databases.env }))).toEqual([1, 1, 1]);
    expect(await requestsPerDatabase(() => readCounts("user", [ids[1]!, ids[4]!], { env: databases.env }))).toEqual([0, 1, 0]);
  });

  it("an increment is one request to its entity's database; a follow moving users on two databases, one to each", async () => {
    const a = newIdOn(0, 3);
    const b = newIdOn(2, 3);
    await incr(a, 1);
    expect(await requestsPerDatabase(() => incr(a, 1))).toEqual([1, 0, 0]);
    await api("PUT", `/v1/me/following/${b}`, { as: { userId: a }, env: databases.env }); // loads the scripts
    await api("DELETE", `/v1/me/following/${b}`, { as: { userId: a }, env: databases.env });
    const counts = await requestsPerDatabase(async () => {
      const res = await api("PUT", `/v1/me/following/${b}`, { as: { userId: a }, env: databases.env });
      expect(res.status, show(res)).toBe(200);
    });
    // Database 0 also carries the capabilities not split yet (badges, feed): still one request.
    expect(counts).toEqual([1, 0, 1]);
    await withServices(databases.env, (services) => flushAll(services));
    const read = await readCounts("user", [a, b], { env: databases.env });
    expect([read.counts[a]!.following, read.counts[b]!.followers]).toEqual([1, 1]);
  });
});

describe.skipIf(!enough)("a wrong setting", () => {
  it("databases listed in another order: the call answers 503 naming the setting, and nothing is written anywhere", async () => {
    const real = stackDatabases().slice(0, 3);
    const swapped = databasesEnv([real[1]!, real[0]!, real[2]!]);
    const id = newIdOn(0, 3);
    const res = await incr(id, 3, swapped);
    expect(res.status, show(res)).toBe(503);
    expect(res.body.error.message).toMatch(/Redis setting: UPSTASH_REDIS_DATABASES\[0\] holds the marker of database 1 of 3/);
    const right = databasesEnv(real) as Env;
    for (let i = 0; i < 3; i++) {
      const redis = redisAt(right, i);
      expect(await redis.hget(counterKeys.pending(), counterKeys.pendingField("user", id, "coins")), `pending on database ${i}`).toBeNull();
      expect(await redis.exists(counterKeys.cache("user", id)), `cache on database ${i}`).toBe(0);
    }
  });
});

describe.skipIf(!enough)("a database past its command budget", () => {
  it("is not an outage: increments over the budget are applied through Postgres, counted, and the total stays exact", async () => {
    const limited = await createChaos(1, { maxCommandsPerSecond: 3 });
    try {
      const envLimited = databasesEnv([pairs[0]!, limited, pairs[2]!].map((p) => ({ url: p.restUrl, token: p.restToken })));
      const id = newIdOn(1, 3);
      const before = rateLimitedAnswers()[1] ?? 0;
      const results = await Promise.all(Array.from({ length: 12 }, () => incr(id, 1, envLimited)));
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
      expect((rateLimitedAnswers()[1] ?? 0) - before, "answers past the budget, counted for database 1").toBeGreaterThan(0);
      const health = await api("GET", "/health", { env: envLimited, as: { userId: newIdOn(0, 3), role: "admin" } });
      expect(health.body.redis.rateLimited).toBeGreaterThan(0);
      await withServices(databases.env, (services) => flushAll(services)); // through the unlimited bridge of the same database
      expect((await readCounts("user", [id], { env: databases.env })).counts[id]!.coins).toBe(12);
      expect(await postgresCoins([id])).toEqual({ [id]: 12 });
    } finally {
      await limited.close();
    }
  });
});
