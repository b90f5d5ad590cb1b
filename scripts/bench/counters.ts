/**
 * `npm run bench:counters` — buffered counters in workerd (Miniflare API, fresh local stack), side
 * by side in one process, 64 clients each:
 *   1. increments on ONE hot post and spread over 10,000 posts: this design (one Lua call into the
 *      pending hash) against the naive design (`/v1/bench/naive/...`: one `UPDATE counters SET
 *      value = value + 1` per request through the same Worker and driver);
 *   2. Redis round trips per increment and per cached 100-id read (requests received by the bridge)
 *      and billed commands per call (`INFO commandstats` deltas: EVALSHA + what the script runs),
 *      also for one cached 100-id read alone, and the cache's memory per entity (`MEMORY USAGE`);
 *   3. Postgres statements per 1,000 increments for the flush that applies them
 *      (`pg_stat_database.xact_commit` delta — every statement of the flush is its own autocommit
 *      transaction — cross-checked against the flush's own count);
 *   4. flush throughput: deltas applied per second for 100,000 pending keys;
 *   5. 200 concurrent clients reading the same hot post: served from the edge copy
 *      (COUNTER_EDGE_CACHE_MS, default 1 s) against today's path (`?fresh=true`: the Redis read
 *      every time) and against the same copy kept in the Workers Cache API (bench-only route),
 *      Redis round trips per read counted by the bridge;
 *   6. the same 200 clients on a route that does no I/O at all (a 404: middleware, router, error
 *      envelope, log line), on the same bundle, half before and half after the edge-copy run: the
 *      ceiling of this Worker on this rig. `edge_vs_noio` is how close the edge copy comes to it,
 *      and whatever costs every request alike (a router in front of the Worker, middleware) shows
 *      in `noio_rps` while leaving the ratio alone.
 *
 * All of it runs twice in one run, on a fresh stack each: over one Redis database (N = 1) and over
 * three (N = 3: entities split by slot, each database its own bridge; billed commands and bridge
 * requests are summed over all of them). `--databases 1,3` is the default; `--databases 1` runs
 * N = 1 alone. The RESULT line keeps N = 1's keys as they are and adds N = 3's with `_n3`.
 */
import { performance } from "node:perf_hooks";
import { Redis as IORedis } from "ioredis";
import { counterKeys } from "../../src/counters/keys.js";
import { databaseOf } from "../../src/lib/redis-topology.js";
import { fieldsOf } from "../../src/counters/registry.js";
import { CRON_SCHEDULES } from "../../src/cron.js";
import { billedCommandsBetween, bridgeRequests, combineLoads, printTable, redisCommandStats, runLoad, startBenchWithClients, runAtDatabases, type LoadResult } from "./harness.js";

const CONCURRENCY = 64;
/** Screens reading the hot post at once in the edge-copy scenario. */
const READERS = 200;
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 4_000);
const POSTS = 10_000;
const HOT = "1";
const FLUSH_KEYS = 100_000;
const post = (i: number) => String(1 + (i % POSTS));
/** A path no route serves: answered 404 by the app without any I/O. */
const NO_IO_PATH = "/v1/no-such-route";

async function main() {
  await runAtDatabases(benchAt);
}

/** One pass of every measure over a fresh stack of `databases` Redis databases; prints its tables, answers its RESULT keys. */
async function benchAt(databases: number): Promise<Record<string, string>> {
  const { bench, redis: redis0, db, close } = await startBenchWithClients({ redisDatabases: databases });
  // A direct client per database (database 0's is the harness'); an entity's keys are on `databaseOf(id)`.
  const clients = [redis0, ...bench.stack.databases.slice(1).map((d) => new IORedis(d.redisUrl))];
  const redisOf = (id: string) => clients[databaseOf(id, databases)]!;
  const service = { Authorization: `Bearer ${await bench.token("900", "service")}` };
  try {
    // The naive design updates existing rows; give it every row it will touch.
    await db.query(
      `INSERT INTO counters (entity, entity_id, field, value) SELECT 'post', g, 'likes', 0 FROM generate_series(1, $1) g ON CONFLICT DO NOTHING`,
      [POSTS],
    );
    const ours = (path: (i: number) => string) => (i: number) => ({ method: "POST", path: path(i), headers: service, body: { deltas: { likes: 1 } } });
    const naive = (path: (i: number) => string) => (i: number) => ({ method: "POST", path: path(i), headers: service });
    // Warm: scripts loaded, the hot post cached (a hot post is read constantly), JIT and pools up.
    await runLoad({ baseUrl: bench.url, concurrency: 8, total: 200, request: ours(() => `/v1/counters/post/${HOT}`) });
    await runLoad({ baseUrl: bench.url, concurrency: 8, total: 200, request: naive(() => `/v1/bench/naive/counters/post/${HOT}/likes`) });
    await fetch(`${bench.url}/v1/counters/post?ids=${HOT}`);

    const rows: Record<string, string | number>[] = [];
    const measured = async (name: string, run: () => Promise<LoadResult>) => {
      const statsBefore = await redisCommandStats(bench.stack);
      const bridgeBefore = bridgeRequests(bench.stack);
      const result = await run();
      const billed = billedCommandsBetween(statsBefore, await redisCommandStats(bench.stack));
      const bridge = bridgeRequests(bench.stack) - bridgeBefore;
      const ok = result.requests - result.errors;
      rows.push({
        scenario: name,
        "req/s": result.rps,
        "p50 ms": result.p50Ms,
        "p99 ms": result.p99Ms,
        requests: result.requests,
        errors: result.errors,
        "redis round trips/req": ok ? bridge / ok : 0,
        "billed cmds/req": ok ? billed.total / ok : 0,
      });
      return { result, roundTrips: ok ? bridge / ok : 0, billed: ok ? billed.total / ok : 0, ok };
    };

    const oursHot = await measured("hot post, this design", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: ours(() => `/v1/counters/post/${HOT}`) }),
    );
    const naiveHot = await measured("hot post, naive UPDATE", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: naive(() => `/v1/bench/naive/counters/post/${HOT}/likes`) }),
    );
    const naiveHotOk = naiveHot.ok;
    const oursSpread = await measured("10,000 posts, this design", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: ours((i) => `/v1/counters/post/${post(i * 7919)}`) }),
    );
    const naiveSpread = await measured("10,000 posts, naive UPDATE", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: naive((i) => `/v1/bench/naive/counters/post/${post(i * 7919)}/likes`) }),
    );
    const ids = Array.from({ length: 100 }, (_, i) => post(i * 97)).join(",");
    await fetch(`${bench.url}/v1/counters/post?ids=${ids}`); // cache them
    // fresh=true: the Redis read of 100 cached entities (the edge copy is measured below).
    const reads = await measured("read 100 cached posts", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: Math.min(LOAD_MS, 2_000), request: () => ({ path: `/v1/counters/post?ids=${ids}&fresh=true` }) }),
    );
    // The same hot post read by 200 screens at once: the edge copy, then today's path, same Worker.
    const hotRead = (query: string) => () =>
      runLoad({ baseUrl: bench.url, concurrency: READERS, durationMs: LOAD_MS, request: () => ({ path: `/v1/counters/post?ids=${HOT}${query}` }) });
    // …and the same copy kept in the Workers Cache API (max-age=1) instead of isolate memory, by
    // the bench-only route of scripts/bench/baselines/counters.ts.
    const cacheApiPath = `/v1/bench/cache-api/counters/post/${HOT}`;
    // Warm-up: 200 connections opened, every path run once (discarded).
    for (const path of [`/v1/counters/post?ids=${HOT}`, `/v1/counters/post?ids=${HOT}&fresh=true`, cacheApiPath, NO_IO_PATH]) {
      await runLoad({ baseUrl: bench.url, concurrency: READERS, total: 2 * READERS, request: () => ({ path }) });
    }
    // The no-I/O route in two halves around the edge-copy run, pooled, so a burst of noise on the
    // shared machine during one of them weighs on both sides of `edge_vs_noio` alike.
    const noIoHalf = () => runLoad({ baseUrl: bench.url, concurrency: READERS, durationMs: LOAD_MS / 2, request: () => ({ path: NO_IO_PATH }) });
    const noIoFirst = await noIoHalf();
    // The copy aged out during that half: one read puts it back, so the run measures a hot post's
    // steady state (its copy always warm) rather than 200 readers missing at once at its start.
    await (await fetch(`${bench.url}/v1/counters/post?ids=${HOT}`)).arrayBuffer();
    const edgeReads = await measured(`${READERS} readers, hot post, edge copy`, hotRead(""));
    const noIo = combineLoads([noIoFirst, await noIoHalf()]);
    const noIoUnexpected = noIo.requests - (noIo.errorStatuses["404"] ?? 0);
    rows.push({
      scenario: `${READERS} clients, no-I/O route (404)`,
      "req/s": noIo.rps,
      "p50 ms": noIo.p50Ms,
      "p99 ms": noIo.p99Ms,
      requests: noIo.requests,
      errors: noIoUnexpected, // anything but the expected 404
      "redis round trips/req": 0,
      "billed cmds/req": 0,
    });
    if (noIoUnexpected > 0) throw new Error(`${NO_IO_PATH} answered something else than 404: ${JSON.stringify(noIo.errorStatuses)}`);
    const redisReads = await measured(`${READERS} readers, hot post, Redis (today)`, hotRead("&fresh=true"));
    const cacheApiReads = await measured(`${READERS} readers, hot post, Cache API`, () =>
      runLoad({ baseUrl: bench.url, concurrency: READERS, durationMs: LOAD_MS, request: () => ({ path: cacheApiPath }) }),
    );
    printTable(rows);

    // ── One cached 100-id read, alone: billed commands (INFO commandstats, as above) ──
    const oneReadBefore = await redisCommandStats(bench.stack);
    const oneRead = await fetch(`${bench.url}/v1/counters/post?ids=${ids}&fresh=true`); // the Redis read, not the edge copy
    if (oneRead.status !== 200) throw new Error(`cached read answered ${oneRead.status}`);
    const batchRead = billedCommandsBetween(oneReadBefore, await redisCommandStats(bench.stack));

    // ── Memory per cached entity: the packed string against the earlier hash layout, same values ──
    const memory = await cacheMemory(redisOf, ids.split(","));

    // ── Postgres statements for the flush of everything the load above buffered ──
    const increments = oursHot.ok + oursSpread.ok + 200;
    let pendingKeys = 0;
    for (const client of clients) pendingKeys += await client.hlen("ctr:pending");
    const xact = async () => {
      await new Promise((r) => setTimeout(r, 1_200)); // backends report stats at most once a second
      const { rows: r } = await db.query("SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()");
      return Number(r[0].n);
    };
    // Calibrate: transactions in an idle window of the same length (our own stats SELECT, autovacuum
    // after the naive run's updates), subtracted from the flush window's count.
    const xIdle0 = await xact();
    const xIdle1 = await xact();
    const idle = xIdle1 - xIdle0;
    const xBefore = await xact();
    await bench.scheduled(CRON_SCHEDULES.flush);
    const xAfter = await xact();
    const cronTotal = Math.max(0, xAfter - xBefore - idle);
    // The flush cron also runs other capabilities' tasks: measure a run with nothing pending (where
    // the counters flush issues exactly one statement, the stale-mark read) and attribute the rest.
    const xEmpty0 = await xact();
    await bench.scheduled(CRON_SCHEDULES.flush);
    const others = Math.max(0, (await xact()) - xEmpty0 - idle - 1);
    const statements = cronTotal - others;
    const applied = await db.query("SELECT count(*)::int AS batches FROM counter_flush_batches");
    const ownCount = Math.max(1, applied.rows[0].batches); // one statement per applied batch (stale marks ride along)
    const { rows: hotRow } = await db.query("SELECT value::text AS v FROM counters WHERE entity = 'post' AND entity_id = 1 AND field = 'likes'");
    // The flush's own count, or what Postgres saw if that is more (xact_commit can only add noise).
    const perThousand = Math.max(ownCount, statements) / (increments / 1000);

    // ── Flush throughput: 100,000 distinct pending keys ──
    // Each key in the pending hash of its entity's database, as increments leave them.
    for (let from = 0; from < FLUSH_KEYS; from += 10_000) {
      const args = clients.map(() => [] as string[]);
      for (let i = from; i < from + 10_000; i++) args[databaseOf(String(100_000 + i), databases)]!.push(`post:${100_000 + i}:views`, "1");
      for (const [index, list] of args.entries()) if (list.length > 0) await clients[index]!.hset("ctr:pending", ...list);
    }
    const flushStarted = performance.now();
    await bench.scheduled(CRON_SCHEDULES.flush);
    const flushMs = performance.now() - flushStarted;
    const { rows: flushed } = await db.query("SELECT count(*)::int AS n FROM counters WHERE entity = 'post' AND entity_id >= 100000 AND field = 'views' AND value = 1");
    const flushRate = flushed[0].n / (flushMs / 1000);

    console.log("");
    printTable([
      { measure: "increments buffered (ours)", value: increments },
      { measure: "distinct pending keys before flush", value: pendingKeys },
      { measure: "idle window: transactions (noise, subtracted)", value: idle },
      { measure: "flush cron: Postgres transactions (xact_commit delta - idle)", value: cronTotal },
      { measure: "  of which other tasks of the flush cron", value: others },
      { measure: "  of which the counters flush", value: statements },
      { measure: "flush: statements by its own count", value: ownCount },
      { measure: "Postgres statements per 1,000 increments", value: perThousand },
      { measure: "hot post value after flush", value: Number(hotRow[0]?.v ?? 0) },
      // 200 warm-up requests per design; requests 0, 10,000, 20,000… of each spread run also hit
      // post 1 (7919 ⟂ 10,000): one in every 10,000 of its requests (it runs without errors).
      { measure: "  expected (every successful increment of both designs)", value: 400 + oursHot.ok + naiveHotOk + Math.ceil(oursSpread.ok / 10_000) + Math.ceil(naiveSpread.ok / 10_000) },
      { measure: "flush of 100,000 pending keys: ms", value: flushMs },
      { measure: "flush of 100,000 pending keys: rows applied", value: flushed[0].n },
      { measure: "flush deltas/s", value: flushRate },
      { measure: `one cached 100-id read: billed commands (${Object.entries(batchRead.byCommand).map(([c, n]) => `${c} ${n}`).join(", ")})`, value: batchRead.total },
      { measure: "memory per cached post, packed string ctr:c (bytes)", value: memory.packed },
      { measure: "memory per cached post, hash ctr:v as before (bytes)", value: memory.hash },
    ]);
    const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
    return {
      hot_speedup: fmt(oursHot.result.rps / naiveHot.result.rps),
      hot_p99_ratio: fmt(naiveHot.result.p99Ms / oursHot.result.p99Ms),
      incr_round_trips: fmt(oursHot.roundTrips),
      read_round_trips: fmt(reads.roundTrips),
      incr_billed_commands: fmt(oursHot.billed),
      pg_statements_per_1000: fmt(perThousand),
      flush_deltas_per_s: String(Math.round(flushRate)),
      batch_read_billed_commands: String(batchRead.total),
      edge_read_round_trips: edgeReads.roundTrips.toFixed(4),
      edge_read_speedup: fmt(edgeReads.result.rps / redisReads.result.rps),
      edge_read_p99_ratio: fmt(redisReads.result.p99Ms / edgeReads.result.p99Ms),
      edge_vs_cache_api_speedup: fmt(edgeReads.result.rps / cacheApiReads.result.rps),
      noio_rps: String(Math.round(noIo.rps)),
      edge_vs_noio: fmt(edgeReads.result.rps / noIo.rps),
    };
  } finally {
    for (const client of clients.slice(1)) client.disconnect();
    await close();
  }
}

/**
 * Mean `MEMORY USAGE` (key, value and Redis' per-key overhead; the TTL entry is the same for both)
 * of the cached posts, and of the same values written as the earlier layout (a hash per entity,
 * `ctr:v:post:{id}` with one field per counter, TTL set), which is deleted again.
 */
async function cacheMemory(redisOf: (id: string) => IORedis, ids: string[]): Promise<{ packed: number; hash: number }> {
  const fields = fieldsOf("post");
  let packed = 0;
  let hash = 0;
  for (const id of ids) {
    const redis = redisOf(id);
    const value = await redis.get(counterKeys.cache("post", id));
    if (!value) throw new Error(`post ${id} is not cached`);
    packed += Number(await redis.call("MEMORY", "USAGE", counterKeys.cache("post", id)));
    const old = `ctr:v:post:${id}`;
    await redis.hset(old, Object.fromEntries(value.split(",").map((v, i) => [fields[i]!, v])));
    await redis.expire(old, 12 * 3600);
    hash += Number(await redis.call("MEMORY", "USAGE", old));
    await redis.del(old);
  }
  return { packed: packed / ids.length, hash: hash / ids.length };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
