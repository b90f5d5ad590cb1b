/**
 * `npm run bench:live` — live rooms in workerd (Miniflare API, fresh local stack):
 *   1. joins of new viewers into one room (10,000 viewers, 30 % of them fans of the host), side by
 *      side: ours with the viewer's follow cache in Redis (JWT + one Durable Object call, in which
 *      the object looks the viewer up: one HMGET, round trips shared by concurrent joins; no Postgres), ours with the cache missing (its rebuild: one Postgres read of
 *      the viewer's follows + one script), and the baseline (`/v1/bench/naive/live/…/presence`,
 *      bench-only entry: the same join with a primary-key lookup on Postgres `follows`, i.e. a
 *      Postgres connection per join) — joins/s, p50, p99, Redis round trips and Postgres
 *      statements per join. Every viewer but the cold range has a built follow cache, as a follow
 *      through the API or a badges read this month leaves it. New joins and refreshes of viewers
 *      already in run in alternating slices; their ratio is `join_vs_refresh`;
 *   2. churn: joins and leaves mixed, into the same room;
 *   3. count reads with 10,000 viewers online: ours (`GET /online`, O(1) in the object) against the
 *      naive count (fetch the online ids, join them against `follows` in Postgres per request),
 *      side by side in the same process;
 *   4. bytes per online viewer: SQLite `databaseSize` of the room object after the joins minus
 *      before, divided by the viewers (rows of viewers + connections + attendance with their
 *      indexes). The object's JS heap holds only two counters and the session descriptor, so nothing
 *      grows there per viewer; WebSocket viewers add a ~100-byte attachment held by the runtime
 *      (not measured here: HTTP presence is used to drive load).
 *
 * All of it runs twice in one run, on a fresh stack each: over one Redis database (N = 1) and over
 * three (N = 3: each viewer's follow cache on the viewer's database, seeded there; the room object
 * sends one lookup pipeline per database of its viewers; billed commands and bridge requests are
 * summed over every database). `--databases 1,3` is the default; `--databases 1` runs N = 1 alone.
 * The RESULT line keeps N = 1's keys as they are and adds N = 3's with `_n3`.
 */
import { Redis as IORedis } from "ioredis";
import pg from "pg";
import { badgeKeys, BUILT, USER_TTL_SECONDS } from "../../src/badges/keys.js";
import { groupByDatabase } from "../../src/lib/redis-topology.js";
import { billedCommandsBetween, bridgeRequests, combineLoads, postgresStatements, printTable, redisCommandStats, runLoad, startBenchWorker, runAtDatabases, type LoadResult } from "./harness.js";

const VIEWERS = 10_000;
const FAN_EVERY = 10; // users with i % 10 < 3 follow the host
const OTHER_FOLLOWS = 200_000; // noise: follow rows of other hosts, so `follows` is not tiny
const READ_MS = 4_000;
const CHURN_MS = 4_000;
const CONCURRENCY = 32;
/** User ranges (indexes) of each phase, so every join is a viewer new to the room. */
const WARM_JOINS = { from: VIEWERS, to: VIEWERS + 30_000 };
const BASELINE_JOINS = { from: WARM_JOINS.to, to: WARM_JOINS.to + 10_000 };
const CHURN_JOINS = { from: BASELINE_JOINS.to, to: BASELINE_JOINS.to + 20_000 };
/** Viewers whose follow cache is missing (the only ones): their first join rebuilds it. */
const COLD_JOINS = { from: CHURN_JOINS.to, to: CHURN_JOINS.to + 10_000 };
const MAX_USERS = COLD_JOINS.to;
/** Refreshes walk the seeded viewers (indexes taken mod VIEWERS), so every one is already in. */
const REFRESHES = { from: 0, to: Number.MAX_SAFE_INTEGER };
/** Alternating slices of new joins and refreshes (CHURN_MS in all for each side). */
const SLICES = 4;

const userId = (i: number) => String(1_000_000_000_000 + i);
const isFan = (i: number) => i % FAN_EVERY < 3;

async function main() {
  await runAtDatabases(benchAt);
}

/** One pass of every measure over a fresh stack of `databases` Redis databases; prints its tables, answers its RESULT keys. */
async function benchAt(databases: number): Promise<Record<string, string>> {
  const log = (line: string) => process.env.BENCH_DEBUG && console.error(line);
  const bench = await startBenchWorker({ log, redisDatabases: databases });
  // A direct client per database: a viewer's follow cache is on the viewer's database.
  const clients = bench.stack.databases.map((d) => new IORedis(d.redisUrl));
  try {
    const host = "42";
    const room = "bench-room";
    const auth = async (sub: string, role?: "user" | "service" | "admin") => ({ Authorization: `Bearer ${await bench.token(sub, role)}` });

    // Follows in Postgres: the host's fans among the viewers, plus other hosts' followers.
    const db = new pg.Client({ connectionString: bench.stack.databaseUrl });
    await db.connect();
    await db.query(
      `INSERT INTO follows (follower_id, followee_id) SELECT 1000000000000 + i, 42 FROM generate_series(0, $1 - 1) AS i WHERE i % $2 < 3`,
      [MAX_USERS, FAN_EVERY],
    );
    await db.query(
      `INSERT INTO follows (follower_id, followee_id) SELECT 2000000000000 + i, 1000 + i % 500 FROM generate_series(0, $1 - 1) AS i`,
      [OTHER_FOLLOWS],
    );
    await db.query(`ANALYZE follows`);
    await db.end();

    // Follow caches (badge:au:{user}) of every viewer outside the cold range, as the follow's event
    // leaves them, each on its viewer's database: sentinel `all` (built from every follow) and the
    // host for fans.
    for (let from = 0; from < COLD_JOINS.from; from += 5_000) {
      const indexes = Array.from({ length: Math.min(5_000, COLD_JOINS.from - from) }, (_, k) => from + k);
      for (const [database, group] of groupByDatabase(indexes, userId, databases)) {
        const batch = clients[database]!.pipeline();
        for (const i of group) {
          batch.hset(badgeKeys.authorSeen(userId(i)), ...(isFan(i) ? [BUILT, "all", "42", "0"] : [BUILT, "all"]));
          batch.expire(badgeKeys.authorSeen(userId(i)), USER_TTL_SECONDS);
        }
        await batch.exec();
      }
    }

    const start = await fetch(`${bench.url}/v1/live/${room}/sessions`, {
      method: "POST",
      headers: { ...(await auth(host)), "content-type": "application/json" },
      body: JSON.stringify({ hostId: host }),
    });
    if (start.status !== 201) throw new Error(`session start: ${start.status} ${await start.text()}`);
    const hostHeaders = await auth(host);
    const storage = async () =>
      ((await (await fetch(`${bench.url}/v1/live/${room}/bench-storage`, { headers: hostHeaders })).json()) as { sqliteBytes: number }).sqliteBytes;
    const bytesBefore = await storage();

    // Tokens are signed up front so the load measures the Worker, not the generator.
    const tokens: string[] = [];
    for (let i = 0; i < MAX_USERS; i++) tokens.push(`Bearer ${await bench.token(userId(i))}`);

    // Seed 10,000 viewers (bench-only route: fans resolved in one query per 2,000, one object call
    // each), so the read scenarios start fast; joins are measured on the real route below.
    const service = await auth("9", "service");
    for (let from = 0; from < VIEWERS; from += 2_000) {
      const userIds = Array.from({ length: Math.min(2_000, VIEWERS - from) }, (_, k) => userId(from + k));
      const res = await fetch(`${bench.url}/v1/live/${room}/bench-seed`, {
        method: "POST",
        headers: { ...service, "content-type": "application/json" },
        body: JSON.stringify({ userIds }),
      });
      if (res.status !== 200) throw new Error(`seed: ${res.status} ${await res.text()}`);
    }
    const bytesAfter = await storage();

    // Count reads with 10,000 online: ours, then the naive baseline; both must agree first.
    const reader = { Authorization: `Bearer ${await bench.token("7")}` };
    const ours = (await (await fetch(`${bench.url}/v1/live/${room}/online`, { headers: reader })).json()) as { viewers: number; onlineFans: number };
    const naive = (await (await fetch(`${bench.url}/v1/live/${room}/naive-online`, { headers: reader })).json()) as { viewers: number; onlineFans: number };
    const expectedFans = Array.from({ length: VIEWERS }, (_, i) => i).filter(isFan).length;
    if (ours.viewers !== VIEWERS || ours.onlineFans !== expectedFans || naive.viewers !== VIEWERS || naive.onlineFans !== expectedFans) {
      throw new Error(`counts disagree: ours ${JSON.stringify(ours)} naive ${JSON.stringify(naive)} expected ${VIEWERS}/${expectedFans}`);
    }
    const reads = await runLoad({ baseUrl: bench.url, concurrency: 16, durationMs: READ_MS, request: () => ({ path: `/v1/live/${room}/online`, headers: reader }) });
    const naiveReads = await runLoad({
      baseUrl: bench.url,
      concurrency: 16,
      durationMs: READ_MS,
      request: () => ({ path: `/v1/live/${room}/naive-online`, headers: reader }),
    });

    // Both join paths must agree on fans before they are timed.
    const ourPath = `/v1/live/${room}/presence`;
    const baselinePath = `/v1/bench/naive/live/${room}/presence`;
    const fanOf = async (path: string, i: number) => {
      const res = await fetch(`${bench.url}${path}`, { method: "POST", headers: { Authorization: tokens[i]! } });
      if (res.status !== 200) throw new Error(`join ${path}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { isFan: boolean }).isFan;
    };
    for (const [path, range] of [[ourPath, WARM_JOINS], [baselinePath, BASELINE_JOINS], [ourPath, COLD_JOINS]] as const) {
      for (let i = range.to - 20; i < range.to; i++) {
        if ((await fanOf(path, i)) !== isFan(i)) throw new Error(`${path}: user ${i} isFan should be ${isFan(i)}`);
      }
    }

    // Joins of new viewers, side by side: ours (follow cache warm, then missing) and the baseline.
    // Each phase counts the Redis round trips (requests reaching the bridge), billed Redis commands
    // (counted by Redis) and Postgres statements (over the Neon HTTP endpoint and through the WebSocket proxy)
    // it caused.
    type Measured = LoadResult & { roundTrips: number; commands: number; statements: number };
    const cursors = new Map<string, number>();
    const measured = async (path: string, range: { from: number; to: number }, durationMs = CHURN_MS, users = (next: () => number) => tokens[next()]!): Promise<Measured> => {
      const key = `${path} ${range.from}`;
      const next = () => {
        const i = cursors.get(key) ?? range.from;
        if (i >= range.to - 20) throw new Error(`out of users for ${path}: raise the range`);
        cursors.set(key, i + 1);
        return i;
      };
      const [rt0, st0, cmd0] = [bridgeRequests(bench.stack), postgresStatements(bench.stack), await redisCommandStats(bench.stack)];
      const result = await runLoad({
        baseUrl: bench.url,
        concurrency: CONCURRENCY,
        durationMs,
        request: () => ({ method: "POST", path, headers: { Authorization: users(next) } }),
      });
      const commands = billedCommandsBetween(cmd0, await redisCommandStats(bench.stack)).total;
      const n = Math.max(1, result.requests);
      return {
        ...result,
        roundTrips: (bridgeRequests(bench.stack) - rt0) / n,
        commands: commands / n,
        statements: (postgresStatements(bench.stack) - st0) / n,
      };
    };
    const pooled = (parts: Measured[]): Measured => {
      const n = (p: Measured) => Math.max(1, p.requests);
      const total = parts.reduce((sum, p) => sum + n(p), 0);
      const mean = (field: "roundTrips" | "commands" | "statements") => parts.reduce((sum, p) => sum + p[field] * n(p), 0) / total;
      return { ...combineLoads(parts), roundTrips: mean("roundTrips"), commands: mean("commands"), statements: mean("statements") };
    };
    // New joins (warm cache) and refreshes of viewers already in (no Redis, one object call) run in
    // alternating slices, pooled per side: their ratio is the figure, and a burst of noise on the
    // shared machine lands on both alike instead of on whichever phase it meets.
    const joinSlices: Measured[] = [];
    const refreshSlices: Measured[] = [];
    for (let k = 0; k < SLICES; k++) {
      joinSlices.push(await measured(ourPath, WARM_JOINS, CHURN_MS / SLICES));
      refreshSlices.push(await measured(ourPath, REFRESHES, CHURN_MS / SLICES, (next) => tokens[next() % VIEWERS]!));
      log(`slice ${k}: joins ${joinSlices[k]!.rps.toFixed(0)}/s p99 ${joinSlices[k]!.p99Ms.toFixed(0)}, refreshes ${refreshSlices[k]!.rps.toFixed(0)}/s p99 ${refreshSlices[k]!.p99Ms.toFixed(0)}`);
    }
    const joins = pooled(joinSlices);
    const refreshes = pooled(refreshSlices);
    const baselineJoins = await measured(baselinePath, BASELINE_JOINS);
    const coldJoins = await measured(ourPath, COLD_JOINS);
    // Churn: new viewers join while seeded ones leave, alternating.
    let nextNew = CHURN_JOINS.from;
    let nextLeave = 0;
    const churn = await runLoad({
      baseUrl: bench.url,
      concurrency: CONCURRENCY,
      durationMs: CHURN_MS,
      request: (i) =>
        i % 2 === 0
          ? { method: "POST", path: `/v1/live/${room}/presence`, headers: { Authorization: tokens[nextNew++]! } }
          : { method: "DELETE", path: `/v1/live/${room}/presence`, headers: { Authorization: tokens[nextLeave++]! } },
    });

    const bytesPerViewer = (bytesAfter - bytesBefore) / VIEWERS;
    const row = (scenario: string, r: LoadResult & { roundTrips?: number; commands?: number; statements?: number }) => ({
      scenario,
      requests: r.requests,
      errors: r.errors,
      "req/s": r.rps,
      "p50 ms": r.p50Ms,
      "p99 ms": r.p99Ms,
      "redis rt/req": r.roundTrips ?? "",
      "redis cmds/req": r.commands ?? "",
      "pg stmts/req": r.statements ?? "",
    });
    console.log(
      `\nLive rooms, one room, ${VIEWERS} viewers (${expectedFans} fans), ${databases} Redis database${databases === 1 ? "" : "s"}, workerd via Miniflare, ${CONCURRENCY} clients for writes, 16 for reads\n`,
    );
    printTable([
      row(`join, new viewer, ours (DO + follow cache), ${SLICES} slices`, joins),
      row(`refresh, viewer already in (JWT + DO), ${SLICES} slices`, refreshes),
      row("join, new viewer, baseline (Postgres fan lookup + DO)", baselineJoins),
      row("join, new viewer, ours, follow cache missing (rebuild)", coldJoins),
      row("churn: join + leave alternating", churn),
      row("count read, ours (O(1) in the object)", reads),
      row("count read, naive (ids x follows in Postgres)", naiveReads),
    ]);
    console.log("");
    printTable([
      { measure: "new joins / refreshes (alternating slices)", value: joins.rps / refreshes.rps },
      { measure: "joins: ours / baseline", value: joins.rps / baselineJoins.rps },
      { measure: "join p99: baseline / ours", value: baselineJoins.p99Ms / joins.p99Ms },
      { measure: "count reads: ours / naive", value: reads.rps / naiveReads.rps },
      { measure: "count p50: naive / ours", value: naiveReads.p50Ms / reads.p50Ms },
      { measure: "SQLite bytes before joins", value: bytesBefore },
      { measure: `SQLite bytes with ${VIEWERS} viewers`, value: bytesAfter },
      { measure: "SQLite bytes per online viewer", value: bytesPerViewer },
      { measure: "JS heap bytes per online viewer", value: 0 },
    ]);
    if (joins.errors + baselineJoins.errors + coldJoins.errors + refreshes.errors + churn.errors + reads.errors + naiveReads.errors > 0) {
      console.log(`\nerrors: ${JSON.stringify({ joins: joins.errorStatuses, baselineJoins: baselineJoins.errorStatuses, coldJoins: coldJoins.errorStatuses, refreshes: refreshes.errorStatuses, churn: churn.errorStatuses, reads: reads.errorStatuses, naive: naiveReads.errorStatuses })}`);
    }
    return {
      joins_per_s: String(Math.round(churn.rps)),
      count_reads_per_s: String(Math.round(reads.rps)),
      count_speedup: (reads.rps / naiveReads.rps).toFixed(1),
      bytes_per_viewer: String(Math.round(bytesPerViewer)),
      join_speedup: (joins.rps / baselineJoins.rps).toFixed(1),
      join_p99_ms: joins.p99Ms.toFixed(1),
      join_vs_refresh: (joins.rps / refreshes.rps).toFixed(2),
      join_redis_rt: joins.roundTrips.toFixed(2),
      join_redis_cmds: joins.commands.toFixed(2),
    };
  } finally {
    for (const client of clients) client.disconnect();
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
