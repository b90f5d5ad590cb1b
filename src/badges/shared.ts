import { z } from "@hono/zod-openapi";
import type { Redis } from "../lib/redis";
import { isRedisOutage } from "../lib/redis-failures";
import { settleEveryDatabase } from "../lib/redis-topology";
import { errorText, log } from "../lib/log";
import { runScript } from "../lib/run-script";

// Every badge operation is one script: the runners are the shared library's (notify's windows use them too).
export { runReadScript, runScript } from "../lib/run-script";

/** What badge code needs from the Redis client: scripts only (every badge operation is one EVALSHA). */
export type ScriptRedis = Pick<Redis, "createScript">;

/** The databases of a deployment, for the few global keys written to every one of them. */
export type EveryDatabase = { readonly databases: number; redisAt(index: number): ScriptRedis };

/**
 * The client of the database holding `userId`'s keys: `redisFor` when the caller has it (services,
 * event services), else the `redis` it was handed (a caller that picked the database itself).
 */
export function userRedis(services: { redisFor(ownerId: string): ScriptRedis } | { redis: ScriptRedis }, userId: string): ScriptRedis {
  return "redisFor" in services ? services.redisFor(userId) : services.redis;
}

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
 * A write a read sends after its answer (`waitUntil`: a cache build, a marker, remembered counts):
 * its failure is logged, never thrown, since the answer is already out and the next read does it
 * again.
 */
export function inBackground<T>(what: string, userId: string, write: Promise<T>): Promise<T | undefined> {
  return write.catch((err: unknown) => {
    log.warn({ message: `badge read's background write failed: ${what}`, userId, error: errorText(err) });
    return undefined;
  });
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

/** What a script run on every database answered: the lowest database's answer, and the databases it missed. */
export type Everywhere<T> = { answer: T; missed: number[] };

/**
 * Runs one script on EVERY database (one call each, in parallel, at most 6 at once): the global
 * keys the badges read uses on every call (broadcast ids, red-dot channels, stream items and last
 * items, authors' published counts) live in each database, so the read stays one request to the
 * user's database. At N = 1 it is exactly one call, as before. Databases that are down are logged
 * and listed in `missed` (each key's repair is in `docs/badges.md`); the others keep the write. All
 * down: throws as `runScript` does (503). A command error anywhere throws (500).
 */
export async function runEverywhere<T>(services: EveryDatabase, source: string, keys: string[], args: (string | number)[]): Promise<Everywhere<T>> {
  const n = services.databases;
  if (n === 1) return { answer: await runScript<T>(services.redisAt(0), source, keys, args), missed: [] };
  const settled = await settleEveryDatabase(n, (index) => runScript<T>(services.redisAt(index), source, keys, args));
  const missed: number[] = [];
  let answer: { value: T } | undefined;
  let outage: unknown;
  for (const [index, result] of settled) {
    if (result.status === "fulfilled") {
      answer ??= { value: result.value };
      continue;
    }
    if (!isRedisOutage(result.reason)) throw result.reason;
    outage ??= result.reason;
    missed.push(index);
  }
  if (!answer) throw outage;
  if (missed.length > 0) log.warn({ message: "badge write missed databases", keys: keys.slice(0, 2), missed });
  return { answer: answer.value, missed };
}
