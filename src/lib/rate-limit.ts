import { createMiddleware } from "hono/factory";
import type { Env } from "../env";
import { ApiError } from "./errors";
import type { AppEnv } from "./context";

type LimiterBinding = "WRITE_LIMITER" | "VIEW_LIMITER" | "REPORT_LIMITER";

/** Periods of the limiters in wrangler.toml, sent as Retry-After (the binding does not report one). */
export const RATE_LIMIT_PERIODS: Record<LimiterBinding, number> = { WRITE_LIMITER: 60, VIEW_LIMITER: 60, REPORT_LIMITER: 60 };

/**
 * Per-user limit through the Workers rate-limiting binding: the check costs no Redis round trip.
 * Must run after `authenticate()`. Trusted backends (role `service`) act for many users at once,
 * so a per-user bucket would throttle all of them together: they are not limited here. Fails open when the binding is missing or errors: losing the
 * limiter for a moment is better than refusing every write.
 */
export function rateLimit(binding: LimiterBinding = "WRITE_LIMITER") {
  return createMiddleware<AppEnv>(async function rateLimit(c, next) {
    const limiter = (c.env as Env)[binding];
    const caller = c.get("caller");
    if (limiter && caller && caller.role !== "service") {
      const outcome = await limiter.limit({ key: `${binding}:${caller.userId}` }).catch(() => ({ success: true }));
      if (!outcome.success) {
        throw new ApiError("rate_limited", "Too many requests; slow down", undefined, {
          "Retry-After": String(RATE_LIMIT_PERIODS[binding]),
        });
      }
    }
    await next();
  });
}
