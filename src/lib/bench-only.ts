import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

/**
 * Gates the naive baselines the benchmarks compare against: they exist only where the var
 * `BENCH_NAIVE_ROUTES` is "1" (the benchmark harness sets it) and answer 404 everywhere else,
 * before authentication, as any unknown route does. They are not in the OpenAPI document.
 */
export const benchOnly = createMiddleware<AppEnv>(async function benchOnly(c, next) {
  if (c.env.BENCH_NAIVE_ROUTES !== "1") throw new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}`);
  await next();
});
