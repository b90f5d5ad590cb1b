import { IDEMPOTENCY_TTL_SECONDS } from "../lib/idempotency";
import { USER_TTL_SECONDS } from "./keys";
import { runUserWrite, type ActiveRecord } from "./active";
import { luaMap, runReadScript, runScript, type ScriptRedis } from "./shared";
import type { SafetyCheck } from "../safety/cache";
import { ADD_TO_TALLY, CLEAR_TALLY, CLEAR_TALLY_KEY, READ_TALLY } from "./tally.lua";

export type TallyAdd = { applied: boolean; suppressed?: "blocked" | "muted" | "suspended"; count: number; total: number };

/**
 * Adds `count` under `key` (and to the total) of the tally at `hash`, at most once per
 * `idempotencyKey`. With `safety`, only if nothing from its peer is kept from the owner (checked in
 * the same call; a second call only when the owner's safety sets were not cached; a suspended
 * peer is known before the call: `safety.known`).
 */
export async function addToTally(redis: ScriptRedis, hash: string, key: string, count: number, idempotencyKey?: string, safety?: SafetyCheck): Promise<TallyAdd> {
  const run = (known: string) =>
    runScript<TallyAdd | { miss: true; epoch: string }>(
      redis,
      ADD_TO_TALLY,
      [hash, ...(safety ? safety.keys : []), ...(idempotencyKey ? [idempotencyKey] : [])],
      [key, count, USER_TTL_SECONDS, IDEMPOTENCY_TTL_SECONDS, ...(safety ? [safety.peer, safety.now, known] : [])],
    );
  const first = await run(safety?.known ?? "");
  if (!("miss" in first)) return first;
  const again = await run(await safety!.afterMiss(first.epoch));
  if ("miss" in again) throw new Error("tally script answered a safety miss with the verdict given");
  return again;
}

/** Zeroes one key of the tally and takes exactly its count off the total (the owner's mark read: `record`, see `active.ts`). */
export function clearTallyKey(redis: ScriptRedis, hash: string, key: string, record?: ActiveRecord) {
  return runUserWrite<{ cleared: number; total: number }>(redis, record, CLEAR_TALLY_KEY, [hash], [key]);
}

/** Zeroes the whole tally (the owner's mark read: `record`, see `active.ts`). */
export function clearTally(redis: ScriptRedis, hash: string, record?: ActiveRecord) {
  return runUserWrite<{ cleared: number; total: number }>(redis, record, CLEAR_TALLY, [hash], []);
}

/** Every key's count and the total (cjson encodes an empty table as an array: read it as `{}`). */
export async function readTally(redis: ScriptRedis, hash: string): Promise<{ byKey: Record<string, number>; total: number }> {
  const r = await runReadScript<{ byKey: Record<string, number> | unknown[]; total: number }>(redis, READ_TALLY, [hash], []);
  return { byKey: luaMap(r.byKey), total: r.total };
}
