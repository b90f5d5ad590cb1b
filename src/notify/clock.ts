import type { Env } from "../env";

/**
 * The time notify's own decisions are taken at: whether a user's quiet hours are on, how long a
 * push is held, whether a held push may leave. It is the Worker's clock; only where
 * ENVIRONMENT=development, NOTIFY_CLOCK_OFFSET_MS (milliseconds, may be negative) moves it, so a
 * test can put a user inside or past their quiet hours without waiting for them. Provider tokens,
 * expiry headers and Redis TTLs keep the real clock.
 */
export function notifyNow(env: Pick<Env, "ENVIRONMENT" | "NOTIFY_CLOCK_OFFSET_MS">): number {
  const offset = env.ENVIRONMENT === "development" ? Number(env.NOTIFY_CLOCK_OFFSET_MS ?? 0) : 0;
  return Date.now() + (Number.isFinite(offset) ? offset : 0);
}
