/**
 * The local stack: real Redis and Postgres behind the two bridges that speak
 * what the Worker speaks in production (Upstash REST, Neon WebSocket).
 * One composition for `npm run dev`, the tests and the benchmarks.
 */
import { randomBytes } from "node:crypto";
import { startRedis } from "./redis.js";
import { join } from "node:path";
import { DEV_DATA_DIR, startPostgres, type StackMode } from "./postgres.js";
import { migrate } from "./migrate.js";
import { startUpstashBridge, type UpstashBridge } from "./upstash-bridge.js";
import { startNeonWsProxy, type NeonWsProxy } from "./neon-ws-proxy.js";
import { startControlServer } from "./control-server.js";

export type { StackMode } from "./postgres.js";

/** Dev token is fixed so a running `wrangler dev` and curl commands keep working across restarts. */
export const DEV_REST_TOKEN = "dev-upstash-token";

export interface Stack {
  databaseUrl: string;
  redisUrl: string;
  /** Upstash REST URL of the shared bridge (`UPSTASH_REDIS_REST_URL`). */
  restUrl: string;
  restToken: string;
  /** `127.0.0.1:PORT/v1` for `neonConfig.wsProxy` (`NEON_WS_PROXY`). */
  wsProxy: string;
  bridge: UpstashBridge;
  proxy: NeonWsProxy;
  /** Test mode only: URL of the control server (`STACK_CONTROL_URL`). */
  controlUrl?: string;
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
  /** Dev mode: told each spawned redis-server's pid (for the leftover record). */
  onRedisSpawn?: (pid: number) => void;
}

export async function startStack({
  mode,
  log = () => {},
  migrate: runMigrations = true,
  dataDir = DEV_DATA_DIR,
  onRedisSpawn,
}: StackOptions): Promise<Stack> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) {
      await step().catch((error: unknown) => log(`stack: stop step failed: ${String(error)}`));
    }
    stops.length = 0;
  };

  try {
    // Started side by side (Postgres takes seconds); whichever succeeded is stopped if the other failed.
    const [redisStarted, postgresStarted] = await Promise.allSettled([
      startRedis({ log, onSpawn: onRedisSpawn, dataDir: mode === "dev" ? join(dataDir, "redis") : undefined }),
      startPostgres({ mode, log, dataDir }),
    ]);
    if (redisStarted.status === "fulfilled") stops.push(() => redisStarted.value.stop());
    if (postgresStarted.status === "fulfilled") stops.push(() => postgresStarted.value.stop());
    if (redisStarted.status === "rejected") throw redisStarted.reason;
    if (postgresStarted.status === "rejected") throw postgresStarted.reason;
    const redis = redisStarted.value;
    const postgres = postgresStarted.value;
    if (runMigrations) await migrate(postgres.url, log);

    const token = mode === "dev" ? DEV_REST_TOKEN : randomBytes(16).toString("hex");
    const bridge = await startUpstashBridge({ redisUrl: redis.url, token });
    stops.push(() => bridge.close());
    const proxy = await startNeonWsProxy();
    stops.push(() => proxy.close());
    log(`stack: upstash bridge ${bridge.url}, neon ws proxy ${proxy.wsProxy}`);

    let controlUrl: string | undefined;
    if (mode === "test") {
      const chaosBridges = new Set<UpstashBridge>();
      const control = await startControlServer({
        bridge,
        createChaosPair: async () => {
          const chaosBridge = await startUpstashBridge({ redisUrl: redis.url, token: randomBytes(16).toString("hex") });
          chaosBridges.add(chaosBridge);
          const chaosProxy = await startNeonWsProxy();
          const close = chaosBridge.close;
          chaosBridge.close = () => (chaosBridges.delete(chaosBridge), close());
          return { bridge: chaosBridge, proxy: chaosProxy };
        },
        // Answer only once every bridge has reconnected, so callers can assert recovery at once.
        restartRedis: redis.owned
          ? async () => {
              await redis.restart();
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
      restUrl: bridge.url,
      restToken: bridge.token,
      wsProxy: proxy.wsProxy,
      bridge,
      proxy,
      controlUrl,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
