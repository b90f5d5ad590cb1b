/**
 * Counter reads answered by a read region (`REDIS_READ_REGIONS` on, docs/counters.md "Reads near
 * the user"): every Redis request a read sends is one a Global database's nearest region answers
 * (plain reads, EVALSHA_RO/EVAL_RO), recorded as the Worker sends them (test/support/redis-requests.ts);
 * a read of entities not cached answers exact values without the primary and sends the cache build
 * to the primary after the answer. Exactness under random interleavings with those warms in flight:
 * model.test.ts ("reads answered by a read region").
 */
import { afterAll, describe, expect, it } from "vitest";
import { incrementCounters, readCounters } from "../../src/counters/counters";
import { flushAll, flushOnce } from "../../src/counters/flush";
import { counterKeys } from "../../src/counters/keys";
import { READ_UNCACHED_COUNTERS } from "../../src/counters/warm.lua";
import type { Env } from "../../src/env";
import type { ScriptRunner } from "../../src/lib/script-batch";
import type { Services } from "../../src/lib/services";
import { api, newId, show } from "../support/api";
import { commandNames, recordRedisRequests } from "../support/redis-requests";
import { servicesFor } from "./support";

const near = { REDIS_READ_REGIONS: "on" } satisfies Partial<Env>;
const { services, close } = servicesFor(near);
afterAll(() => close());

/** The request's services with its `waitUntil` kept for the test to run when it chooses. */
function deferred(base: Services = services) {
  const later: Promise<unknown>[] = [];
  const deps = Object.create(base, { waitUntil: { value: (p: Promise<unknown>) => void later.push(p) } }) as Services;
  return { deps, later };
}

describe("GET /v1/counters/{entity} with read regions", () => {
  it("a read of cached entities, single or 100 at once, is one EVALSHA_RO: nothing for the primary", async () => {
    const ids = Array.from({ length: 100 }, () => newId());
    await incrementCounters(services, [{ entity: "post", id: ids[0]!, field: "likes", delta: 3 }]);
    // The first read warms them (after answering, which api() waits for, as the runtime does).
    const first = await api("GET", `/v1/counters/post?ids=${ids.join(",")}`, { env: near });
    expect(first.status, show(first)).toBe(200);
    for (const path of [`/v1/counters/post?ids=${ids[0]}&fresh=true`, `/v1/counters/post?ids=${ids.join(",")}&fresh=true`]) {
      const { result, requests } = await recordRedisRequests(() => api("GET", path, { env: near }));
      expect(result.status, show(result)).toBe(200);
      expect(result.body.items[0].counts.likes).toBe(3);
      expect(commandNames(requests), path).toEqual(["/ evalsha_ro"]);
      expect(requests[0]!.primary).toBe(false);
    }
  });

  it("a read of an entity not cached answers its exact value read-only, then warms it on the primary after the answer", async () => {
    const id = newId();
    await incrementCounters(services, [{ entity: "user", id, field: "coins", delta: 7 }]);
    await flushAll(services); // 7 in Postgres
    await incrementCounters(services, [{ entity: "user", id, field: "coins", delta: 2 }]);
    await flushOnce(services, { stopAfter: "cut" }); // 2 in a batch not applied yet
    await incrementCounters(services, [{ entity: "user", id, field: "coins", delta: 1 }]); // 1 pending
    await services.redis.del(counterKeys.cache("user", id));

    // Requests for the primary held until the test lets them go: the answer must not wait for them.
    const { deps, later } = deferred();
    const answered = await recordRedisRequests(() => readCounters(deps, "user", [id]), { holdPrimary: 10_000 });
    expect(answered.result.values.get(id)![5], "coins: Postgres 7 + batch 2 + pending 1").toBe(10);
    expect(answered.result.stale).toBe(false);
    expect(commandNames(answered.requests.filter((r) => !r.primary))).toEqual(["/ evalsha_ro", "/ evalsha_ro"]);
    expect(await services.redis.exists(counterKeys.cache("user", id)), "not cached before the answer is sent").toBe(0);

    expect(later).toHaveLength(1);
    // What went to the primary (held) is the warm alone, sent after the answer.
    expect(answered.requests.filter((r) => r.primary).every((r) => r.commands[0]![0] === "evalsha")).toBe(true);
    answered.release();
    await Promise.all(later);
    // Warmed: the next read is the cache's one read-only call, with the same value.
    const again = await recordRedisRequests(() => readCounters(deferred().deps, "user", [id]));
    expect(again.result.values.get(id)![5]).toBe(10);
    expect(commandNames(again.requests)).toEqual(["/ evalsha_ro"]);
    await flushAll(services);
  });

  it("through the Worker: a miss is answered exactly and the entity is cached once the request's background work ran", async () => {
    const id = newId();
    await incrementCounters(services, [{ entity: "group", id, field: "posts", delta: 4 }]);
    await services.redis.del(counterKeys.cache("group", id));
    const { result, requests } = await recordRedisRequests(() => api("GET", `/v1/counters/group?ids=${id}`, { env: near }));
    expect(result.body.items[0].counts, show(result)).toEqual({ subscribers: 0, posts: 4, featured: 0 });
    // Read-only calls, then the warm: the only request for the primary, sent after the answer.
    expect(requests.map((r) => r.primary)).toEqual([false, false, true]);
    expect(await services.redis.exists(counterKeys.cache("group", id))).toBe(1);
  });

  it("when the region cannot complete the snapshot (it is behind it), the read warms on the primary before answering", async () => {
    const id = newId();
    await incrementCounters(services, [{ entity: "post", id, field: "views", delta: 5 }]);
    await services.redis.del(counterKeys.cache("post", id));
    // A region that refuses every completion, as one lagging behind the Postgres snapshot does.
    const behind = (runner: ScriptRunner): ScriptRunner => ({
      createScript: ((source: string, opts?: { readonly?: boolean }) =>
        source === READ_UNCACHED_COUNTERS ? { exec: async () => [0] } : runner.createScript(source, opts)) as ScriptRunner["createScript"],
    });
    const { deps, later } = deferred(Object.create(services, { redisAt: { value: (i: number) => behind(services.redisAt(i)) } }) as Services);
    const { result, requests } = await recordRedisRequests(() => readCounters(deps, "post", [id]));
    expect(result.values.get(id)![0]).toBe(5);
    expect(requests.map((r) => r.primary), commandNames(requests).join("; ")).toEqual([false, true]);
    expect(later, "nothing left to warm").toHaveLength(0);
    expect(await services.redis.exists(counterKeys.cache("post", id))).toBe(1);
  });
});

describe("READ_UNCACHED_COUNTERS", () => {
  /** Private pending/batches/sequence keys, so the cases below set the state they need. */
  async function run(state: { seq?: number; unapplied?: number[]; pending?: number; batches?: Record<number, number> }, W: number) {
    const base = `test:near:${crypto.randomUUID()}`;
    const keys = { pending: `${base}:pending`, unapplied: `${base}:batches`, seq: `${base}:seq`, batch: `${base}:batch:` };
    const redis = services.redis;
    if (state.seq !== undefined) await redis.set(keys.seq, state.seq, { ex: 60 });
    for (const n of state.unapplied ?? []) await redis.zadd(keys.unapplied, { score: n, member: String(n) });
    if (state.pending) await redis.hset(keys.pending, { "post:1:likes": state.pending });
    for (const [n, likes] of Object.entries(state.batches ?? {})) await redis.hset(`${keys.batch}${n}`, { "post:1:likes": likes });
    const answer = await redis
      .createScript<unknown[], true>(READ_UNCACHED_COUNTERS, { readonly: true })
      .exec([keys.pending, keys.unapplied, keys.seq, `${base}:cache`], [String(W), "60", "read", keys.batch, "1", "likes", "post:1:", "100"]);
    await redis.del(keys.pending, keys.unapplied, keys.seq, ...Object.keys(state.batches ?? {}).map((n) => `${keys.batch}${n}`));
    return answer;
  }

  it("adds the batches above W and pending to the Postgres values", async () => {
    expect(await run({ seq: 7, unapplied: [5, 6, 7], pending: 1, batches: { 5: 1000, 6: 20, 7: 3 } }, 5)).toEqual([1, [124]]);
  });

  it("refuses a snapshot newer than the server: its sequence below W (a lagging replica's pending may hold what W's batches hold)", async () => {
    expect(await run({ seq: 3, pending: 9 }, 5)).toEqual([0]);
    expect(await run({ pending: 9 }, 5), "no sequence at all").toEqual([0]);
  });

  it("refuses when a batch above W left Redis after the snapshot (applied since)", async () => {
    expect(await run({ seq: 7, unapplied: [7], batches: { 7: 3 } }, 5)).toEqual([0]);
  });

  it("answers at W = 0 with no batch ever cut", async () => {
    expect(await run({ pending: 2 }, 0)).toEqual([1, [102]]);
  });
});
