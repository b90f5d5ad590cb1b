import { errorText, log } from "../lib/log";
import { isRedisOutage } from "../lib/redis-failures";
import { groupByDatabase, settleEach } from "../lib/redis-topology";
import type { Services } from "../lib/services";

/**
 * One user's row that Postgres holds and Redis caches on the user's database (their devices, their
 * preferences): one GET; on a miss, Postgres, then the copy is stored after the response with
 * SET NX EX, so a fill never overwrites what a change or another read stored. Redis down:
 * Postgres answers (it is a cache).
 */
export type CachedRow<T> = {
  key: string;
  ttlSeconds: number;
  /** Names the row in the log line of a failed fill. */
  what: string;
  /** The cached value as a row, or undefined when it is none (a miss, or a stale mark). */
  from: (cached: unknown) => T | undefined;
  load: () => Promise<T>;
};

/** A row's cached value read beforehand (`prefetchRowsOfUsers`), or that Redis was down then. */
export type Prefetched = { cached: unknown } | "redis down";

/** `prefetched`: the value an MGET already read (then no GET of its own). */
export async function cachedRow<T>(services: Pick<Services, "redisFor" | "waitUntil">, userId: string, row: CachedRow<T>, prefetched?: Prefetched): Promise<T> {
  const redis = services.redisFor(userId);
  if (prefetched === "redis down") return row.load();
  let cached: unknown;
  if (prefetched) cached = prefetched.cached;
  else {
    try {
      cached = await redis.get(row.key);
    } catch (err) {
      if (!isRedisOutage(err)) throw err;
      return row.load();
    }
  }
  const hit = row.from(cached);
  if (hit !== undefined) return hit;
  const value = await row.load();
  services.waitUntil(redis.set(row.key, JSON.stringify(value), { nx: true, ex: row.ttlSeconds }).catch((err: unknown) => log.warn({ message: `${row.what} cache fill failed`, userId, error: errorText(err) })));
  return value;
}

/**
 * Several cached rows of each of many users, for `cachedRow`: one MGET per database (a user's keys
 * sit on their own), not one per user. A database Redis cannot reach answers "redis down" for its users.
 */
export async function prefetchRowsOfUsers(
  services: Pick<Services, "redisAt" | "databases">,
  userIds: readonly string[],
  keysOf: (userId: string) => readonly string[],
): Promise<Map<string, Prefetched[]>> {
  const rows = new Map<string, Prefetched[]>();
  const settled = await settleEach(groupByDatabase(userIds, (userId) => userId, services.databases), async (index, users) => {
    const keys = users.flatMap(keysOf);
    const values = keys.length > 0 ? await services.redisAt(index).mget<unknown[]>(...keys) : [];
    let at = 0;
    for (const userId of users) {
      const n = keysOf(userId).length;
      rows.set(userId, values.slice(at, at + n).map((cached) => ({ cached })));
      at += n;
    }
  });
  for (const [, result] of settled) if (result.status === "rejected" && !isRedisOutage(result.reason)) throw result.reason;
  for (const userId of userIds) if (!rows.has(userId)) rows.set(userId, keysOf(userId).map(() => "redis down" as const));
  return rows;
}
