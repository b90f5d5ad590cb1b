/**
 * The local reshard round trip of docs/resharding.md ("Locally"), command for command:
 * `npm run dev -- --serve --redis-databases 3`, then `npm run reshard -- --to 2` twice (the plan,
 * a restart of `npm run dev` as the deploy, the move), a restart still listing three databases,
 * then `npm run reshard -- --to 3` twice the same way — while loops increment and read counters
 * through the dev Worker (paused only while it restarts). The counters model must hold across it:
 * every increment counted once, no read above the truth, exact values after each reshard and in
 * Postgres at the end; the database the shrink left is empty while it is out, and taken back.
 *
 * It runs what `npm run dev` and `npm run reshard` run (their scripts, with the test's own
 * `--port` and `--data-dir`): a private stack, independent of the test stack.
 */
import { spawn } from "node:child_process";
import { sign } from "hono/jwt";
import { Redis as RedisConnection } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_JWT_SECRET, readDevVars } from "../../scripts/dev-vars";
import { devRecordPath, readDevRecord } from "../../scripts/dev/leftovers";
import { fireCron } from "../../scripts/fire-cron";
import { freePort } from "../../scripts/stack/free-port";
import { REPO_ROOT } from "../../scripts/stack/migrate";
import { hasRedisServerBinary } from "../../scripts/stack/redis";
import { CRON_SCHEDULES } from "../../src/cron";
import { databaseOfSlot, slotOf } from "../../src/lib/redis-topology";
import { newId } from "../support/ids";
import { devChildEnv, devDataDir, startDevRun, TSX, type DevRun } from "./support/dev-run";

const STEP_MS = 240_000;
/** Between one loop's increments. */
const INCREMENT_PAUSE_MS = 10;

let data: ReturnType<typeof devDataDir>;
let dataDir: string;
let port: number;
let workerUrl: string;
let dev: DevRun | undefined;
const output: string[] = [];

/** `npm run dev -- --serve --redis-databases 3 --port P --data-dir D`, until its Worker answers. */
async function startDev(): Promise<void> {
  dev = await startDevRun(["--serve", "--redis-databases", "3"], { dataDir, port, output });
}

/** Ctrl-C on `npm run dev`, until it exited. */
async function stopDev(): Promise<void> {
  const run = dev;
  dev = undefined;
  await run?.stop();
}

/** `npm run reshard -- --to M --data-dir D`: its log lines; throws with them when it fails. */
async function reshard(to: number): Promise<string[]> {
  const child = spawn(TSX, ["scripts/reshard.ts", "--to", String(to), "--data-dir", dataDir], { cwd: REPO_ROOT, env: devChildEnv(), stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  output.push(...lines);
  if (code !== 0) throw new Error(`npm run reshard -- --to ${to} exited with ${code}:\n${lines.join("\n")}`);
  return lines;
}

/** The dev stack's Redis database `index`, straight (not through the Worker). */
async function keysOf(index: number): Promise<number> {
  const url = readDevRecord(devRecordPath(dataDir))!.stack!.databases![index]!.redisUrl;
  const client = new RedisConnection(url, { maxRetriesPerRequest: 1 });
  try {
    return await client.dbsize();
  } finally {
    client.disconnect();
  }
}

// Counters on every kind of move between 3 and 2 databases (and some that stay).
function idAt(three: number, two: number): string {
  for (;;) {
    const id = newId();
    if (databaseOfSlot(slotOf(id), 3) === three && databaseOfSlot(slotOf(id), 2) === two) return id;
  }
}
const ids = [idAt(0, 0), idAt(1, 1), idAt(2, 0), idAt(2, 1), idAt(0, 1), idAt(1, 0)];
const issued: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
const done: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
let token = "";

async function increment(id: string, coins: number): Promise<void> {
  issued[id]! += coins;
  const res = await fetch(`${workerUrl}/v1/counters/user/${id}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ deltas: { coins } }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  done[id]! += coins;
}

type Read = { stale: boolean; coins: Record<string, number> };
async function read(): Promise<Read> {
  const res = await fetch(`${workerUrl}/v1/counters/user?ids=${ids.join(",")}`);
  const body = (await res.json()) as { stale: boolean; items: { id: string; counts: { coins: number } }[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { stale: body.stale, coins: Object.fromEntries(body.items.map((i) => [i.id, i.counts.coins])) };
}

/** Increments and reads until `stop()`: no read above what was issued, and a fresh one holds what finished. */
function traffic() {
  let running = true;
  const reads = { all: 0, stale: 0 };
  // Paced: a few hundred increments a move is traffic enough, and an unpaced loop would take a whole
  // core of the machine the other test shards share for the minute this file runs.
  const incrementLoop = async (offset: number) => {
    for (let k = offset; running; k++) {
      await increment(ids[k % ids.length]!, 1 + (k % 3));
      await new Promise((resolve) => setTimeout(resolve, INCREMENT_PAUSE_MS));
    }
  };
  const readLoop = async () => {
    while (running) {
      const { stale, coins } = await read();
      reads.all += 1;
      if (stale) reads.stale += 1;
      for (const id of ids) expect(coins[id], `read of ${id} above the increments issued`).toBeLessThanOrEqual(issued[id]!);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const loops = Promise.all([incrementLoop(0), incrementLoop(1), readLoop()]);
  return {
    reads,
    async stop() {
      running = false;
      await loops;
    },
  };
}

/** A restart of `npm run dev` (the deploy, locally), with the traffic paused around it. */
async function restart(): Promise<void> {
  await stopDev();
  await startDev();
}

/** After a reshard, with the traffic stopped: a read is exact (not stale, every increment in it). */
async function expectExact(): Promise<void> {
  await fireCron(CRON_SCHEDULES.flush, workerUrl);
  const after = await read();
  expect(after.stale).toBe(false);
  expect(after.coins).toEqual(done);
}

const usable = hasRedisServerBinary();

describe.skipIf(!usable)("the local reshard round trip of docs/resharding.md: 3 → 2 → 3 under counters traffic", () => {
  beforeAll(async () => {
    data = devDataDir("reshard-trip-");
    dataDir = data.path;
    port = await freePort();
    workerUrl = `http://127.0.0.1:${port}`;
    token = await sign({ sub: "900001", role: "service", exp: Math.floor(Date.now() / 1000) + 3600 }, readDevVars().JWT_SECRET ?? DEV_JWT_SECRET, "HS256");
  });
  afterAll(async () => {
    await stopDev().catch(() => {});
    data.remove();
  });

  it("npm run dev -- --serve --redis-databases 3 serves the counters", async () => {
    await startDev();
    for (const id of ids) await increment(id, 5);
    await expectExact();
  }, STEP_MS);

  it("npm run reshard -- --to 2 records the plan; npm run dev restarted (the deploy); npm run reshard -- --to 2 moves the slots", async () => {
    let load = traffic();
    try {
      const plan = await reshard(2);
      expect(plan.join("\n")).toMatch(/prepared: 3 → 2 databases/);
      await load.stop();
      await restart();
      load = traffic();
      const move = await reshard(2);
      expect(move.join("\n")).toMatch(/done: 3 → 2 databases/);
      expect(move.join("\n")).toMatch(/database 2 left the deployment: deleted the \d+ keys it held of it/);
    } finally {
      await load.stop();
    }
    expect(load.reads.all).toBeGreaterThan(0);
    await expectExact();
    // The database it left holds nothing, and the running Worker (still listing three) sends it nothing.
    for (const id of ids) await increment(id, 1);
    await fireCron(CRON_SCHEDULES.flush, workerUrl);
    expect(await keysOf(2)).toBe(0);
  }, STEP_MS);

  it("npm run dev restarted, still listing three databases, starts on the shrunk data and leaves database 2 empty", async () => {
    await restart();
    const load = traffic();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await load.stop();
    await expectExact();
    expect(await keysOf(2)).toBe(0);
  }, STEP_MS);

  it("npm run reshard -- --to 3 records the plan; npm run dev restarted; npm run reshard -- --to 3 moves the slots back", async () => {
    let load = traffic();
    try {
      const plan = await reshard(3);
      expect(plan.join("\n")).toMatch(/prepared: 2 → 3 databases/);
      await load.stop();
      await restart();
      load = traffic();
      const move = await reshard(3);
      expect(move.join("\n")).toMatch(/done: 2 → 3 databases/);
    } finally {
      await load.stop();
    }
    await expectExact();
    expect(await keysOf(2)).toBeGreaterThan(0); // owners live there again
  }, STEP_MS);

  it("every increment is in Postgres exactly once", async () => {
    expect(done).toEqual(issued);
    const status = await fireCron(CRON_SCHEDULES.flush, workerUrl);
    expect(status.status).toBe(200);
    const client = new pg.Client({ connectionString: readDevRecord(devRecordPath(dataDir))!.stack!.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string; value: string }>(
        "SELECT entity_id::text AS id, value::text AS value FROM counters WHERE entity = 'user' AND field = 'coins' AND entity_id = ANY($1::bigint[])",
        [ids],
      );
      expect(Object.fromEntries(rows.map((r) => [r.id, Number(r.value)]))).toEqual(done);
    } finally {
      await client.end();
    }
  }, STEP_MS);
});
