/**
 * `npm run dev`'s stack when one of its servers dies (a crash, the OOM killer; here `kill -9`):
 * the stack says which one and how at once, starts it again on the same port and data so the
 * bridges keep working, and still stops when asked, with nothing left running.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { neonConfig, Pool } from "@neondatabase/serverless";
import { Redis as Upstash } from "@upstash/redis";
import { Redis as RedisConnection } from "ioredis";
import ws from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../../scripts/stack/index";
import { hasRedisServerBinary } from "../../scripts/stack/redis";
import { eventually } from "../support/eventually";

/** Long enough for a loaded machine to start a server again; the polls end as soon as it has. */
const WAIT_MS = 60_000;

let dir: string;
let stack: Stack | undefined;
const lines: string[] = [];
const spawned: { pid: number; what: string }[] = [];

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function serverPid(redisUrl: string): Promise<number> {
  const redis = new RedisConnection(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    return Number((await redis.info("server")).match(/process_id:(\d+)/)![1]);
  } finally {
    redis.disconnect();
  }
}

describe.skipIf(!hasRedisServerBinary())("a dev stack whose servers die", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ce-supervision-"));
    chmodSync(dir, 0o755); // as root, Postgres runs as the `postgres` user, which must get through
    stack = await startStack({ mode: "dev", dataDir: dir, redisDatabases: 2, log: (line) => lines.push(line), onSpawn: (pid, what) => spawned.push({ pid, what }) });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("says which redis database exited on which signal, starts it again from its append-only file, and the bridge serves its data", async () => {
    const database = stack!.databases[1]!;
    const upstash = new Upstash({ url: database.restUrl, token: database.restToken, enableAutoPipelining: false });
    const port = new URL(database.redisUrl).port;
    // fsync on every write for this one: a SIGKILL right after it must find it in the file
    // (every second, as the stack runs it, could lose it).
    const direct = new RedisConnection(database.redisUrl, { maxRetriesPerRequest: 1 });
    await direct.config("SET", "appendfsync", "always");
    direct.disconnect();
    await upstash.set("supervision:kept", "before the crash");
    const killed = await serverPid(database.redisUrl);

    process.kill(killed, "SIGKILL");
    const back = `redis database 1 (port ${port}) is back, restarted from its append-only file`;
    await eventually(() => lines.includes(back), Boolean, WAIT_MS);

    expect(lines).toContain(`redis database 1 (port ${port}) exited on SIGKILL; restarting it from its append-only file`);
    expect(lines.indexOf(back)).toBeGreaterThan(lines.indexOf(`redis database 1 (port ${port}) exited on SIGKILL; restarting it from its append-only file`));
    await database.bridge.waitUntilConnected(WAIT_MS);
    expect(await upstash.get("supervision:kept")).toBe("before the crash");
    const restarted = await serverPid(database.redisUrl);
    expect(restarted).not.toBe(killed);
    expect(spawned).toContainEqual({ pid: restarted, what: "redis-server" }); // recorded, for the next run's cleanup
  }, 120_000);

  it.skipIf(process.env.DATABASE_URL)("says the embedded Postgres exited, starts it again on its data, and the Neon proxy reaches it", async () => {
    neonConfig.webSocketConstructor = ws;
    neonConfig.wsProxy = (host, port) => `${stack!.wsProxy}?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
    const query = async (sql: string) => {
      const pool = new Pool({ connectionString: stack!.databaseUrl, max: 1 });
      pool.on("error", () => {}); // a connection still closing when Postgres is killed says so here
      try {
        return (await pool.query(sql)).rows;
      } finally {
        await pool.end();
      }
    };
    await query("CREATE TABLE supervision_kept (note text); INSERT INTO supervision_kept VALUES ('before the crash')");
    const port = new URL(stack!.databaseUrl).port;
    const postmaster = spawned.findLast((s) => s.what === "postgres")!.pid;

    process.kill(postmaster, "SIGKILL");
    await eventually(() => lines.includes(`postgres (port ${port}) is back`), Boolean, WAIT_MS);

    expect(lines).toContain(`postgres (port ${port}) exited on SIGKILL; restarting it on its data (${join(dir, "postgres")})`);
    expect(await query("SELECT note FROM supervision_kept")).toEqual([{ note: "before the crash" }]);
    expect(spawned.findLast((s) => s.what === "postgres")!.pid).not.toBe(postmaster);
  }, 120_000);

  it("stops, with nothing left running, when a server has just died", async () => {
    process.kill(await serverPid(stack!.databases[1]!.redisUrl), "SIGKILL"); // database 0 may be REDIS_URL's
    const stopping = stack!;
    stack = undefined;

    await stopping.stop(); // a hang here is the failure (the test's timeout)

    expect(spawned.filter((s) => alive(s.pid))).toEqual([]);
  }, 120_000);
});
