import { IDEMPOTENCY_TTL_SECONDS } from "../lib/idempotency";
import { USER_TTL_SECONDS } from "./keys";
import { runUserWrite, type ActiveRecord } from "./active";
import { luaMap, runReadScript, runScript, type ScriptRedis } from "./shared";
import { ADD_TO_TALLY, CLEAR_TALLY, CLEAR_TALLY_KEY, READ_TALLY } from "./tally.lua";

/** Adds `count` under `key` (and to the total) of the tally at `hash`, at most once per `idempotencyKey`. */
export function addToTally(redis: ScriptRedis, hash: string, key: string, count: number, idempotencyKey?: string) {
  return runScript<{ applied: boolean; count: number; total: number }>(
    redis,
    ADD_TO_TALLY,
    idempotencyKey ? [hash, idempotencyKey] : [hash],
    [key, count, USER_TTL_SECONDS, IDEMPOTENCY_TTL_SECONDS],
  );
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
