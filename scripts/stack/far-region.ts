/**
 * A read region of an Upstash Global database, R ms (round trip) from its primary region, for one
 * database of the stack: what a Worker far from the primary talks to (`startStack({ farRegionMs })`).
 *
 *   primary redis-server ── delaying proxy (R/2 each way) ── replica redis-server (--replicaof)
 *         │                                                         │
 *   primary bridge  ◄── writes, R ms added ──  near-region bridge ──► replica bridge (reads, at once)
 *
 * The replica's lag is real: its replication stream crosses the delaying proxy. See
 * `near-region-bridge.ts` for what is answered where and the `upstash-sync-token`.
 */
import { Redis as RedisConnection } from "ioredis";
import { setTimeout as sleep } from "node:timers/promises";
import { startDelayingProxy, type DelayingProxy } from "./delaying-proxy.js";
import { startNearRegionBridge, type NearRegionBridge } from "./near-region-bridge.js";
import { startRedis } from "./redis.js";
import { startUpstashBridge, type UpstashBridge } from "./upstash-bridge.js";

export interface ReadRegion {
  /** The Worker's `UPSTASH_REDIS_REST_URL` for this database (same token as the primary's bridge). */
  restUrl: string;
  near: NearRegionBridge;
  /** The replica's own redis-server and the bridge in front of it. */
  replicaUrl: string;
  replicaBridge: UpstashBridge;
  /** The replication link (primary ↔ replica); `hold(true)` stalls it. */
  link: DelayingProxy;
  stop(): Promise<void>;
}

export interface ReadRegionOptions {
  /** The database's primary: its redis-server and its bridge (`upstash-bridge.ts`). */
  primaryRedisUrl: string;
  primaryBridge: UpstashBridge;
  /** Round trip between the read region and the primary region. */
  farRoundTripMs: number;
  /** Longest wait for a request's sync token (`near-region-bridge.ts`; default 5 s). */
  syncTimeoutMs?: number;
  /**
   * Extra delay on the replication link, each way, on top of R/2 (default 0): a replica slower than
   * the answers (which also take R/2 back), so reads without a token visibly miss recent writes.
   */
  replicationLagMs?: number;
  /** What the log calls the replica (`redis replica`, `redis database 2 replica`). */
  name?: string;
  log?: (line: string) => void;
  onSpawn?: (pid: number) => void;
}

/** Longest wait for a new replica's first full sync (it crosses the delaying link). */
const FIRST_SYNC_TIMEOUT_MS = 15_000;

export async function startReadRegion({ primaryRedisUrl, primaryBridge, farRoundTripMs, syncTimeoutMs, replicationLagMs = 0, name = "redis replica", log = () => {}, onSpawn }: ReadRegionOptions): Promise<ReadRegion> {
  if (!(farRoundTripMs >= 0)) throw new Error(`farRoundTripMs must be ≥ 0, not ${farRoundTripMs}`);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => {});
    stops.length = 0;
  };
  try {
    const primary = new URL(primaryRedisUrl);
    await syncAtOnce(primaryRedisUrl);
    const link = await startDelayingProxy({ targetHost: primary.hostname, targetPort: Number(primary.port || 6379), delayMs: farRoundTripMs / 2 + replicationLagMs });
    stops.push(() => link.close());
    // No data of its own (dev too): a replica's data is the primary's, synced again at each start.
    const replica = await startRedis({ log, name, onSpawn, replicaOf: `${link.host}:${link.port}` });
    stops.push(() => replica.stop());
    await waitForFirstSync(replica.url, FIRST_SYNC_TIMEOUT_MS + farRoundTripMs * 10);
    const replicaBridge = await startUpstashBridge({ redisUrl: replica.url, token: primaryBridge.token });
    stops.push(() => replicaBridge.close());
    const near = await startNearRegionBridge({
      replicaBridgeUrl: replicaBridge.url,
      primaryBridgeUrl: primaryBridge.url,
      replicaRedisUrl: replica.url,
      primaryRedisUrl,
      farRoundTripMs,
      syncTimeoutMs,
      token: primaryBridge.token,
    });
    stops.push(() => near.close());
    log(`stack: read region ${farRoundTripMs} ms from ${primaryBridge.url}: near bridge ${near.url}, replica ${replica.url}`);
    return { restUrl: near.url, near, replicaUrl: replica.url, replicaBridge, link, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A primary sends a new replica its data without waiting: Redis 7 holds a diskless full sync back
 * `repl-diskless-sync-delay` (5 s) for more replicas to share it, and each read region has one.
 * A primary that refuses CONFIG (one the stack does not own) keeps its own setting.
 */
async function syncAtOnce(primaryUrl: string): Promise<void> {
  const client = new RedisConnection(primaryUrl, { maxRetriesPerRequest: 1 });
  client.on("error", () => {});
  try {
    await client.config("SET", "repl-diskless-sync-delay", "0").catch(() => {});
  } finally {
    client.disconnect();
  }
}

/** Resolves once the replica has loaded the primary's data and follows its stream. */
async function waitForFirstSync(replicaUrl: string, timeoutMs: number): Promise<void> {
  const client = new RedisConnection(replicaUrl, { maxRetriesPerRequest: 1 });
  client.on("error", () => {});
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const info = await client.info("replication");
      if (/^master_link_status:up/m.test(info) && !/^master_sync_in_progress:1/m.test(info)) return;
      if (Date.now() > deadline) throw new Error(`replica ${replicaUrl} did not sync with its primary within ${timeoutMs} ms`);
      await sleep(20);
    }
  } finally {
    client.disconnect();
  }
}
