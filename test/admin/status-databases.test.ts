/**
 * `GET /v1/admin/status` over three Redis databases (the test stack's, `test/support/databases.ts`),
 * each reached through a private chaos bridge so that one can be killed: every database is listed
 * with its own figures, one status script call each (≤ 25 billed commands per database), a
 * database's pending fields show under it, and a database down or past its command budget is
 * `ok: false` without hiding the others.
 */
import { describe, expect, it } from "vitest";
import type { Status } from "../../src/admin/status";
import { readStatus } from "../../src/admin/status";
import { incrementCounters } from "../../src/counters/counters";
import { flushAll, flushOnce } from "../../src/counters/flush";
import { counterKeys } from "../../src/counters/keys";
import type { Env } from "../../src/env";
import type { Redis } from "../../src/lib/redis";
import { api, show } from "../support/api";
import { countBilledCommands } from "../support/billed";
import { databasesEnv, newIdOn, useChaosDatabases } from "../support/databases";
import { createChaos } from "../support/stack";
import { withServices } from "../counters/support";

const admin = { userId: "1", role: "admin" as const };
const databases = useChaosDatabases();
const { enough, pairs } = databases;

async function status(env: Partial<Env> = databases.env): Promise<Status> {
  const res = await api("GET", "/v1/admin/status", { as: admin, env });
  expect(res.status, show(res)).toBe(200);
  return res.body as Status;
}


/** The top-level counter figures are the per-database ones summed (the worst lag for the lag). */
function expectTotals(s: Status) {
  const answered = s.counters.databases.filter((d) => d.ok);
  expect(s.counters.pendingFields).toBe(answered.reduce((a, d) => a + d.pendingFields!, 0));
  expect(s.counters.unappliedBatches).toBe(answered.reduce((a, d) => a + d.unappliedBatches!, 0));
  expect(s.counters.flushLagMs).toBe(Math.max(...answered.map((d) => d.flushLagMs!)));
}

describe.skipIf(!enough)("GET /v1/admin/status at N = 3", () => {
  it("lists the three databases, each up with its own counter figures, in index order", async () => {
    const s = await status();
    expect(s.dependencies.redis).toEqual([0, 1, 2].map((index) => expect.objectContaining({ index, name: `db${index}`, ok: true, latencyMs: expect.any(Number) })));
    expect(s.counters.databases.map((d) => [d.index, d.ok])).toEqual([
      [0, true],
      [1, true],
      [2, true],
    ]);
    for (const d of s.counters.databases) expect(d).toMatchObject({ pendingFields: expect.any(Number), unappliedBatches: expect.any(Number), flushLagMs: expect.any(Number) });
    expectTotals(s);
    expect(s.dependencies.postgres.ok).toBe(true);
  });

  it("costs one status script per database, at most 25 billed commands on each (10 + push broadcasts shown on database 0, 6 on the others)", async () => {
    await withServices(databases.env, async (services) => {
      await readStatus(services); // each database's marker is checked once per isolate, before its first command
      const counted = [0, 1, 2].map((index) => {
        const real = services.redisAt(index);
        const { redis: scripts, billed, byCommand } = countBilledCommands(real);
        const pinged: string[] = [];
        const spy = Object.assign(Object.create(scripts) as Redis, {
          createScript: (scripts as Redis).createScript.bind(scripts),
          ping: async () => {
            pinged.push("ping");
            return real.ping();
          },
        });
        return { spy, billed, byCommand, pinged };
      });
      // A batch waiting on every database, so each script runs its HGET of the cut time too (the most it runs).
      await incrementCounters(services, [0, 1, 2].map((i) => ({ entity: "post" as const, id: newIdOn(i, 3), field: "views", delta: 1 })));
      await flushOnce(services, { stopAfter: "cut" });
      const s = await readStatus({ ...services, redisAt: (index: number) => counted[index]!.spy });
      const perDatabase = counted.map((c) => c.billed.reduce((a, b) => a + b, 0) + c.pinged.length);
      console.log(`status billed commands at N = 3: ${JSON.stringify(perDatabase)} per database; ${JSON.stringify(counted.map((c) => c.byCommand))}`);
      expect(counted.map((c) => c.billed.length), "one status script call per database").toEqual([1, 1, 1]);
      expect(counted.map((c) => c.pinged.length), "one PING per database").toEqual([1, 1, 1]);
      for (const total of perDatabase) expect(total).toBeLessThanOrEqual(25);
      // ops:runs' HGETALL, then one per push broadcast shown (≤ 5; other files' may be recorded).
      expect(perDatabase[0]).toBeLessThanOrEqual(10 + counted[0]!.byCommand.hgetall! - 1);
      expect(counted[0]!.byCommand.hgetall! - 1).toBeLessThanOrEqual(5);
      expect(perDatabase.slice(1).every((n) => n <= 6)).toBe(true);
      // Only database 0's call reads the operations keys.
      expect(counted.map((c) => ["get", "hgetall", "xrevrange"].some((cmd) => cmd in c.byCommand))).toEqual([true, false, false]);
      expect(s.dependencies.redis.map((d) => d.ok)).toEqual([true, true, true]);
      await flushAll(services);
    });
  });

  it("shows pending fields on database 2 under database 2, and in the total", async () => {
    await withServices(databases.env, async (services) => {
      // Other files flush these databases too: if one cuts our fields before the read, write them again.
      for (let attempt = 0; ; attempt++) {
        const ids = Array.from({ length: 20 }, () => newIdOn(2, 3));
        await incrementCounters(services, ids.map((id) => ({ entity: "post" as const, id, field: "views", delta: 1 })));
        const s = await status();
        const stillPending = await services.redisAt(2).hexists(counterKeys.pending(), counterKeys.pendingField("post", ids[0]!, "views"));
        if (!stillPending && attempt < 3) continue;
        expect(s.counters.databases[2]!.pendingFields!).toBeGreaterThanOrEqual(20);
        expect(s.counters.pendingFields!).toBeGreaterThanOrEqual(20);
        expectTotals(s);
        break;
      }
      await flushAll(services);
    });
  });

  it("a batch held back on the databases: the top-level lag is the worst database's, and names it", async () => {
    await withServices(databases.env, async (services) => {
      await incrementCounters(services, [0, 1, 2].map((i) => ({ entity: "post" as const, id: newIdOn(i, 3), field: "views", delta: 1 })));
      await flushOnce(services, { stopAfter: "cut" });
      await new Promise((r) => setTimeout(r, 1_000));
      const s = await status();
      expectTotals(s);
      const worst = s.counters.databases.reduce((w, d) => (d.flushLagMs! > w.flushLagMs! ? d : w));
      if (s.counters.flushLagMs! > 0) {
        expect(s.counters.oldestUnappliedBatch).toEqual({ ...worst.oldestUnappliedBatch, database: worst.index });
      }
      await flushAll(services);
    });
  });

  it("one database's bridge down: that one is ok: false with its figures null, the others' figures still show", async () => {
    await pairs[1]!.setRedisDown(true);
    let s: Status;
    try {
      s = await status();
    } finally {
      await pairs[1]!.setRedisDown(false);
    }
    expect(s.dependencies.redis.map((d) => [d.index, d.ok])).toEqual([
      [0, true],
      [1, false],
      [2, true],
    ]);
    expect(s.dependencies.redis[1]!.error).toEqual(expect.any(String));
    expect(s.counters.databases[1]).toMatchObject({ index: 1, ok: false, pendingFields: null, unappliedBatches: null, flushLagMs: null });
    for (const i of [0, 2]) expect(s.counters.databases[i]).toMatchObject({ index: i, ok: true, pendingFields: expect.any(Number), flushLagMs: expect.any(Number) });
    expectTotals(s);
    expect(s.counters.pendingFields).toEqual(expect.any(Number));
    // Database 0's operations figures are still read.
    expect(s.counters.lastFlush === null || typeof s.counters.lastFlush.at === "string").toBe(true);
    expect(Object.keys(s.cron).length).toBeGreaterThan(0);
    expect(s.dependencies.postgres.ok).toBe(true);
  });

  it("database 0 down: it is ok: false, the other databases' counter figures still show", async () => {
    await pairs[0]!.setRedisDown(true);
    let s: Status;
    try {
      s = await status();
    } finally {
      await pairs[0]!.setRedisDown(false);
    }
    expect(s.dependencies.redis.map((d) => d.ok)).toEqual([false, true, true]);
    expect(s.counters.databases.map((d) => d.pendingFields === null)).toEqual([true, false, false]);
    expectTotals(s);
    expect(s.feed.fanouts.samples).toBe(0);
  });

  it("a database past its command budget is ok: false naming the limit, and the others still show", async () => {
    const limited = await createChaos(1, { maxCommandsPerSecond: 3 });
    try {
      const envLimited = databasesEnv([pairs[0]!, limited, pairs[2]!].map((p) => ({ url: p.restUrl, token: p.restToken })));
      await withServices(envLimited, async (services) => {
        const db1 = services.redisAt(1);
        await new Promise((r) => setTimeout(r, 1_000 - (Date.now() % 1_000) + 20));
        await db1.ping(); // the marker check (once per isolate) and a PING, in a second of their own
        for (let attempt = 0; ; attempt++) {
          // Use up this second's budget, then ask for the status within the same second.
          await new Promise((r) => setTimeout(r, 1_000 - (Date.now() % 1_000) + 20));
          await Promise.allSettled(Array.from({ length: 4 }, () => db1.ping()));
          const s = await readStatus(services);
          if (s.dependencies.redis[1]!.ok && attempt < 3) continue;
          expect(s.dependencies.redis.map((d) => d.ok)).toEqual([true, false, true]);
          expect(s.dependencies.redis[1]!.error).toMatch(/max requests limit exceeded/);
          expect(s.counters.databases.map((d) => d.pendingFields === null)).toEqual([false, true, false]);
          expectTotals(s);
          break;
        }
      });
    } finally {
      await limited.close();
    }
  });
});
