import { describe, expect, it } from "vitest";
import { flushAll, flushOnce } from "../../src/counters/flush";
import { counterKeys } from "../../src/counters/keys";
import { continueReconcilePass, reconcileCounters, reconcileIds, startReconcilePass } from "../../src/counters/reconcile";
import { applyBatch, queryRows } from "../../src/counters/store";
import { api, newId, show } from "../support/api";
import { readCounts, servicesFor } from "./support";

const admin = () => ({ userId: newId(), role: "admin" as const });

async function follow(follower: string, followee: string) {
  const res = await api("PUT", `/v1/me/following/${followee}`, { as: { userId: follower } });
  if (res.status !== 200) throw new Error(show(res));
}

async function pgValue(entity: string, id: string, field: string): Promise<number> {
  const { services, close } = servicesFor();
  const rows = await queryRows<{ value: string }>(services.db, "SELECT value::text AS value FROM counters WHERE entity = $1 AND entity_id = $2 AND field = $3", [entity, id, field]);
  await close();
  return Number(rows[0]?.value ?? 0);
}

describe("POST /v1/admin/counters/reconcile", () => {
  it("repairs a counter corrupted by hand in Postgres, and the cache with it", async () => {
    const b = newId();
    await follow(newId(), b);
    await follow(newId(), b);
    const { services, close } = servicesFor();
    await flushAll(services);
    expect((await readCounts("user", [b])).counts[b]!.followers).toBe(2); // cached now
    await queryRows(services.db, "UPDATE counters SET value = 999 WHERE entity = 'user' AND entity_id = $1 AND field = 'followers'", [b]);
    const res = await api("POST", `/v1/admin/counters/reconcile?entity=user&ids=${b}`, { as: admin() });
    expect(res.status, show(res)).toBe(200);
    expect(res.body, show(res)).toMatchObject({ scanned: 1, drifted: 1, drift: [{ entity: "user", id: b, field: "followers", counted: 999, expected: 2 }] });
    expect((await readCounts("user", [b])).counts[b]!.followers).toBe(2);
    await flushAll(services);
    await close();
    expect(await pgValue("user", b, "followers")).toBe(2);
    expect((await readCounts("user", [b])).counts[b]!.followers).toBe(2);
  });

  it("repairs an increment no relation explains (a lost or duplicated event)", async () => {
    const a = newId();
    await api("POST", `/v1/counters/user/${a}`, { as: { userId: newId(), role: "service" }, body: { deltas: { following: 5 } } });
    const res = await api("POST", `/v1/admin/counters/reconcile?entity=user&ids=${a}`, { as: admin() });
    expect(res.body, show(res)).toMatchObject({ drifted: 1, drift: [{ field: "following", counted: 5, expected: 0 }] });
    expect((await readCounts("user", [a])).counts[a]!.following).toBe(0);
  });

  it("reports no drift when counters agree with the relations", async () => {
    const b = newId();
    await follow(newId(), b);
    const res = await api("POST", `/v1/admin/counters/reconcile?entity=user&ids=${b}`, { as: admin() });
    expect(res.body, show(res)).toMatchObject({ scanned: 1, drifted: 0, drift: [] });
  });

  it("is for admins only", async () => {
    const res = await api("POST", "/v1/admin/counters/reconcile", { as: { userId: newId(), role: "service" } });
    expect(res.status, show(res)).toBe(403);
  });

  it("needs an entity when given ids", async () => {
    const res = await api("POST", `/v1/admin/counters/reconcile?ids=${newId()}`, { as: admin() });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field, show(res)).toBe("entity");
  });
});

describe("reconcile", () => {
  it("walks ids in keyset batches and says where it stopped", async () => {
    // Adjacent ids, so no other test file's random ids fall inside the walked range.
    const base = BigInt(newId()) * 10n;
    const users = [0n, 1n, 2n, 3n].map((k) => String(base + k));
    for (const u of users) await follow(u, String(base + 9n));
    const { services, close } = servicesFor();
    await api("POST", `/v1/counters/user/${users[3]}`, { as: { userId: newId(), role: "service" }, body: { deltas: { following: 2 } } });
    const report = await reconcileCounters(services, { entities: ["user"], start: { entity: "user", after: String(base - 1n) }, batchSize: 2, maxBatches: 2 });
    await close();
    expect(report.scanned).toBe(4);
    expect(report.next).toEqual({ entity: "user", after: users[3] });
    expect(report.drift).toEqual([{ entity: "user", id: users[3], field: "following", counted: 3, expected: 1 }]);
  });

  it("converges while follows and unfollows race with it", async () => {
    const star = newId();
    const fans = Array.from({ length: 12 }, () => newId());
    const { services, close } = servicesFor();
    // Drift to repair before and during the race: without the reconcile it would stay 7 off.
    await api("POST", `/v1/counters/user/${star}`, { as: { userId: newId(), role: "service" }, body: { deltas: { followers: 7 } } });
    const churn = async (fan: string, i: number) => {
      for (let k = 0; k < 4; k++) {
        const method = (i + k) % 2 === 0 ? "PUT" : "DELETE";
        await api(method, `/v1/me/following/${star}`, { as: { userId: fan } });
      }
      if (i % 3 === 0) await api("PUT", `/v1/me/following/${star}`, { as: { userId: fan } });
    };
    const reconciles = (async () => {
      for (let k = 0; k < 6; k++) {
        await reconcileIds(services, "user", [star]);
        if (k % 2 === 1) await flushOnce(services);
      }
    })();
    await Promise.all([...fans.map(churn), reconciles]);
    // Traffic has settled: the next reconcile (at most one) makes the counter exact for good.
    await reconcileIds(services, "user", [star]);
    const [truth] = await queryRows<{ n: string }>(services.db, "SELECT count(*)::text AS n FROM follows WHERE followee_id = $1", [star]);
    const expected = Number(truth!.n);
    expect((await readCounts("user", [star])).counts[star]!.followers).toBe(expected);
    expect((await reconcileIds(services, "user", [star])).drifted).toBe(0);
    await flushAll(services);
    await close();
    expect(await pgValue("user", star, "followers")).toBe(expected);
  });
});

describe("reconcile passes: started daily, continued in per-minute slices", () => {
  it("continues from its cursor slice by slice, repairs drift on the way, and ends the pass", async () => {
    // Adjacent ids above every other test file's ids, so the first slices walk exactly these.
    const base = BigInt(newId()) * 10n;
    const users = [0n, 1n, 2n, 3n].map((k) => String(base + k));
    for (const u of users) await follow(u, String(base + 9n));
    await api("POST", `/v1/counters/user/${users[3]}`, { as: { userId: newId(), role: "service" }, body: { deltas: { following: 4 } } });
    const { services, close } = servicesFor();
    try {
      await services.redis.set(counterKeys.reconcileCursor(), JSON.stringify({ entity: "user", after: String(base - 1n) }));
      const first = await continueReconcilePass(services, { maxBatches: 1, batchSize: 2 });
      expect(first).toMatchObject({ pass: "running", scanned: 2, next: { entity: "user", after: users[1] } });
      const second = await continueReconcilePass(services, { maxBatches: 1, batchSize: 2 });
      expect(second).toMatchObject({ pass: "running", scanned: 2, next: { entity: "user", after: users[3] } });
      expect(second).toMatchObject({ drift: [{ entity: "user", id: users[3], field: "following", counted: 5, expected: 1 }] });
      let slice = second as Awaited<ReturnType<typeof continueReconcilePass>>;
      for (let i = 0; i < 20 && slice.pass === "running"; i++) slice = await continueReconcilePass(services, { sliceMs: 10_000 });
      expect(slice.pass).toBe("done");
      expect(await services.redis.get(counterKeys.reconcileCursor())).toBeNull();
      expect(await continueReconcilePass(services)).toEqual({ pass: "idle" });
    } finally {
      await close();
    }
    expect((await readCounts("user", [users[3]!])).counts[users[3]!]!.following).toBe(1);
  });

  it("starts every pass from the first id", async () => {
    const { services, close } = servicesFor();
    try {
      await services.redis.set(counterKeys.reconcileCursor(), JSON.stringify({ entity: "post", after: "9000000000000000000" }));
      const slice = await startReconcilePass(services, { maxBatches: 1, batchSize: 1 });
      expect(slice).toMatchObject({ pass: "running", scanned: 1, next: { entity: "user" } });
    } finally {
      await services.redis.del(counterKeys.reconcileCursor());
      await close();
    }
  });
});

describe("counter_flush_batches", () => {
  it("is pruned by the statement that applies a batch, keeping the recent numbers the exactly-once guard needs", async () => {
    // Negative numbers: never used by real flushes and below every real watermark, so this cannot
    // disturb other test files sharing the database.
    const top = -(Number(BigInt(newId()) % 1_000_000n) * 10_000 + 100_000);
    const [old, recent] = [top - 3_000, top - 1_500];
    const { services, close } = servicesFor();
    try {
      await queryRows(services.db, "INSERT INTO counter_flush_batches (batch, deltas) VALUES ($1, 0), ($2, 0)", [old, recent]);
      const result = await applyBatch(services.db, top, [], 2_000);
      expect(result.applied).toBe(true);
      const rows = await queryRows<{ batch: string }>(services.db, "SELECT batch::text AS batch FROM counter_flush_batches AS b WHERE b.batch BETWEEN $1 AND $2 ORDER BY b.batch", [old, top]);
      expect(rows.map((r) => Number(r.batch))).toEqual([recent, top]);
      expect((await applyBatch(services.db, top, [], 2_000)).applied, "a kept number is still applied only once").toBe(false);
    } finally {
      await queryRows(services.db, "DELETE FROM counter_flush_batches WHERE batch BETWEEN $1 AND $2", [old, top]);
      await close();
    }
  });
});
