/**
 * `npm run bench:live` — live rooms in workerd (Miniflare API, fresh local stack):
 *   1. joins into one room (10,000 viewers, 30 % of them fans of the host; each join = JWT check +
 *      one Postgres fan lookup + one Durable Object call);
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
import pg from "pg";
import { printTable, runLoad, startBenchWorker } from "./harness.js";

const VIEWERS = 10_000;
const FAN_EVERY = 10; // users with i % 10 < 3 follow the host
const OTHER_FOLLOWS = 200_000; // noise: follow rows of other hosts, so `follows` is not tiny
const READ_MS = 4_000;
const CHURN_MS = 4_000;
const CONCURRENCY = 32;
/** Seeded viewers plus the ones the churn phase brings in. */
const MAX_USERS = VIEWERS + 20_000;

const userId = (i: number) => String(1_000_000_000_000 + i);
const isFan = (i: number) => i % FAN_EVERY < 3;

async function main() {
  const log = (line: string) => process.env.BENCH_DEBUG && console.error(line);
  const bench = await startBenchWorker({ vars: { BENCH_NAIVE_ROUTES: "1" }, log });
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

    // Joins of new viewers on the real route: JWT + one Postgres fan lookup + two object calls.
    let nextNew = VIEWERS;
    const joins = await runLoad({
      baseUrl: bench.url,
      concurrency: CONCURRENCY,
      durationMs: CHURN_MS,
      request: () => ({ method: "POST", path: `/v1/live/${room}/presence`, headers: { Authorization: tokens[nextNew++]! } }),
    });
    // Refreshes of viewers already in the room: no Postgres, one object call.
    const refreshes = await runLoad({
      baseUrl: bench.url,
      concurrency: CONCURRENCY,
      durationMs: CHURN_MS,
      request: (i) => ({ method: "POST", path: `/v1/live/${room}/presence`, headers: { Authorization: tokens[i % VIEWERS]! } }),
    });
    // Churn: new viewers join while seeded ones leave, alternating.
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
    const row = (scenario: string, r: Awaited<ReturnType<typeof runLoad>>) => ({
      scenario,
      requests: r.requests,
      errors: r.errors,
      "req/s": r.rps,
      "p50 ms": r.p50Ms,
      "p99 ms": r.p99Ms,
    });
    console.log(`\nLive rooms, one room, ${VIEWERS} viewers (${expectedFans} fans), workerd via Miniflare, ${CONCURRENCY} clients for writes, 16 for reads\n`);
    printTable([
      row("join, new viewer (JWT + Postgres fan lookup + DO)", joins),
      row("refresh, viewer already in (JWT + DO)", refreshes),
      row("churn: join + leave alternating", churn),
      row("count read, ours (O(1) in the object)", reads),
      row("count read, naive (ids x follows in Postgres)", naiveReads),
    ]);
    console.log("");
    printTable([
      { measure: "count reads: ours / naive", value: reads.rps / naiveReads.rps },
      { measure: "count p50: naive / ours", value: naiveReads.p50Ms / reads.p50Ms },
      { measure: "SQLite bytes before joins", value: bytesBefore },
      { measure: `SQLite bytes with ${VIEWERS} viewers`, value: bytesAfter },
      { measure: "SQLite bytes per online viewer", value: bytesPerViewer },
      { measure: "JS heap bytes per online viewer", value: 0 },
    ]);
    if (joins.errors + refreshes.errors + churn.errors + reads.errors + naiveReads.errors > 0) {
      console.log(`\nerrors: ${JSON.stringify({ joins: joins.errorStatuses, refreshes: refreshes.errorStatuses, churn: churn.errorStatuses, reads: reads.errorStatuses, naive: naiveReads.errorStatuses })}`);
    }
    console.log(
      `RESULT joins_per_s=${Math.round(churn.rps)} count_reads_per_s=${Math.round(reads.rps)} count_speedup=${(reads.rps / naiveReads.rps).toFixed(1)} bytes_per_viewer=${Math.round(bytesPerViewer)}`,
    );
  } finally {
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
