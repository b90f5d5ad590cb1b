/**
 * The Redis behind the Upstash bridge: `REDIS_URL` when set (CI service,
 * shared server), otherwise a private `redis-server` on a free port with no
 * persistence, so runs never share or leave state.
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
  /** Really stops and starts the spawned redis-server on the same port (empty data). */
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
}

export async function startRedis({ log = () => {}, ignoreEnv = false }: StartRedisOptions = {}): Promise<RedisHandle> {
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
  const dir = mkdtempSync(join(tmpdir(), "ce-redis-"));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  async function launch(): Promise<void> {
    mkdirSync(dir, { recursive: true }); // restart() after stop() must work too
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: "ignore" },
    );
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
  log(`redis: started redis-server on ${url}`);
  return {
    url,
    owned: true,
    async restart() {
      await kill();
      await launch();
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
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
