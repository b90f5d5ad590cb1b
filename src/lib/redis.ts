import { Redis } from "@upstash/redis/cloudflare";
import type { Env } from "../env";

/** Fail fast when Upstash is unreachable so callers can degrade instead of hanging the request. */
const REQUEST_TIMEOUT_MS = 3_000;

/**
 * One client per request. The client holds no connection, so it is cheap to build; building it per
 * request keeps any batching it does (pipelines, retries) inside the request that owns the I/O —
 * Workers forbid one request waiting on another request's fetch.
 */
export function createRedis(env: Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN">): Redis {
  return new Redis({
    url: env.UPSTASH_REDIS_REST_URL,
    token: env.UPSTASH_REDIS_REST_TOKEN,
    enableTelemetry: false,
    // No auto-pipelining: a hot request is one EVALSHA anyway, and wrapping every command in an
    // implicit pipeline cost the counters benchmark a quarter of its throughput (the Worker's CPU
    // is the bottleneck). Code that needs several commands in one round trip says so with
    // `redis.pipeline()`/`multi()` or a script.
    enableAutoPipelining: false,
    // One quick retry for a dropped connection; more would only delay the degraded answer.
    retry: { retries: 1, backoff: () => 50 },
    signal: () => AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

export type { Redis };
