import { sql } from "drizzle-orm";
import { checkDatabase, rateLimitedAnswers } from "../lib/redis";
import { databasesInUse } from "../lib/redis-topology";
import type { Services } from "../lib/services";

export type DependencyHealth = { ok: boolean; latencyMs: number; error?: string };
/**
 * Redis: with several databases, each one's probe (its marker check and a PING) and `ok` only when
 * all are; `rateLimited`: answers past a database's command budget this isolate got since it
 * started (not an outage: the calls concerned were degraded, see docs/scale.md).
 */
export type RedisHealth = DependencyHealth & { databases?: DependencyHealth[]; rateLimited: number };
export type Health = { status: "ok" | "unavailable"; redis: RedisHealth; postgres: DependencyHealth };

/** What a caller without an admin token sees: each dependency's status, none of its details. */
export type PublicHealth = { status: Health["status"]; redis: { ok: boolean }; postgres: { ok: boolean } };

const PROBE_TIMEOUT_MS = 2_000;

/**
 * `health` without latencies, databases or error messages: a dependency's raw error can name its
 * host, a setting or a database's marker, which is for operators, not for the public route.
 */
export function publicHealth(health: Health): PublicHealth {
  return { status: health.status, redis: { ok: health.redis.ok }, postgres: { ok: health.postgres.ok } };
}

/** Probes Redis (every database: PING through Upstash REST) and Postgres (SELECT 1 through Neon) concurrently. */
export async function checkHealth(services: Services): Promise<Health> {
  const [redis, postgres] = await Promise.all([probeRedis(services), probe(() => services.db.execute(sql`select 1`))]);
  return { status: redis.ok && postgres.ok ? "ok" : "unavailable", redis, postgres };
}

async function probeRedis(services: Services): Promise<RedisHealth> {
  const rateLimited = rateLimitedAnswers().reduce((sum, n) => sum + n, 0);
  let n: number;
  try {
    n = services.databases;
  } catch (err) {
    // A setting that cannot be right (bad JSON, a missing token…): said here, and by every call.
    return { ok: false, latencyMs: 0, error: err instanceof Error ? err.message : String(err), rateLimited };
  }
  if (n === 1) return { ...(await probe(() => services.redis.ping())), rateLimited };
  const started = Date.now();
  const probed = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      probe(async () => {
        await checkDatabase(services.env, i);
        await services.redisAt(i).ping();
      }),
    ),
  );
  // The checks read the reshard state: a database a done shrink left is not the deployment's.
  const databases = probed.slice(0, databasesInUse(n));
  const failed = databases.findIndex((d) => !d.ok);
  return {
    ok: failed === -1,
    latencyMs: Date.now() - started,
    ...(failed === -1 ? {} : { error: `database ${failed}: ${databases[failed]!.error}` }),
    databases,
    rateLimited,
  };
}

async function probe(check: () => Promise<unknown>): Promise<DependencyHealth> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, latencyMs: Date.now() - started };
  } catch (err) {
    return { ok: false, latencyMs: Date.now() - started, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}
