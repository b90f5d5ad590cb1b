import { readRegionsOn } from "../lib/consistency";
import { recordingActive } from "./active.lua";
import { badgeKeys } from "./keys";
import { runScript, type ScriptRedis } from "./shared";

/**
 * Who a user's own badge write records in the active set (`badge:active`), or undefined: it records
 * nobody. With read regions on (`REDIS_READ_REGIONS = "on"`) the badges call writes nothing on a
 * warm read, so the active set is kept by the user's writes (marks read, seen stamps) and by the
 * first badges call of a day (with the TTL renewal); off, the badges call records it once a minute
 * and the writes carry nothing more (docs/badges.md, "Who the repair reaches").
 */
export type ActiveRecord = { userId: string } | undefined;

export function activeRecord(env: { REDIS_READ_REGIONS?: string }, userId: string): ActiveRecord {
  return readRegionsOn(env) ? { userId } : undefined;
}

/**
 * Runs a write script on the user's database (`runScript`), with the active-set record in it when
 * `record` says so: the same request, one ZADD more.
 */
export function runUserWrite<T>(redis: ScriptRedis, record: ActiveRecord, source: string, keys: string[], args: (string | number)[]): Promise<T> {
  if (!record) return runScript<T>(redis, source, keys, args);
  return runScript<T>(redis, recordingActive(source), [...keys, badgeKeys.activeUsers()], [...args, record.userId, Date.now()]);
}
