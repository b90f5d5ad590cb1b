import type { Env } from "../env";
import { DEFAULT_MAX_ENTRIES } from "./keys";

/**
 * The time mutes start and end by: the Worker's clock; only where ENVIRONMENT=development,
 * SAFETY_CLOCK_OFFSET_MS (may be negative) moves it, so a test can step past a mute's end. The
 * same instant is stored in Postgres (`expires_at`) and compared in Redis (the mute's score), so
 * both agree whichever clock a deployment runs. Redis TTLs keep the real clock.
 */
export function safetyNow(env: Pick<Env, "ENVIRONMENT" | "SAFETY_CLOCK_OFFSET_MS">): number {
  const offset = env.ENVIRONMENT === "development" ? Number(env.SAFETY_CLOCK_OFFSET_MS ?? 0) : 0;
  return Date.now() + (Number.isFinite(offset) ? offset : 0);
}

/** Blocks (and, separately, mutes) one user may hold (`SAFETY_MAX_ENTRIES`, default 10,000). */
export function maxEntries(env: Pick<Env, "SAFETY_MAX_ENTRIES">): number {
  const n = Number(env.SAFETY_MAX_ENTRIES);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_ENTRIES;
}
