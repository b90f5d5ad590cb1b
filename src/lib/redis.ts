import { Redis } from "@upstash/redis/cloudflare";
import type { Env } from "../env";

/** Fail fast when Upstash is unreachable so callers can degrade instead of hanging the request. */
const REQUEST_TIMEOUT_MS = 3_000;

/**
 * One client per request. The client holds no connection, so it is cheap to build; building it per
 * request keeps auto-pipelined batches from mixing commands of two requests into one fetch, which
 * Workers forbid (I/O objects belong to the request that created them).
 */
export function createRedis(env: Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN">): Redis {
  return new Redis({
    url: env.UPSTASH_REDIS_REST_URL,
    token: env.UPSTASH_REDIS_REST_TOKEN,
    enableTelemetry: false,
    // Auto-pipelining batches commands issued before an await into one /pipeline request.
    enableAutoPipelining: true,
    // One quick retry for a dropped connection; more would only delay the degraded answer.
    retry: { retries: 1, backoff: () => 50 },
    signal: () => AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

export type { Redis };
