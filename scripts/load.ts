/**
 * `npm run load -- [--url http://127.0.0.1:8787] [--scenarios likes,reads,…] [--duration 10 |
 * --requests N] [--concurrency 16] [--jwt-secret S] [--yes]`: load against a deployment — the
 * local `npm run dev` by default, or any Workers URL — one scenario after another, with a live
 * progress line and a table per scenario. Requests go through the benchmarks' closed-loop
 * generator (`runLoad`).
 *
 * It signs tokens for synthetic users, so it needs the deployment's JWT_SECRET (the local dev
 * secret by default). A non-loopback URL is refused without `--yes`: this is load.
 *
 * `--redis-databases N [--max-commands-per-second C]` loads no running deployment: it starts its
 * own fresh stack of N Redis databases (each behind its own Upstash bridge, each capped at C
 * commands/s when given) and the Worker bundled as the benches serve it, loads it, reports round
 * trips and billed commands per database, and stops it. With a cap, clients back off after a
 * refused or degraded answer and retry it (`ERROR_BACKOFF_MS`) instead of spinning on refusals;
 * `requests` then counts attempts.
 *
 * Answers that are 2xx but degraded (`"degraded":true`, `"stale":true`: served without Redis)
 * count as errors ("degraded"), and `ok/s` counts only the others.
 */
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { benchLog, formatNumber, printTable, startBenchWorker, type BenchWorker } from "./bench/harness.js";
import { devJwtSecret, DEV_WORKER_URL } from "./dev-vars.js";
import { DEV_DATA_DIR } from "./stack/postgres.js";
import { createHotPosts, isLoopback, localStackMeter, signCallers, stackMeter, startLiveRoom } from "./load/target.js";
import { DEFAULT_SCENARIOS, pickScenarios, SCENARIOS, type Scenario } from "./load/scenarios.js";
import { errorSummary, measureScenario } from "./load/measure.js";

/** Upper bounds, so a typo cannot start an endless run. */
const MAX_DURATION_S = 3_600;
const MAX_REQUESTS = 10_000_000;
const MAX_CONCURRENCY = 1_000;

const usage = `usage: npm run load -- [--url ${DEV_WORKER_URL}] [--scenarios ${SCENARIOS.map((s) => s.name).join(",")}]
       [--duration <s per scenario, default 10> | --requests <n per scenario>] [--concurrency 16]
       [--users 2000] [--posts 1] [--jwt-secret <the deployment's JWT_SECRET>] [--data-dir .data] [--yes]
   or: npm run load -- --redis-databases N [--max-commands-per-second C] [--scenarios …] [--duration …] …
       (its own fresh stack of N Redis databases and bundled Worker instead of a running deployment)`;

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    scenarios: { type: "string", default: DEFAULT_SCENARIOS.join(",") },
    duration: { type: "string" },
    requests: { type: "string" },
    concurrency: { type: "string", default: "16" },
    users: { type: "string", default: "2000" },
    posts: { type: "string", default: "1" },
    "redis-databases": { type: "string" },
    "max-commands-per-second": { type: "string" },
    "jwt-secret": { type: "string" },
    "data-dir": { type: "string", default: DEV_DATA_DIR },
    yes: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (values.help) fail("");

const ownStack = values["redis-databases"] !== undefined;
const redisDatabases = Number(values["redis-databases"] ?? 1);
const maxCommandsPerSecond = values["max-commands-per-second"] === undefined ? undefined : Number(values["max-commands-per-second"]);
if (!(Number.isInteger(redisDatabases) && redisDatabases >= 1 && redisDatabases <= 16)) fail("--redis-databases must be 1–16");
if (maxCommandsPerSecond !== undefined && !(maxCommandsPerSecond > 0)) fail("--max-commands-per-second must be a positive number");
if (maxCommandsPerSecond !== undefined && !ownStack) {
  fail("--max-commands-per-second caps the databases of the stack load starts: give --redis-databases too (a running `npm run dev` takes it itself)");
}
if (ownStack && values.url !== undefined) {
  fail("--redis-databases starts a stack of its own: leave out --url (to load a running `npm run dev -- --redis-databases N`, leave out --redis-databases)");
}
const posts = Number(values.posts);
if (!(Number.isInteger(posts) && posts >= 1 && posts <= 1_000)) fail("--posts must be 1–1000");
const givenUrl = (values.url ?? DEV_WORKER_URL).replace(/\/$/, "");
if (!/^https?:\/\//.test(givenUrl)) fail(`--url must be http(s)://…, got ${givenUrl}`);
if (!ownStack && !isLoopback(givenUrl) && !values.yes) {
  fail(`${givenUrl} is not this machine: this sends sustained load (and writes) to it. Add --yes if it is yours and you mean it.`);
}
const durationS = values.duration === undefined ? (values.requests === undefined ? 10 : MAX_DURATION_S) : Number(values.duration);
const requests = values.requests === undefined ? undefined : Number(values.requests);
const concurrency = Number(values.concurrency);
const users = Number(values.users);
if (!(durationS > 0 && durationS <= MAX_DURATION_S)) fail(`--duration must be 1–${MAX_DURATION_S} seconds`);
if (requests !== undefined && !(Number.isInteger(requests) && requests > 0 && requests <= MAX_REQUESTS)) fail(`--requests must be 1–${MAX_REQUESTS}`);
if (!(Number.isInteger(concurrency) && concurrency > 0 && concurrency <= MAX_CONCURRENCY)) fail(`--concurrency must be 1–${MAX_CONCURRENCY}`);
if (!(Number.isInteger(users) && users >= 20 && users <= 100_000)) fail("--users must be 20–100000");
if (posts > users) fail("--posts must not exceed --users (each post has its own author)");
let scenarios: Scenario[] = [];
try {
  scenarios = pickScenarios(values.scenarios!);
} catch (error) {
  fail(String((error as Error).message));
}
const secret = ownStack ? randomBytes(32).toString("hex") : (values["jwt-secret"] ?? (isLoopback(givenUrl) ? devJwtSecret() : undefined));
if (!secret) fail("--jwt-secret is required for a remote deployment (tokens are signed for synthetic users)");

let own: BenchWorker | undefined;
if (ownStack) {
  console.log(`starting a fresh stack of ${redisDatabases} Redis database${redisDatabases === 1 ? "" : "s"}` + (maxCommandsPerSecond ? ` capped at ${maxCommandsPerSecond} commands/s each` : "") + " and the bundled Worker…");
  // Capped once the fixtures exist (`run`): creating them is not what is measured.
  own = await startBenchWorker({ redisDatabases, vars: { JWT_SECRET: secret }, log: benchLog });
}
try {
  await run(own?.url ?? givenUrl);
} finally {
  await own?.stop();
}

async function run(baseUrl: string) {
  const callers = await signCallers({ secret: secret!, users, ttlSeconds: scenarios.length * durationS + 3_600 });
  const hotPosts = await createHotPosts(baseUrl, callers, posts);
  const fixtures = { callers, hotPost: hotPosts[0]!, hotPosts, room: await startLiveRoom(baseUrl, callers) };
  const meter = own ? stackMeter(own.stack.databases) : localStackMeter(baseUrl, values["data-dir"]!);
  for (const d of own?.stack.databases ?? []) d.bridge.setMaxCommandsPerSecond(maxCommandsPerSecond);
  console.log(
    `load → ${baseUrl}: ${scenarios.map((s) => s.name).join(", ")}; ${requests ?? "∞"} requests or ${durationS} s per scenario, ` +
      `${concurrency} clients, ${users} users, ${posts} hot post${posts === 1 ? "" : "s"}` +
      (meter ? `; counting Redis round trips and commands of the local stack (${redisDatabases > 1 || own ? `${redisDatabases} database${redisDatabases === 1 ? "" : "s"}` : "dev"})` : ""),
  );

  const rows: Record<string, string | number>[] = [];
  const refusals = () => (own?.stack.databases ?? []).map((d) => d.bridge.rateLimited);
  for (const scenario of scenarios) {
    const refusedBefore = refusals();
    const { result, ok, okRps, redis } = await measureScenario({
      baseUrl,
      scenario,
      fixtures,
      concurrency,
      durationMs: durationS * 1_000,
      total: requests,
      meter,
      capped: maxCommandsPerSecond !== undefined,
      onProgress: ({ requests: done, errors, elapsedMs }) =>
        process.stdout.write(`\r  ${scenario.name.padEnd(8)} ${(elapsedMs / 1000).toFixed(0).padStart(4)} s  ${String(done).padStart(8)} requests  ${formatNumber(done / (elapsedMs / 1000)).padStart(6)} req/s  ${errors} errors   `),
    });
    process.stdout.write("\n");
    const seconds = result.elapsedMs / 1000;
    rows.push({
      scenario: scenario.name,
      requests: result.requests,
      "req/s": result.rps,
      "ok/s": okRps,
      "p50 ms": result.p50Ms,
      "p90 ms": result.p90Ms,
      "p99 ms": result.p99Ms,
      errors: errorSummary(result),
      ...(redis
        ? {
            "redis round trips/req": ok ? redis.roundTrips / ok : 0,
            "billed cmds/req": ok ? redis.billedCommands / ok : 0,
            ...(redis.byDatabase.length > 1 ? { "billed cmds/s by database": redis.byDatabase.map((d) => formatNumber(d.billedCommands / seconds)).join(" / ") } : {}),
          }
        : {}),
      // Calls the budget refused; writes among them went to Postgres and answered as usual, so
      // only some show as errors.
      ...(maxCommandsPerSecond !== undefined ? { "refused by budget, by database": refusals().map((n, i) => n - refusedBefore[i]!).join(" / ") } : {}),
    });
  }
  console.log("");
  printTable(rows);
  if (meter && !own) console.log("(round trips and commands include what the dev runner's crons did meanwhile)");
}
