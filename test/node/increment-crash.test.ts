/**
 * A Redis database SIGKILLed under concurrent increments, again and again, on `npm run dev`'s
 * stack (three databases, each an append-only file, the supervisor starting a dead server again
 * at once): every increment the counters answered is counted once — none lost, none twice — in
 * Redis and, after the flush, in Postgres. A server that dies after it ran (and logged) a script
 * but before its answer left makes the call fail as if it never ran; the call is sent again with
 * its own id and the restarted server, which has the id from its file, does not apply it twice
 * (src/counters/counters.ts, `runKeyed`). The increments run the Worker's own code and client
 * (`redisAt`) from Node, against the stack's bridges.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { neonConfig } from "@neondatabase/serverless";
import { Redis as RedisConnection } from "ioredis";
import ws from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../../scripts/stack/index";
import { hasRedisServerBinary } from "../../scripts/stack/redis";
import { incrementCounters, readCounters } from "../../src/counters/counters";
import { flushAll } from "../../src/counters/flush";
import { fieldsOf } from "../../src/counters/registry";
import { queryRows } from "../../src/counters/store";
import { httpDatabase } from "../../src/lib/db";
import { redisAt } from "../../src/lib/redis";
import { databaseOf } from "../../src/lib/redis-topology";
import { eventually } from "../support/eventually";

const DATABASES = 3;
const LOOPS = 8;
const KILLS = 8;
/** Long enough for a loaded machine to start a server again; the polls end as soon as it has. */
const WAIT_MS = 60_000;

let dir: string;
let stack: Stack | undefined;
let closeDb: (() => Promise<void>) | undefined;
const lines: string[] = [];

async function withServer<T>(redisUrl: string, work: (redis: RedisConnection) => Promise<T>): Promise<T> {
  const redis = new RedisConnection(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

/**
 * fsync before every answer: the server then spends longer between logging a script and answering
 * it, so more kills land there (the stack's `everysec` has the same window, narrower). Set again
 * after each restart (the setting is not kept).
 */
const fsyncAlways = (redisUrl: string) => withServer(redisUrl, (r) => r.config("SET", "appendfsync", "always"));
const serverPid = (redisUrl: string) => withServer(redisUrl, async (r) => Number((await r.info("server")).match(/process_id:(\d+)/)![1]));

describe.skipIf(!hasRedisServerBinary())("increments while a Redis database is killed again and again", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ce-increment-crash-"));
    chmodSync(dir, 0o755); // as root, Postgres runs as the `postgres` user, which must get through
    stack = await startStack({ mode: "dev", dataDir: dir, redisDatabases: DATABASES, log: (line) => lines.push(line) });
  }, 120_000);

  afterAll(async () => {
    await closeDb?.();
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("counts every acknowledged increment once: none lost, none twice, in Redis and in Postgres", async () => {
    neonConfig.webSocketConstructor = ws;
    const env = { UPSTASH_REDIS_REST_URL: stack!.restUrl, UPSTASH_REDIS_REST_TOKEN: stack!.restToken, ...stack!.redisBindings };
    const db = httpDatabase({ DATABASE_URL: stack!.databaseUrl, NEON_HTTP_PROXY: stack!.httpProxy });
    const deps = { redisAt: (index: number) => redisAt(env, index), databases: DATABASES, db };
    // Databases 1 and 2 are killed (database 0 may be REDIS_URL's, which the stack does not own):
    // users on each, all incremented by every loop.
    const base = 9_000_000_000 + Math.floor(Math.random() * 1_000_000_000);
    const users: string[] = [];
    for (let id = base; users.length < 6; id++) if (databaseOf(String(id), DATABASES) === 1 + (users.length % 2)) users.push(String(id));
    for (const index of [1, 2]) await fsyncAlways(stack!.databases[index]!.redisUrl);

    const acknowledged = new Map(users.map((id) => [id, 0]));
    const failures: string[] = [];
    let running = true;
    const loop = async (offset: number) => {
      for (let i = offset; running; i++) {
        const id = users[i % users.length]!;
        try {
          await incrementCounters(deps, [{ entity: "user", id, field: "coins", delta: 1 }]);
          acknowledged.set(id, acknowledged.get(id)! + 1);
        } catch (err) {
          failures.push(String(err));
        }
      }
    };
    const loops = Array.from({ length: LOOPS }, (_, i) => loop(i));

    const total = () => [...acknowledged.values()].reduce((a, b) => a + b, 0);
    for (let kill = 0; kill < KILLS; kill++) {
      const database = stack!.databases[1 + (kill % 2)]!;
      const port = new URL(database.redisUrl).port;
      const back = () => lines.filter((l) => l.startsWith(`redis database ${1 + (kill % 2)} (port ${port}) is back`)).length;
      // Increments in flight on the database at the kill, some of them already run and logged.
      const before = total();
      await eventually(total, (n) => n >= before + 200, WAIT_MS);
      const restarts = back();
      process.kill(await serverPid(database.redisUrl), "SIGKILL");
      expect(await eventually(back, (n) => n > restarts, WAIT_MS)).toBe(restarts + 1);
      await database.bridge.waitUntilConnected(WAIT_MS);
      await fsyncAlways(database.redisUrl);
    }
    const last = total();
    await eventually(total, (n) => n >= last + 200, WAIT_MS); // increments go on after the last restart
    running = false;
    await Promise.all(loops);

    expect(failures).toEqual([]);
    const expected = Object.fromEntries(acknowledged);
    const read = await readCounters(deps, "user", users);
    const coins = fieldsOf("user").indexOf("coins");
    expect(Object.fromEntries(users.map((id) => [id, read.values.get(id)![coins]]))).toEqual(expected);
    await flushAll(deps);
    const rows = await queryRows<{ id: string; value: string }>(
      db,
      "SELECT entity_id::text AS id, value::text FROM counters WHERE entity = 'user' AND field = 'coins' AND entity_id = ANY($1::bigint[])",
      [users],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, Number(r.value)]))).toEqual(expected);
    console.log(`increment-crash: ${total()} increments acknowledged across ${KILLS} kills`);
  }, 180_000);
});
