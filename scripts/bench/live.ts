/**
 * `npm run bench:live` — live rooms in workerd (Miniflare API, fresh local stack):
 *   1. joins of new viewers into one room (10,000 viewers, 30 % of them fans of the host), side by
 *      side: ours with the viewer's follow cache in Redis (JWT + one Redis command + two Durable
 *      Object calls, no Postgres), ours with the cache missing (its rebuild: one Postgres read of
 *      the viewer's follows + one script), and the baseline (`/v1/bench/naive/live/…/presence`,
 *      bench-only entry: the same join with a primary-key lookup on Postgres `follows`, i.e. a
 *      Postgres connection per join) — joins/s, p50, p99, Redis round trips and Postgres
 *      statements per join. Every viewer but the cold range has a built follow cache, as a follow
 *      through the API or a badges read this month leaves it;
 *   2. churn: joins and leaves mixed, into the same room;
 *   3. count reads with 10,000 viewers online: ours (`GET /online`, O(1) in the object) against the
 *      naive count (fetch the online ids, join them against `follows` in Postgres per request),
 *      side by side in the same process;
 *   4. bytes per online viewer: SQLite `databaseSize` of the room object after the joins minus
 *      before, divided by the viewers (rows of viewers + connections + attendance with their
 *      indexes). The object's JS heap holds only two counters and the session descriptor, so nothing
 *      grows there per viewer; WebSocket viewers add a ~100-byte attachment held by the runtime
 *      (not measured here: HTTP presence is used to drive load).
 */
import { Redis as IORedis } from "ioredis";
import pg from "pg";
import { badgeKeys, BUILT, USER_TTL_SECONDS } from "../../src/badges/keys.js";
import { printTable, runLoad, startBenchWorker, type LoadResult } from "./harness.js";

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

const userId = (i: number) => String(1_000_000_000_000 + i);
const isFan = (i: number) => i % FAN_EVERY < 3;

async function main() {
  const log = (line: string) => process.env.BENCH_DEBUG && console.error(line);
  const bench = await startBenchWorker({ log });
  const redis = new IORedis(bench.stack.redisUrl);
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
    // leaves them: sentinel `all` (built from every follow) and the host for fans.
    for (let from = 0; from < COLD_JOINS.from; from += 5_000) {
      const batch = redis.pipeline();
      for (let i = from; i < Math.min(from + 5_000, COLD_JOINS.from); i++) {
        batch.hset(badgeKeys.authorSeen(userId(i)), ...(isFan(i) ? [BUILT, "all", "42", "0"] : [BUILT, "all"]));
        batch.expire(badgeKeys.authorSeen(userId(i)), USER_TTL_SECONDS);
      }
      await batch.exec();
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
    // Each phase counts the Redis round trips (requests reaching the bridge) and Postgres statements
    // (Query/Execute messages through the Neon proxy) it caused.
    const measured = async (path: string, range: { from: number; to: number }) => {
      let next = range.from;
      const [rt0, st0] = [bench.stack.bridge.stats.requests, bench.stack.proxy.stats.statements];
      const result = await runLoad({
        baseUrl: bench.url,
        concurrency: CONCURRENCY,
        durationMs: CHURN_MS,
        request: () => {
          if (next >= range.to - 20) throw new Error(`out of users for ${path}: raise the range`);
          return { method: "POST", path, headers: { Authorization: tokens[next++]! } };
        },
      });
      const n = Math.max(1, result.requests);
      return { ...result, roundTrips: (bench.stack.bridge.stats.requests - rt0) / n, statements: (bench.stack.proxy.stats.statements - st0) / n };
    };
    const joins = await measured(ourPath, WARM_JOINS);
    const baselineJoins = await measured(baselinePath, BASELINE_JOINS);
    const coldJoins = await measured(ourPath, COLD_JOINS);
    // Refreshes of viewers already in the room: no Postgres, one object call.
    const refreshes = await runLoad({
      baseUrl: bench.url,
      concurrency: CONCURRENCY,
      durationMs: CHURN_MS,
      request: (i) => ({ method: "POST", path: `/v1/live/${room}/presence`, headers: { Authorization: tokens[i % VIEWERS]! } }),
    });
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
    const row = (scenario: string, r: LoadResult & { roundTrips?: number; statements?: number }) => ({
      scenario,
      requests: r.requests,
      errors: r.errors,
      "req/s": r.rps,
      "p50 ms": r.p50Ms,
      "p99 ms": r.p99Ms,
      "redis rt/req": r.roundTrips ?? "",
      "pg stmts/req": r.statements ?? "",
    });
    console.log(`\nLive rooms, one room, ${VIEWERS} viewers (${expectedFans} fans), workerd via Miniflare, ${CONCURRENCY} clients for writes, 16 for reads\n`);
    printTable([
      row("join, new viewer, ours (follow cache in Redis + DO)", joins),
      row("join, new viewer, baseline (Postgres fan lookup + DO)", baselineJoins),
      row("join, new viewer, ours, follow cache missing (rebuild)", coldJoins),
      row("refresh, viewer already in (JWT + DO)", refreshes),
      row("churn: join + leave alternating", churn),
      row("count read, ours (O(1) in the object)", reads),
      row("count read, naive (ids x follows in Postgres)", naiveReads),
    ]);
    console.log("");
    printTable([
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
    console.log(
      `RESULT joins_per_s=${Math.round(churn.rps)} count_reads_per_s=${Math.round(reads.rps)} count_speedup=${(reads.rps / naiveReads.rps).toFixed(1)} bytes_per_viewer=${Math.round(bytesPerViewer)}` +
        ` join_speedup=${(joins.rps / baselineJoins.rps).toFixed(1)} join_p99_ms=${joins.p99Ms.toFixed(1)}`,
    );
  } finally {
    redis.disconnect();
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
