/**
 * `npm run bench:scale [-- --databases 1,2,4] [--max-commands-per-second C] [--seconds 12]`: the
 * mixed load of `npm run load` (`--scenarios mixed`: likes, reads, feed, badges and follows in
 * turn) against the bundled Worker over N = 1, 2 and 4 Redis databases, each database capped at
 * the same C commands/s by its bridge (`--max-commands-per-second`, answered past it as Upstash
 * answers: `ERR max requests limit exceeded`). Does throughput grow with N, and does the load
 * spread?
 *
 * Why C = 150 by default: throughput must be limited by ONE capped database at N = 1, not by the
 * Worker or this machine, and stay so at N = 4 (4 × C). Each bridge meters its budget at its own
 * redis-server (`budgetMeter: "server"`): every command the database runs, a script's own commands
 * included — what Upstash counts and bills, and what `docs/scale.md` sizes a database by. The mix
 * bills ≈ 11–12 commands per request, so N = 4 asks ≈ 4 × 150 / 11.5 ≈ 52 requests/s of the
 * Worker, under what this 2-core machine serves uncapped with everything on it (workerd, the load
 * generator, the bridges, Redis and Postgres; check with `--max-commands-per-second 0`). Raise C
 * on a larger machine. Background work (the flush cron, queued fan-out and follow syncs) counts
 * against the budget too, as it does at Upstash.
 *
 * Each N on a fresh stack, the same steps:
 *  1. uncapped: 100 hot posts by 100 authors (so posts and authors spread over the databases), a
 *     live room, and every user's feed and badges read once (timelines and badge caches warm, so
 *     every N starts from the same state);
 *  2. capped: 3 s of the mix to settle, then `--seconds` (default 12) measured: 16 closed-loop
 *     clients, enough to keep 4 × C saturated. A refused call comes back degraded (a 2xx with
 *     `degraded`/`stale`) or 429/503: it counts as an error, and the client backs off 250–750 ms
 *     and retries it (as an app does) instead of spinning on refusals. A like or follow whose
 *     Redis write was refused is applied through Postgres and answered as usual (no flag): it
 *     counts as served, as it is;
 *  3. uncapped: 500 more requests of the mix, for the billed commands per request;
 *  4. uncapped, with nothing else running: the rounds of one warm feed page and of one batch
 *     counter read of 100 ids spread over the databases, from outside: every bridge records each
 *     request's arrival and answer while the call runs alone, and a round is a group of
 *     overlapping requests (a request starting after all earlier ones answered starts a new one).
 *
 * Definitions: `rps` = requests answered 2xx and not degraded, per second of the measured run
 * (a refused request is retried until served, so every request of the sequence is served once and
 * the mix served is the same at every N); errors = refused attempts (degraded answers, 429/503);
 * p50/p99 over every attempt (refused ones too); billed commands = `INFO commandstats` deltas of
 * each database (EVALSHA + what the script runs: what Upstash bills, and what the budget counts); `billed_per_request_N` = billed commands of all databases / requests, over 500 more
 * requests of the same sequence sent uncapped after the measured run (refusals would hide the
 * cost: a refused write goes to Postgres and bills nothing) and the queued work they cause;
 * `redis_paid_share_N` = billed commands per second of the measured run / (rps × billed per
 * request): the share of what the served requests cost uncapped that Redis ran. Below 1, some were
 * served without their Redis work (a like or follow whose write was refused, applied through
 * Postgres); rps(N) then overstates what N databases serve, the more so the lower the share;
 * `scale_efficiency_4` = rps(4) / (4 × rps(1)); `max_db_share_4` = the busiest database's share
 * of all billed commands at N = 4; `feed_page_rounds`, `batch_read_rounds` at the largest N;
 * `dead_letters_N` = feed messages in Postgres `dead_letters` at the end of N's pass (target 0: a
 * delivery refused for the budget is deferred, never dead-lettered).
 */
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { databasesOption, benchLog, formatNumber, printTable, quiet, startBenchWorker, type BenchWorker } from "./harness.js";
import { call, createHotPosts, signCallers, stackMeter, startLiveRoom, type Callers } from "../load/target.js";
import { pickScenarios, type Fixtures, type Scenario } from "../load/scenarios.js";
import { errorSummary, measureScenario } from "../load/measure.js";
import { roundsOf } from "./rounds.js";

const { values } = parseArgs({
  options: {
    databases: { type: "string", default: "1,2,4" },
    "max-commands-per-second": { type: "string", default: "150" },
    seconds: { type: "string", default: "12" },
    concurrency: { type: "string", default: "16" },
  },
});
const DATABASES = databasesOption([`--databases=${values.databases!}`]);
const CAP = Number(values["max-commands-per-second"]);
if (!(CAP >= 0)) throw new Error("--max-commands-per-second must be ≥ 0 (0: uncapped)");
const MEASURE_MS = Number(values.seconds) * 1_000;
const SETTLE_MS = 3_000;
const CONCURRENCY = Number(values.concurrency);
if (!(MEASURE_MS >= 1_000 && Number.isInteger(CONCURRENCY) && CONCURRENCY >= 1)) throw new Error("--seconds must be ≥ 1 and --concurrency a positive integer");
/** Synthetic users (a user's feed and badges come round every few seconds: warm, as in an app). */
const USERS = 400;
/** Hot posts, one author each: likes and reads spread over them, and so over the databases. */
const POSTS = 100;
/** Requests of the mix sent uncapped to count billed commands per request. */
const BILLED_SAMPLE = 500;
/** Clients of the uncapped warm-up. */
const WARM_CONCURRENCY = 8;
const MIXED = pickScenarios("mixed")[0]!;

interface Pass {
  n: number;
  row: Record<string, string | number>;
  rps: number;
  billedPerRequest: number;
  /** Of what the served requests would bill uncapped, the share Redis ran (see `redisPaidShare`). */
  redisPaidShare: number;
  maxDbShare: number;
  feedRounds: number;
  batchRounds: number;
  deadLetters: number;
}

async function main() {
  console.log(
    `bench:scale — the mixed load at N = ${DATABASES.join(", ")}; ` +
      (CAP ? `each database capped at ${CAP} commands/s` : "uncapped") +
      `; ${CONCURRENCY} clients, ${MEASURE_MS / 1000} s measured after ${SETTLE_MS / 1000} s`,
  );
  const passes: Pass[] = [];
  for (const n of DATABASES) passes.push(await passAt(n));
  console.log("");
  printTable(passes.map((p) => p.row));
  const at = (n: number) => passes.find((p) => p.n === n);
  const one = at(1);
  const four = at(4);
  const last = passes[passes.length - 1]!;
  const result: Record<string, string> = {};
  for (const p of passes) result[`scale_rps_${p.n}`] = p.rps.toFixed(1);
  if (one && four) result.scale_efficiency_4 = (four.rps / (4 * one.rps)).toFixed(3);
  if (four) result.max_db_share_4 = four.maxDbShare.toFixed(3);
  result.feed_page_rounds = String(last.feedRounds);
  result.batch_read_rounds = String(last.batchRounds);
  for (const p of passes) if (p.n === 1 || p.n === 4) result[`billed_per_request_${p.n}`] = p.billedPerRequest.toFixed(2);
  for (const p of passes) if (p.n === 1 || p.n === 4) result[`redis_paid_share_${p.n}`] = p.redisPaidShare.toFixed(3);
  for (const p of passes) result[`dead_letters_${p.n}`] = String(p.deadLetters);
  console.log(`(rounds measured at N = ${last.n}; rps = 2xx answers not degraded per second)`);
  const targets = [
    one && four ? target("scale_efficiency_4", four.rps / (4 * one.rps), "≥ 0.85", (v) => v >= 0.85) : undefined,
    four ? target("max_db_share_4", four.maxDbShare, "≤ 0.30", (v) => v <= 0.3) : undefined,
    target("feed_page_rounds", last.feedRounds, "≤ 2", (v) => v <= 2),
    target("batch_read_rounds", last.batchRounds, "1", (v) => v === 1),
    ...passes.map((p) => target(`dead_letters_${p.n}`, p.deadLetters, "0", (v) => v === 0)),
    one && four ? target("billed_per_request_4 / _1", four.billedPerRequest / one.billedPerRequest, "within 10 %", (v) => Math.abs(v - 1) <= 0.1) : undefined,
  ].filter(Boolean);
  console.log(`targets: ${targets.join("; ")}`);
  console.log(`RESULT ${Object.entries(result).map(([k, v]) => `${k}=${v}`).join(" ")}`);
}

function target(name: string, value: number, goal: string, met: (v: number) => boolean): string {
  return `${name} ${Number.isInteger(value) ? value : value.toFixed(3)} (${goal}: ${met(value) ? "met" : "MISSED"})`;
}

async function passAt(n: number): Promise<Pass> {
  console.log(`\n── N = ${n} ──`);
  const secret = randomBytes(32).toString("hex");
  // Started uncapped: the setup and the rounds are measured without the budget in the way.
  const bench = await startBenchWorker({ redisDatabases: n, vars: { JWT_SECRET: secret }, log: benchLog });
  const bridges = bench.stack.databases.map((d) => d.bridge);
  try {
    const callers = await signCallers({ secret, users: USERS, ttlSeconds: 3_600 });
    const fixtures = await setUp(bench, callers);
    const cap = (limit: number | undefined) => bridges.forEach((b) => b.setMaxCommandsPerSecond(limit));
    if (CAP) cap(CAP);
    // One sequence of the mix across the phases (settle, measured, billed): a phase goes on where
    // the last stopped instead of replaying its likes and follows (a repeat changes nothing and
    // costs less).
    let sent = 0;
    const scenario: Scenario = { ...MIXED, request: (_i, f) => MIXED.request(sent++, f) };
    const common = { baseUrl: bench.url, scenario, fixtures, concurrency: CONCURRENCY, capped: CAP > 0 };
    await measureScenario({ ...common, durationMs: SETTLE_MS });
    const refusedBefore = bridges.map((b) => b.rateLimited);
    const { result, okRps, redis } = await measureScenario({
      ...common,
      durationMs: MEASURE_MS,
      meter: stackMeter(bench.stack.databases),
      onProgress: ({ requests, errors, elapsedMs }) => process.stdout.write(`\r  ${(elapsedMs / 1000).toFixed(0).padStart(3)} s  ${requests} requests  ${errors} errors   `),
    });
    process.stdout.write("\n");
    // Per database: whether each one reached its budget (refusals) and how much of it was used.
    const refused = bridges.map((b, i) => b.rateLimited - refusedBefore[i]!);
    cap(undefined);
    const seconds = result.elapsedMs / 1000;
    const billed = redis!.byDatabase.map((d) => d.billedCommands);
    const total = billed.reduce((a, b) => a + b, 0);
    const billedPerRequest = await billedPerRequestOf(bench, scenario, fixtures);
    const redisPaidShare = total / seconds / (okRps * billedPerRequest);
    const rounds = await measureRounds(bench, secret, callers, fixtures);
    const deadLetters = await deadLettersOf(bench);
    const byScenario = Object.entries(result.byScenario)
      .map(([name, s]) => `${name} ${formatNumber((s.requests - s.errors) / seconds)}`)
      .join(", ");
    console.log(`  ok/s by part: ${byScenario}`);
    return {
      n,
      rps: okRps,
      billedPerRequest,
      redisPaidShare,
      maxDbShare: total ? Math.max(...billed) / total : 0,
      feedRounds: rounds.feed,
      batchRounds: rounds.batch,
      deadLetters,
      row: {
        N: n,
        "req/s": okRps,
        "p50 ms": result.p50Ms,
        "p99 ms": result.p99Ms,
        "billed cmds/s per database": billed.map((b) => formatNumber(b / seconds)).join(" / "),
        "billed/req": billedPerRequest,
        "redis paid": redisPaidShare.toFixed(2),
        errors: errorSummary(result),
        "refused per database": refused.join(" / "),
        "feed rounds": rounds.feed,
        "batch rounds": rounds.batch,
        "dead letters": deadLetters,
      },
    };
  } finally {
    await bench.stop();
  }
}

/**
 * The fixtures of the mix, and every user's feed and badges read once, uncapped: the measured
 * runs then start from warm timelines and badge caches at every N.
 */
async function setUp(bench: BenchWorker, callers: Callers): Promise<Fixtures> {
  const hotPosts = await createHotPosts(bench.url, callers, POSTS);
  const room = await startLiveRoom(bench.url, callers);
  let next = 0;
  const warmOne = async () => {
    for (let k = next++; k < USERS; k = next++) {
      for (const path of ["/v1/me/feed?limit=20", "/v1/me/badges?cap=99"]) {
        const res = await call(bench.url, "GET", path, callers.user(k));
        if (res.status !== 200) throw new Error(`warm-up ${path} of user ${k}: ${res.status} ${JSON.stringify(res.json)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: WARM_CONCURRENCY }, warmOne));
  return { callers, hotPost: hotPosts[0]!, hotPosts, room };
}

/**
 * Billed commands per request of the mix, uncapped (nothing refused, so nothing skipped): `BILLED_SAMPLE`
 * requests of the sequence, then the queued work they caused (follow syncs) until the bridges go
 * quiet, over every database.
 */
async function billedPerRequestOf(bench: BenchWorker, scenario: Scenario, fixtures: Fixtures): Promise<number> {
  await quiet(bench.stack, { stillMs: 500 });
  const stop = await stackMeter(bench.stack.databases).start();
  const { result } = await measureScenario({ baseUrl: bench.url, scenario, fixtures, concurrency: WARM_CONCURRENCY, durationMs: 60_000, total: BILLED_SAMPLE });
  await quiet(bench.stack, { stillMs: 500 });
  const { billedCommands } = await stop();
  if (result.errors) console.warn(`  (${result.errors} errors among the billed sample: ${errorSummary(result)})`);
  return billedCommands / result.requests;
}

/** Rounds of one warm feed page and of one batch read of 100 ids, each call alone. */
async function measureRounds(bench: BenchWorker, secret: string, callers: Callers, fixtures: Fixtures): Promise<{ feed: number; batch: number }> {
  // A reader outside the mix following 20 authors of hot posts: its page holds posts of every database.
  const reader = (await signCallers({ secret, users: 1, ttlSeconds: 3_600 })).user(0);
  for (let k = 0; k < 20; k++) {
    const res = await call(bench.url, "PUT", `/v1/me/following/${callers.userId(k)}`, reader);
    if (res.status >= 300) throw new Error(`reader's follow: ${res.status} ${JSON.stringify(res.json)}`);
  }
  await quiet(bench.stack, { stillMs: 500 });
  const feedPath = "/v1/me/feed?limit=20";
  /**
   * A call refused by validation after the caller was admitted: the isolate's deleting-users
   * snapshot (src/accounts/deleting.ts) is fresh, so the measured call does not first wait for its
   * refresh, a read the first authenticated call after 5 s idle makes (the quiet above can be that
   * long). A warm page is measured in a warm isolate.
   */
  const admitted = async (auth: string) => {
    const res = await call(bench.url, "GET", "/v1/me/feed?limit=0", auth);
    if (res.status !== 400) throw new Error(`admission warm-up: ${res.status} ${JSON.stringify(res.json)}`);
  };
  await call(bench.url, "GET", feedPath, reader); // builds or refreshes the timeline: the next read is warm
  await quiet(bench.stack, { stillMs: 500 });
  await admitted(reader); // right before: a quiet after it may outlast the snapshot again
  const feed = await roundsOf(
    bench.stack,
    () => call(bench.url, "GET", feedPath, reader),
    (json) => (json.items?.length ?? 0) > 0 || "an empty page",
    (text) => benchLog(`feed page rounds: ${text}`),
  );
  const ids = fixtures.hotPosts.slice(0, 100).join(",");
  const batchPath = `/v1/counters/post?ids=${ids}&fresh=true`;
  await call(bench.url, "GET", batchPath); // warms every counter cache the read misses
  await quiet(bench.stack, { stillMs: 500 });
  const batch = await roundsOf(bench.stack, () => call(bench.url, "GET", batchPath), (json) => json.items?.length === fixtures.hotPosts.slice(0, 100).length || "not every id");
  return { feed, batch };
}

/**
 * Feed messages kept as dead letters (Postgres `dead_letters`) by the end of the pass: the capped
 * phase's queued fan-outs and follow syncs, retried by the queue, all delivered or dead by then
 * (the phases after it run uncapped and wait for the bridges to go quiet).
 */
async function deadLettersOf(bench: BenchWorker): Promise<number> {
  const db = new pg.Client({ connectionString: bench.stack.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM dead_letters");
    return rows[0]!.n;
  } finally {
    await db.end();
  }
}

await main();
