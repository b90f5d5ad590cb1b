/**
 * The local stack: real Redis and Postgres behind the two bridges that speak
 * what the Worker speaks in production (Upstash REST, Neon's HTTP query endpoint and WebSocket).
 * One composition for `npm run dev`, the tests and the benchmarks.
 */
import { randomBytes } from "node:crypto";
import { startRedis, type RedisHandle } from "./redis.js";
import { join } from "node:path";
import { DEV_DATA_DIR, startPostgres, type PostgresHandle, type StackMode } from "./postgres.js";
import { migrate } from "./migrate.js";
import { startUpstashBridge, type UpstashBridge } from "./upstash-bridge.js";
import { ISOLATE_UPKEEP_KEYS } from "./upkeep-keys.js";
import { startNeonWsProxy, type NeonWsProxy } from "./neon-ws-proxy.js";
import { startNeonHttpProxy, type NeonHttpProxy } from "./neon-http-proxy.js";
import { startControlServer } from "./control-server.js";
import { startReadRegion, type ReadRegion } from "./far-region.js";
import { startDelayingProxy } from "./delaying-proxy.js";
import { startPushServices, type PushServices } from "./push/index.js";
import type { DevPushVars } from "../dev-push-keys.js";
import { Redis as RedisConnection } from "ioredis";
import {
  assertMarker,
  CHECK_TOPOLOGY_MARKER,
  databasesInUseBy,
  parseReshardState,
  RESHARD_STATE_KEY,
  TOPOLOGY_MARKER_KEY,
  topologyMarker,
} from "../../src/lib/redis-topology.js";
import { counterKeys } from "../../src/counters/keys.js";

export type { StackMode } from "./postgres.js";

/** Dev token is fixed so a running `wrangler dev` and curl commands keep working across restarts. */
export const DEV_REST_TOKEN = "dev-upstash-token";

/** What the log calls Redis database `index` of `n` (when it exits and is restarted, say). */
const redisName = (n: number, index: number) => (n === 1 ? "redis" : `redis database ${index}`);

/** One Redis database of the stack: a redis-server behind its own Upstash REST bridge. */
export interface StackRedisDatabase {
  /** The primary's redis-server. */
  redisUrl: string;
  /** What the Worker calls: the primary's bridge, or with `farRegionMs` the read region's near bridge. */
  restUrl: string;
  restToken: string;
  /** The primary's bridge (its stats count what reached the primary region). */
  bridge: UpstashBridge;
  /** With `farRegionMs`: the database's read region near the Worker (replica, near bridge, link). */
  readRegion?: ReadRegion;
}

export interface Stack {
  databaseUrl: string;
  /** Database 0's Redis (the only one by default). */
  redisUrl: string;
  /** `UPSTASH_REDIS_REST_URL` of database 0 (its read region's near bridge with `farRegionMs`). */
  restUrl: string;
  restToken: string;
  /** `127.0.0.1:PORT/v1` for `neonConfig.wsProxy` (`NEON_WS_PROXY`); R/2 each way with `farRegionMs`. */
  wsProxy: string;
  /**
   * `http://127.0.0.1:PORT/sql`, the stand-in for Neon's HTTP query endpoint (`NEON_HTTP_PROXY`);
   * R/2 each way with `farRegionMs`, as the WebSocket proxy.
   */
  httpProxy: string;
  /** The round trip the Worker is from the primary region, when the stack models one (`farRegionMs`). */
  farRegionMs?: number;
  bridge: UpstashBridge;
  proxy: NeonWsProxy;
  /** The HTTP stand-in (its stats count what the Worker sent over Neon's HTTP path). */
  httpSql: NeonHttpProxy;
  /** Every Redis database, database 0 first (the one above); more than one with `redisDatabases`. */
  databases: StackRedisDatabase[];
  /**
   * The Worker's bindings for its Redis: `UPSTASH_REDIS_REST_URL`/`_TOKEN` (database 0), and with
   * several databases `UPSTASH_REDIS_DATABASES` (JSON `[{url, token}, …]`).
   */
  redisBindings: Record<string, string>;
  /** Test mode only: URL of the control server (`STACK_CONTROL_URL`). */
  controlUrl?: string;
  /**
   * The local push services (web-push-testing, the FCM and APNs stand-ins) and their control and
   * recording API; `push.vars` are the Worker's push settings pointing at them.
   */
  push: PushServices;
  /** Stops everything this call started, in reverse order, and nothing else. */
  stop(): Promise<void>;
}

export interface StackOptions {
  mode: StackMode;
  log?: (line: string) => void;
  /** Apply `drizzle/` migrations once Postgres is up (default true). */
  migrate?: boolean;
  /** Dev mode: where Postgres (`postgres/`) and Redis (`redis/`, append-only file) keep their data. */
  dataDir?: string;
  /** Told each spawned redis-server's and postmaster's pid, restarts included (dev: the leftover record). */
  onSpawn?: (pid: number, what: "redis-server" | "postgres") => void;
  /** Redis databases to start, each a redis-server behind its own bridge (default 1). */
  redisDatabases?: number;
  /** Each database's command budget per second (the bridge's `maxCommandsPerSecond`); none by default. */
  maxCommandsPerSecond?: number;
  /**
   * Runs the Worker as if R ms (round trip) from the primary region (`far-region.ts`): each
   * database gets a replica behind a link delayed R/2 each way and a near-region bridge the Worker
   * calls (reads answered there, the rest forwarded with R ms added, `upstash-sync-token`
   * honoured), and the Neon proxy sits behind the same R ms. Off (undefined): nothing of it runs.
   */
  farRegionMs?: number;
  /**
   * With `farRegionMs`: extra delay on each replica's replication link, each way, on top of R/2
   * (`far-region.ts`' `replicationLagMs`; default 0). A region that applies a write later than the
   * write's answer arrives, so a read without the token can miss it (`npm run bench:geo`).
   */
  farReplicationLagMs?: number;
  /** The push credentials the local push services check (dev: the dev keys); generated per run when absent. */
  pushCredentials?: DevPushVars;
}

export async function startStack({
  mode,
  log = () => {},
  migrate: runMigrations = true,
  dataDir = DEV_DATA_DIR,
  onSpawn,
  redisDatabases = 1,
  maxCommandsPerSecond,
  farRegionMs,
  farReplicationLagMs,
  pushCredentials,
}: StackOptions): Promise<Stack> {
  if (!Number.isInteger(redisDatabases) || redisDatabases < 1 || redisDatabases > 16) throw new Error(`redisDatabases must be 1–16, not ${redisDatabases}`);
  if (farRegionMs !== undefined && !(Number.isFinite(farRegionMs) && farRegionMs >= 0)) throw new Error(`farRegionMs must be a number ≥ 0, not ${farRegionMs}`);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) {
      await step().catch((error: unknown) => log(`stack: stop step failed: ${String(error)}`));
    }
    stops.length = 0;
  };

  try {
    // Three chains side by side, none waiting for another: Postgres and its migrations (seconds),
    // the Redis databases with their bridges (and read regions), the push services. Each chain
    // records its stop steps as it goes; if one fails, the others are let finish and everything
    // started is stopped.
    const token = mode === "dev" ? DEV_REST_TOKEN : randomBytes(16).toString("hex");
    const [postgresStarted, redisStarted, pushStarted] = await Promise.allSettled([
      (async () => {
        const postgres = await startPostgres({ mode, log, dataDir, onSpawn: (pid) => onSpawn?.(pid, "postgres") });
        stops.push(() => postgres.stop());
        if (runMigrations) await migrate(postgres.url, log);
        return postgres;
      })(),
      startRedisDatabases({ mode, log, dataDir, onSpawn, redisDatabases, maxCommandsPerSecond, farRegionMs, farReplicationLagMs, token, stops }),
      (async () => {
        // Dev: every reload of the Worker signs a new APNs provider token; Apple's 20-minute rule is
        // counted there but not enforced (docs/push-delivery.md, "The local stack").
        const push = await startPushServices({ credentials: pushCredentials, enforceApnsTokenUpdates: mode !== "dev", log });
        stops.push(() => push.stop());
        return push;
      })(),
    ]);
    const failed = [postgresStarted, redisStarted, pushStarted].find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    const postgres = (postgresStarted as PromiseFulfilledResult<PostgresHandle>).value;
    const { redis, databases } = (redisStarted as PromiseFulfilledResult<RedisDatabases>).value;
    const push = (pushStarted as PromiseFulfilledResult<PushServices>).value;
    const bridge = databases[0]!.bridge;

    const restUrl = databases[0]!.restUrl;
    const redisBindings: Record<string, string> = { UPSTASH_REDIS_REST_URL: restUrl, UPSTASH_REDIS_REST_TOKEN: bridge.token };
    if (redisDatabases > 1) redisBindings.UPSTASH_REDIS_DATABASES = JSON.stringify(databases.map((d) => ({ url: d.restUrl, token: d.restToken })));
    const [proxy, httpSql] = await Promise.all([startNeonWsProxy(), startNeonHttpProxy({ databaseUrl: postgres.url })]);
    stops.push(() => proxy.close(), () => httpSql.close());
    let wsProxy = proxy.wsProxy;
    let httpProxy = httpSql.url;
    if (farRegionMs !== undefined) {
      // Neon's proxies are next to Postgres, in the primary region: the Worker reaches them R ms away.
      const [farLink, farHttpLink] = await Promise.all([
        startDelayingProxy({ targetHost: "127.0.0.1", targetPort: proxy.port, delayMs: farRegionMs / 2 }),
        startDelayingProxy({ targetHost: "127.0.0.1", targetPort: httpSql.port, delayMs: farRegionMs / 2 }),
      ]);
      stops.push(() => farLink.close(), () => farHttpLink.close());
      wsProxy = `127.0.0.1:${farLink.port}/v1`;
      httpProxy = `http://127.0.0.1:${farHttpLink.port}/sql`;
      log(`stack: the Worker is ${farRegionMs} ms (round trip) from the primary region: Redis read regions ${databases.map((d) => d.restUrl).join(", ")}, Neon ws proxy ${wsProxy}, Neon HTTP endpoint ${httpProxy}`);
    }
    log(`stack: upstash bridge ${bridge.url}, neon ws proxy ${proxy.wsProxy}, neon HTTP endpoint ${httpSql.url}`);

    let controlUrl: string | undefined;
    if (mode === "test") {
      const chaosBridges = new Set<UpstashBridge>();
      const control = await startControlServer({
        bridge,
        databases: databases.map((d) => d.bridge),
        createChaosPair: async (database = 0, chaosBudget?: number) => {
          const chaosBridge = await startUpstashBridge({
            redisUrl: databases[database]!.redisUrl,
            token: randomBytes(16).toString("hex"),
            maxCommandsPerSecond: chaosBudget,
            upkeepKeys: ISOLATE_UPKEEP_KEYS,
          });
          chaosBridges.add(chaosBridge);
          const [chaosProxy, chaosHttp] = await Promise.all([startNeonWsProxy(), startNeonHttpProxy({ databaseUrl: postgres.url })]);
          const close = chaosBridge.close;
          chaosBridge.close = () => (chaosBridges.delete(chaosBridge), close());
          return { bridge: chaosBridge, proxy: chaosProxy, httpSql: chaosHttp };
        },
        // Answer only once every bridge has reconnected, so callers can assert recovery at once.
        restartRedis: redis.owned
          ? async () => {
              await redis.restart();
              // An empty database 0 again: its marker back before anyone writes (N > 1 tests).
              if (redisDatabases > 1) await prepareDatabases(databases.map((d) => d.redisUrl), mode);
              await Promise.all([bridge, ...chaosBridges].map((b) => b.waitUntilConnected()));
            }
          : undefined,
      });
      stops.push(() => control.close());
      controlUrl = control.url;
      log(`stack: control server ${controlUrl}`);
    }

    return {
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      restUrl,
      restToken: bridge.token,
      wsProxy,
      httpProxy,
      farRegionMs,
      bridge,
      proxy,
      httpSql,
      databases,
      redisBindings,
      controlUrl,
      push,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Database 0's server (the one `restartRedis` restarts) and every database, database 0 first. */
type RedisDatabases = { redis: RedisHandle; databases: StackRedisDatabase[] };

/**
 * The stack's Redis databases, side by side: each a redis-server behind its own Upstash REST
 * bridge (database 0 the only one that may be REDIS_URL's shared server), their topology markers
 * at N > 1, and with `farRegionMs` each one's read region. Every step's stop goes onto `stops` as
 * it is started, so a failure anywhere leaves nothing running once the caller stops them.
 */
async function startRedisDatabases(options: {
  mode: StackMode;
  log: (line: string) => void;
  dataDir: string;
  onSpawn: StackOptions["onSpawn"];
  redisDatabases: number;
  maxCommandsPerSecond: number | undefined;
  farRegionMs: number | undefined;
  farReplicationLagMs: number | undefined;
  token: string;
  stops: (() => Promise<void>)[];
}): Promise<RedisDatabases> {
  const { mode, log, dataDir, onSpawn, redisDatabases, maxCommandsPerSecond, farRegionMs, farReplicationLagMs, token, stops } = options;
  const servers: RedisHandle[] = [];
  const started = await Promise.allSettled(
    Array.from({ length: redisDatabases }, async (_, i): Promise<StackRedisDatabase> => {
      const server = await startRedis({
        log,
        // Database 0 may be REDIS_URL's server; every other one is always a private server of its own.
        ignoreEnv: i > 0,
        name: redisName(redisDatabases, i),
        onSpawn: (pid) => onSpawn?.(pid, "redis-server"),
        dataDir: mode === "dev" ? redisDataDir(dataDir, redisDatabases, i) : undefined,
      });
      stops.push(() => server.stop());
      servers[i] = server;
      const databaseToken = i === 0 ? token : mode === "dev" ? `${DEV_REST_TOKEN}-${i}` : randomBytes(16).toString("hex");
      // A budget counts what the database runs (scripts' commands too, as Upstash counts them) when the
      // stack started its redis-server itself; a server others share is metered per request instead.
      const bridge = await startUpstashBridge({
        redisUrl: server.url,
        token: databaseToken,
        maxCommandsPerSecond,
        budgetMeter: server.owned ? "server" : "request",
        upkeepKeys: mode === "test" ? ISOLATE_UPKEEP_KEYS : [],
      });
      stops.push(() => bridge.close());
      return { redisUrl: server.url, restUrl: bridge.url, restToken: bridge.token, bridge };
    }),
  );
  const failedStart = started.find((outcome) => outcome.status === "rejected");
  if (failedStart) throw failedStart.reason;
  const databases = started.map((outcome) => (outcome as PromiseFulfilledResult<StackRedisDatabase>).value);
  if (redisDatabases > 1) {
    await prepareDatabases(databases.map((d) => d.redisUrl), mode);
    log(`stack: ${redisDatabases} Redis databases: ${databases.map((d) => d.restUrl).join(", ")}`);
  }
  if (farRegionMs !== undefined) {
    // Side by side: each waits for its replica's first sync across the delayed link.
    const regions = await Promise.allSettled(
      databases.map((database, index) =>
        startReadRegion({
          primaryRedisUrl: database.redisUrl,
          primaryBridge: database.bridge,
          farRoundTripMs: farRegionMs,
          replicationLagMs: farReplicationLagMs,
          name: `${redisName(redisDatabases, index)} replica`,
          log,
          onSpawn: (pid) => onSpawn?.(pid, "redis-server"),
        }),
      ),
    );
    regions.forEach((outcome, index) => {
      if (outcome.status === "rejected") return;
      stops.push(() => outcome.value.stop());
      Object.assign(databases[index]!, { restUrl: outcome.value.restUrl, readRegion: outcome.value });
    });
    const failed = regions.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
  }
  return { redis: servers[0]!, databases };
}

/** Dev data of Redis database `index`: `redis/` at N = 1 (as always), `redis-of-N/<index>/` otherwise. */
function redisDataDir(dataDir: string, n: number, index: number): string {
  return n === 1 ? join(dataDir, "redis") : join(dataDir, `redis-of-${n}`, String(index));
}

/**
 * Before any Worker runs against several databases, checking each database as the Worker does
 * (`assertMarker`, with database 0's reshard state, so that data a reshard planned or finished
 * between N and M starts with a setting of either size):
 *  - writes each EMPTY database's topology marker (what the Worker itself would adopt), so that
 *    database 0 — which the tests share with everything written at N = 1 — is a database of this
 *    setting from the start; a database a done shrink left is not touched (it stays empty, and
 *    the Worker sends it nothing);
 *  - dev mode: forgets each database's batch sequence, so its next cut continues from Postgres'
 *    watermark: a dev stack switched between N = 1 and N > 1 keeps one Postgres, and a Redis
 *    whose sequence is behind it would number batches Postgres already holds (skipped as applied).
 */
async function prepareDatabases(redisUrls: string[], mode: StackMode): Promise<void> {
  const n = redisUrls.length;
  const clients = redisUrls.map((url) => new RedisConnection(url, { maxRetriesPerRequest: 1 }));
  try {
    const state = parseReshardState(await clients[0]!.get(RESHARD_STATE_KEY));
    for (const [index, client] of clients.slice(0, databasesInUseBy(state, n)).entries()) {
      const answer = await client.eval(CHECK_TOPOLOGY_MARKER, 1, TOPOLOGY_MARKER_KEY, topologyMarker(index, n));
      assertMarker(answer, index, n, state);
      if (mode === "dev") await client.del(counterKeys.batchSeq());
    }
  } finally {
    for (const client of clients) client.disconnect();
  }
}
