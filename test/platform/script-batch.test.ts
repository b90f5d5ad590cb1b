/**
 * `createScriptBatch` (src/lib/script-batch.ts): scripts started in one turn go as one pipeline,
 * and a round of read-only scripts alone goes as EVALSHA_RO, which a Global database's read region
 * answers; a round with any other script goes whole as EVALSHA (the primary). Through the real
 * client and the stack's bridge, recording what was sent.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { readOnlyScript } from "../../src/lib/read-only-scripts";
import { redisFor } from "../../src/lib/redis";
import { createScriptBatch } from "../../src/lib/script-batch";
import { commandNames, recordRedisRequests } from "../support/redis-requests";

const bindings = env as unknown as Env;
/** Fresh sources per test: the first round of each finds them unknown to Redis (NOSCRIPT). */
const readSource = () => readOnlyScript(`return {'read', KEYS[1], redis.call('GET', KEYS[1]) or false, '${crypto.randomUUID()}'}`);
const writeSource = () => `redis.call('SET', KEYS[1], ARGV[1], 'EX', 60) return {'wrote', '${crypto.randomUUID()}'}`;

describe("a script batch", () => {
  it("sends a round of read-only scripts as EVALSHA_RO (EVAL_RO on NOSCRIPT), nothing for the primary", async () => {
    const key = `test:batch:${crypto.randomUUID()}`;
    await redisFor(bindings).set(key, "v", { ex: 60 });
    const source = readSource();
    const round = async () => {
      const batch = createScriptBatch(() => redisFor(bindings));
      const [a, b] = await Promise.all([
        batch.createScript<unknown[], true>(source, { readonly: true }).exec([key], []),
        batch.createScript<unknown[], true>(source, { readonly: true }).exec([`${key}:none`], []),
      ]);
      expect(batch.rounds()).toBe(1);
      return [a, b];
    };
    const cold = await recordRedisRequests(round);
    expect(cold.result.map((r) => r.slice(0, 3))).toEqual([["read", key, "v"], ["read", `${key}:none`, null]]);
    expect(commandNames(cold.requests)).toEqual(["/pipeline evalsha_ro,evalsha_ro", "/pipeline eval_ro,eval_ro"]);
    expect(cold.requests.filter((r) => r.primary)).toEqual([]);
    const warm = await recordRedisRequests(round);
    expect(commandNames(warm.requests)).toEqual(["/pipeline evalsha_ro,evalsha_ro"]);
  });

  it("sends a round with any other script whole as EVALSHA: the primary runs it, reads in order after the writes", async () => {
    const key = `test:batch:${crypto.randomUUID()}`;
    const [read, write] = [readSource(), writeSource()];
    const batch = createScriptBatch(() => redisFor(bindings));
    const { result, requests } = await recordRedisRequests(() =>
      Promise.all([
        batch.createScript<unknown[]>(write).exec([key], ["mine"]),
        batch.createScript<unknown[], true>(read, { readonly: true }).exec([key], []),
      ]),
    );
    expect(batch.rounds()).toBe(1);
    expect(result[1]!.slice(0, 3), "the read ran after the write of its round").toEqual(["read", key, "mine"]);
    expect(commandNames(requests)).toEqual(["/pipeline evalsha,evalsha", "/pipeline eval,eval"]);
    expect(requests.every((r) => r.primary)).toBe(true);
  });

  it("refuses a write inside a read-only script, as a read region would (an error for that call only)", async () => {
    const key = `test:batch:${crypto.randomUUID()}`;
    const batch = createScriptBatch(() => redisFor(bindings));
    const sneaky = readOnlyScript(`redis.call('SET', KEYS[1], 'x') return 1 -- ${crypto.randomUUID()}`);
    const [bad, good] = await Promise.allSettled([
      batch.createScript(sneaky, { readonly: true }).exec([key], []),
      batch.createScript<unknown[], true>(readSource(), { readonly: true }).exec([key], []),
    ]);
    expect(bad.status).toBe("rejected");
    expect(String((bad as PromiseRejectedResult).reason)).toMatch(/write commands are not allowed|no-writes/i);
    expect(good.status).toBe("fulfilled");
    expect(await redisFor(bindings).get(key)).toBeNull();
  });
});
