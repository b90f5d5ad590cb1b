/**
 * The Redis behind the Upstash bridge: `REDIS_URL` when set (CI service,
 * shared server), otherwise a private `redis-server` on a free port.
 *
 * Without `dataDir` it keeps nothing (tests, benchmarks: runs never share or leave state). With
 * `dataDir` (dev) it keeps an append-only file there, as durable as Upstash is in production:
 * counter increments wait in Redis for the next flush, and a restart must not lose them.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis as RedisConnection } from "ioredis";
import { freePort, waitFor } from "./free-port.js";

export interface RedisHandle {
  url: string;
  /** True when this process spawned the server (so it may restart it). */
  owned: boolean;
  /** Really stops and starts the spawned redis-server on the same port (empty data unless `dataDir`). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export const hasRedisServerBinary = () => !spawnSync("redis-server", ["--version"], { stdio: "ignore" }).error;

const INSTALL_HINT =
  "redis-server not found on PATH: install it (apt-get install redis-server / brew install redis) or set REDIS_URL";

export interface StartRedisOptions {
  log?: (line: string) => void;
  /** Spawn a private redis-server even when REDIS_URL is set (tests that restart it). */
  ignoreEnv?: boolean;
  /** Keep the data in an append-only file in this directory, across restarts (created if missing). */
  dataDir?: string;
  /** Called with the redis-server's pid after each (re)start, e.g. to record it for a cleanup. */
  onSpawn?: (pid: number) => void;
}

export async function startRedis({ log = () => {}, ignoreEnv = false, dataDir, onSpawn }: StartRedisOptions = {}): Promise<RedisHandle> {
  const external = ignoreEnv ? undefined : process.env.REDIS_URL;
  if (external) {
    log(`redis: using REDIS_URL ${external}`);
    return {
      url: external,
      owned: false,
      restart: async () => {
        throw new Error("redis is external (REDIS_URL); the stack cannot restart it");
      },
      stop: async () => {},
    };
  }

  if (!hasRedisServerBinary()) throw new Error(INSTALL_HINT);

  const port = await freePort();
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "ce-redis-"));
  // appendfsync everysec: a crash loses at most the last second; a clean stop (SIGTERM) loses nothing.
  const persistence = dataDir ? ["--appendonly", "yes", "--appendfsync", "everysec"] : ["--appendonly", "no"];
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  async function launch(): Promise<void> {
    mkdirSync(dir, { recursive: true }); // restart() after stop() must work too
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", ...persistence, "--dir", dir],
      { stdio: "ignore" },
    );
    if (child.pid !== undefined) onSpawn?.(child.pid);
    await waitFor(`redis-server on ${url}`, () => ping(url));
  }

  async function kill(): Promise<void> {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve());
      running.kill("SIGTERM");
    });
  }

  await launch();
  log(`redis: started redis-server on ${url}${dataDir ? ` (append-only file in ${dataDir})` : ""}`);
  return {
    url,
    owned: true,
    async restart() {
      await kill();
      await launch();
    },
    async stop() {
      await kill();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function ping(url: string): Promise<boolean> {
  const client = new RedisConnection(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } finally {
    client.disconnect();
  }
}
