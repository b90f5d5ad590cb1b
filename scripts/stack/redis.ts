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
import { freePort } from "./free-port.js";
import { startOnPickedPort, stopChild, superviseServer, waitUntilServing } from "./processes.js";

export interface RedisHandle {
  url: string;
  /** True when this process spawned the server (so it may restart it). */
  owned: boolean;
  /** Really stops and starts the spawned redis-server on the same port (empty data unless `dataDir`). */
  restart(): Promise<void>;
  /** Stops it (also when it died on its own); removes its data unless it keeps a `dataDir`. */
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
  /**
   * What the server is called in the log (default `redis`). A spawned redis-server that exits
   * without being stopped (a crash, the OOM killer, `kill -9`) is reported at once under this name,
   * with its port and signal, and started again on the same port and data (its append-only file
   * with `dataDir`), so whatever talks to `url` reconnects to it.
   */
  name?: string;
  /**
   * `host:port` of a primary: the server is its replica (`--replicaof`, read-only), as a read
   * region's copy of a database is (`far-region.ts`). Always a private server (never REDIS_URL).
   */
  replicaOf?: string;
  /** How each first start's port is picked (a test hands out a taken one); a free one by default. */
  pickPort?: () => Promise<number>;
}

export async function startRedis({ log = () => {}, ignoreEnv = false, dataDir, onSpawn, name = "redis", replicaOf, pickPort = freePort }: StartRedisOptions = {}): Promise<RedisHandle> {
  const external = ignoreEnv || replicaOf ? undefined : process.env.REDIS_URL;
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

  return startOnPickedPort(name, log, pickPort, (port) => startOn(port, { log, dataDir, onSpawn, name, replicaOf }));
}

async function startOn(port: number, { log, dataDir, onSpawn, name, replicaOf }: Required<Pick<StartRedisOptions, "log" | "name">> & StartRedisOptions): Promise<RedisHandle> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "ce-redis-"));
  // appendfsync everysec: a crash loses at most the last second; a clean stop (SIGTERM) loses nothing.
  const persistence = dataDir ? ["--appendonly", "yes", "--appendfsync", "everysec"] : ["--appendonly", "no"];
  const replication = replicaOf ? ["--replicaof", ...replicaOf.split(":")] : [];
  const url = `redis://127.0.0.1:${port}`;

  async function launch(): Promise<ChildProcess> {
    mkdirSync(dir, { recursive: true }); // restart() after stop() must work too
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", ...persistence, "--dir", dir, ...replication],
      { stdio: "ignore" },
    );
    if (child.pid !== undefined) onSpawn?.(child.pid);
    try {
      // Its own answer, not another server's on the same port (a bind that failed exits at once,
      // but another redis-server there would answer the ping first).
      await waitUntilServing(child, `redis-server on ${url}`, async () => (await serverPid(url)) === child.pid);
    } catch (error) {
      await stopChild(child);
      throw error;
    }
    return child;
  }

  const what = `${name} (port ${port})`;
  const from = dataDir ? "from its append-only file" : "empty (it keeps no data)";
  const server = await superviseServer({
    launch,
    onExit: (how) => log(`${what} exited ${how}; restarting it ${from}`),
    onRestarted: () => log(`${what} is back, restarted ${from}`),
    onRestartFailed: (error) => log(`${what} could not be restarted (${String(error)}); it stays down until the stack is started again`),
  }).catch((error: unknown) => {
    if (!dataDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  log(`redis: started redis-server on ${url}${dataDir ? ` (append-only file in ${dataDir})` : ""}`);
  return {
    url,
    owned: true,
    restart: () => server.restart(),
    async stop() {
      await server.stop();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The pid of the redis-server answering at `url`. */
async function serverPid(url: string): Promise<number | undefined> {
  const client = new RedisConnection(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => {});
  try {
    await client.connect();
    const pid = /process_id:(\d+)/.exec(await client.info("server"))?.[1];
    return pid === undefined ? undefined : Number(pid);
  } finally {
    client.disconnect();
  }
}
