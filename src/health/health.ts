import { sql } from "drizzle-orm";
import type { Services } from "../lib/services";

export type DependencyHealth = { ok: boolean; latencyMs: number; error?: string };
export type Health = { status: "ok" | "unavailable"; redis: DependencyHealth; postgres: DependencyHealth };

const PROBE_TIMEOUT_MS = 2_000;

/** Probes Redis (PING through Upstash REST) and Postgres (SELECT 1 through Neon) concurrently. */
export async function checkHealth(services: Services): Promise<Health> {
  const [redis, postgres] = await Promise.all([
    probe(() => services.redis.ping()),
    probe(() => services.db.execute(sql`select 1`)),
  ]);
  return { status: redis.ok && postgres.ok ? "ok" : "unavailable", redis, postgres };
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
