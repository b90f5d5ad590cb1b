import { Redis } from "@upstash/redis/cloudflare";
import type { Env } from "../env";

/** Fail fast when Upstash is unreachable so callers can degrade instead of hanging the request. */
const REQUEST_TIMEOUT_MS = 3_000;

/** Clients kept per isolate, one per (URL, token); a handful at most (tests point some at dead URLs). */
const MAX_CLIENTS = 16;
const clients = new Map<string, Redis>();

/**
 * The isolate's Upstash client for these credentials, built on first use and then shared by every
 * request of the isolate. Building one is not free: the SDK defines each of its ~250 commands as a
 * closure per instance, and a client per request cost about 9% of the Worker's CPU on a live join
 * (CPU profile of `npm run bench:live`). Sharing is safe: the client holds no connection and no
 * I/O object (each command's fetch and timeout signal belong to the request that sends it), and
 * with auto-pipelining off it never batches one request's command with another's. The one state it
 * keeps is Upstash's read-your-writes sync token, which then covers the isolate instead of one
 * request: a read waits for every write this isolate has seen acknowledged, never for less.
 */
export function redisFor(env: Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN">): Redis {
  const key = `${env.UPSTASH_REDIS_REST_URL}\n${env.UPSTASH_REDIS_REST_TOKEN}`;
  let client = clients.get(key);
  if (client) return client;
  client = new Redis({
    url: env.UPSTASH_REDIS_REST_URL,
    token: env.UPSTASH_REDIS_REST_TOKEN,
    enableTelemetry: false,
    // No auto-pipelining: a hot request is one EVALSHA anyway, and wrapping every command in an
    // implicit pipeline cost the counters benchmark a quarter of its throughput (the Worker's CPU
    // is the bottleneck). Code that needs several commands in one round trip says so with
    // `redis.pipeline()`/`multi()` or a script. It is also what keeps a shared client's commands
    // inside the request that sends them (Workers forbid one request awaiting another's fetch).
    enableAutoPipelining: false,
    // One quick retry for a dropped connection; more would only delay the degraded answer.
    retry: { retries: 1, backoff: () => 50 },
    signal: () => AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value!);
  clients.set(key, client);
  return client;
}

export type { Redis };
