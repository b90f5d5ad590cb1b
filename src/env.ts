import type { FeedMessage, FollowSyncMessage } from "./feed/messages";
import type { LiveRoom } from "./live/room";

/** Bindings of the Worker: secrets, vars, the live-room namespace and the rate limiters. */
export interface Env {
  /** Upstash REST endpoint and token (locally: the REST bridge in front of redis-server). */
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  /** Postgres connection string, reached through the Neon serverless driver. */
  DATABASE_URL: string;
  /** Local runs only: `host:port/v1` of the WebSocket-to-TCP proxy that stands in for Neon's. */
  NEON_WS_PROXY?: string;
  /** HS256 secret that signs caller JWTs. */
  JWT_SECRET: string;
  ENVIRONMENT?: string;
  LIVE_ROOMS: DurableObjectNamespace<LiveRoom>;
  /**
   * `feed-fanout` (wrangler.toml `[[queues.producers]]`): post fan-outs (publish, delete) and
   * big-account transitions; consumed by this Worker's `queue()`.
   */
  FEED_QUEUE: Queue<FeedMessage>;
  /** `feed-follow-sync`: follow syncs, on their own queue so a burst of follows never delays a post. */
  FEED_SYNC_QUEUE: Queue<FollowSyncMessage>;
  /** Newest posts a home timeline keeps (default 1,000). */
  FEED_TIMELINE_CAP?: string;
  /** Followers from which an account is big: pulled by readers instead of pushed (default 10,000). */
  BIG_ACCOUNT_FOLLOWERS?: string;
  /** Big accounts merged into one home page, the most recently active first (default 200). */
  MAX_PULLED_ACCOUNTS?: string;
  /**
   * Freshness bound of the edge copy of counters, in ms (default 1,000; at most 1,000 is enforced;
   * 0 turns it off): a counter read is never older than this (`src/counters/edge-cache.ts`).
   */
  COUNTER_EDGE_CACHE_MS?: string;
  WRITE_LIMITER?: RateLimit;
  VIEW_LIMITER?: RateLimit;
}
