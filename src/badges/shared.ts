import { z } from "@hono/zod-openapi";
import type { Redis } from "../lib/redis";
import { DependencyUnavailableError, isRedisCommandError } from "../lib/errors";
import { commandFailure, isRedisOutage } from "../lib/redis-failures";

/** What badge code needs from the Redis client: scripts only (every badge operation is one EVALSHA). */
export type ScriptRedis = Pick<Redis, "createScript">;

/**
 * A map a script returned through cjson. Lua has one table type and cjson picks object or array
 * from the keys it finds, so the TypeScript side cannot rely on the shape: an array (which a map
 * of ids never legitimately is) reads as the empty map.
 */
export function luaMap<T>(value: Record<string, T> | unknown[]): Record<string, T> {
  return Array.isArray(value) ? {} : value;
}

/** Default and maximum of `?cap=`: clients show `99+`, so counting further is wasted work. */
export const DEFAULT_CAP = 99;
export const MAX_CAP = 999;

export const CapQuery = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_CAP)
  .default(DEFAULT_CAP)
  .openapi({ param: { name: "cap", in: "query" }, example: DEFAULT_CAP, description: `Stop counting at this number (1..${MAX_CAP})` });

/** A capped count as every badge reports it. */
export type Capped = { count: number; capped: boolean };
export const CappedSchema = z.object({ count: z.number().int().min(0), capped: z.boolean() }).openapi("CappedCount");

/** Scripts count up to `cap + 1` and stop; anything above `cap` is reported as `cap` with `capped`. */
export function capped(n: number, cap: number): Capped {
  return n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}

/** `capped` of every count of a map (by type, by stream, …). */
export function capAll(counts: Record<string, number>, cap: number): Record<string, Capped> {
  return Object.fromEntries(Object.entries(counts).map(([key, n]) => [key, capped(n, cap)]));
}

/**
 * Runs one Lua script (EVALSHA, EVAL on NOSCRIPT). Scripts answer `cjson.encode(...)`, so the
 * client hands back the decoded value. A Redis failure becomes a 503 the caller can retry, because
 * every caller of this helper is a Redis-only write or needs the answer.
 */
export async function runScript<T>(redis: ScriptRedis, source: string, keys: string[], args: (string | number)[]): Promise<T> {
  let raw: unknown;
  try {
    raw = await redis.createScript(source).exec(keys, args.map(String));
  } catch (err) {
    // A script error (our bug, or a key of the wrong type) must surface as a 500, not pass for an outage.
    // No `cause`: the error handler would find the UpstashError in it and answer 503.
    if (isRedisCommandError(err)) throw commandFailure("Badge script", err);
    if (isRedisOutage(err)) throw new DependencyUnavailableError("redis", err);
    throw err;
  }
  return (typeof raw === "string" ? JSON.parse(raw) : raw) as T;
}

/**
 * Badge reads never fail because Redis does: on an outage they answer `fallback` (zeros, or what
 * Postgres knows) with `degraded: true`. Anything else still fails.
 */
export async function degradable<T extends object>(read: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T & { degraded: boolean }> {
  try {
    return { ...(await read()), degraded: false };
  } catch (err) {
    if (!isRedisOutage(err)) throw err;
    return { ...(await fallback()), degraded: true };
  }
}
