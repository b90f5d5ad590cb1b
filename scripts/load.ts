/**
 * `npm run load -- [--url http://127.0.0.1:8787] [--scenarios likes,reads,…] [--duration 10 |
 * --requests N] [--concurrency 16] [--jwt-secret S] [--yes]`: load against a deployment — the
 * local `npm run dev` by default, or any Workers URL — one scenario after another, with a live
 * progress line and a table per scenario. Requests go through the benchmarks' closed-loop
 * generator (`runLoad`).
 *
 * It signs tokens for synthetic users, so it needs the deployment's JWT_SECRET (the local dev
 * secret by default). A non-loopback URL is refused without `--yes`: this is load.
 */
import { parseArgs } from "node:util";
import { formatNumber, printTable, runLoad, type LoadResult } from "./bench/harness.js";
import { devJwtSecret, DEV_WORKER_URL } from "./dev-vars.js";
import { DEV_DATA_DIR } from "./stack/postgres.js";
import { createHotPost, isLoopback, localStackMeter, signCallers, startLiveRoom } from "./load/target.js";
import { pickScenarios, SCENARIOS } from "./load/scenarios.js";

/** Upper bounds, so a typo cannot start an endless run. */
const MAX_DURATION_S = 3_600;
const MAX_REQUESTS = 10_000_000;
const MAX_CONCURRENCY = 1_000;

const usage = `usage: npm run load -- [--url ${DEV_WORKER_URL}] [--scenarios ${SCENARIOS.map((s) => s.name).join(",")}]
       [--duration <s per scenario, default 10> | --requests <n per scenario>] [--concurrency 16]
       [--users 2000] [--jwt-secret <the deployment's JWT_SECRET>] [--data-dir .data] [--yes]`;

function fail(message: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    url: { type: "string", default: DEV_WORKER_URL },
    scenarios: { type: "string", default: SCENARIOS.map((s) => s.name).join(",") },
    duration: { type: "string" },
    requests: { type: "string" },
    concurrency: { type: "string", default: "16" },
    users: { type: "string", default: "2000" },
    "jwt-secret": { type: "string" },
    "data-dir": { type: "string", default: DEV_DATA_DIR },
    yes: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (values.help) fail("");

const baseUrl = values.url!.replace(/\/$/, "");
if (!/^https?:\/\//.test(baseUrl)) fail(`--url must be http(s)://…, got ${baseUrl}`);
if (!isLoopback(baseUrl) && !values.yes) {
  fail(`${baseUrl} is not this machine: this sends sustained load (and writes) to it. Add --yes if it is yours and you mean it.`);
}
const durationS = values.duration === undefined ? (values.requests === undefined ? 10 : MAX_DURATION_S) : Number(values.duration);
const requests = values.requests === undefined ? undefined : Number(values.requests);
const concurrency = Number(values.concurrency);
const users = Number(values.users);
if (!(durationS > 0 && durationS <= MAX_DURATION_S)) fail(`--duration must be 1–${MAX_DURATION_S} seconds`);
if (requests !== undefined && !(Number.isInteger(requests) && requests > 0 && requests <= MAX_REQUESTS)) fail(`--requests must be 1–${MAX_REQUESTS}`);
if (!(Number.isInteger(concurrency) && concurrency > 0 && concurrency <= MAX_CONCURRENCY)) fail(`--concurrency must be 1–${MAX_CONCURRENCY}`);
if (!(Number.isInteger(users) && users >= 20 && users <= 100_000)) fail("--users must be 20–100000");
let scenarios;
try {
  scenarios = pickScenarios(values.scenarios!);
} catch (error) {
  fail(String((error as Error).message));
}
const secret = values["jwt-secret"] ?? (isLoopback(baseUrl) ? devJwtSecret() : undefined);
if (!secret) fail("--jwt-secret is required for a remote deployment (tokens are signed for synthetic users)");

const callers = await signCallers({ secret, users, ttlSeconds: scenarios.length * durationS + 3_600 });
const fixtures = { callers, hotPost: await createHotPost(baseUrl, callers), room: await startLiveRoom(baseUrl, callers) };
const meter = localStackMeter(baseUrl, values["data-dir"]!);
console.log(
  `load → ${baseUrl}: ${scenarios.map((s) => s.name).join(", ")}; ${requests ?? "∞"} requests or ${durationS} s per scenario, ` +
    `${concurrency} clients, ${users} users` + (meter ? "; counting Redis round trips and commands of the local stack" : ""),
);

const rows: Record<string, string | number>[] = [];
for (const scenario of scenarios) {
  const stop = await meter?.start();
  const result: LoadResult = await runLoad({
    baseUrl,
    concurrency,
    durationMs: durationS * 1_000,
    total: requests,
    request: (i) => ({ ...scenario.request(i, fixtures), scenario: scenario.name }),
    onProgress: ({ requests: done, errors, elapsedMs }) =>
      process.stdout.write(`\r  ${scenario.name.padEnd(8)} ${(elapsedMs / 1000).toFixed(0).padStart(4)} s  ${String(done).padStart(8)} requests  ${formatNumber(done / (elapsedMs / 1000)).padStart(6)} req/s  ${errors} errors   `),
  });
  process.stdout.write("\n");
  const redis = await stop?.();
  const ok = result.requests - result.errors;
  rows.push({
    scenario: scenario.name,
    requests: result.requests,
    "req/s": result.rps,
    "p50 ms": result.p50Ms,
    "p90 ms": result.p90Ms,
    "p99 ms": result.p99Ms,
    errors: Object.entries(result.errorStatuses).map(([status, n]) => `${status}×${n}`).join(" ") || "0",
    ...(redis ? { "redis round trips/req": ok ? redis.roundTrips / ok : 0, "billed cmds/req": ok ? redis.billedCommands / ok : 0 } : {}),
  });
}
console.log("");
printTable(rows);
if (meter) console.log("(round trips and commands include what the dev runner's crons did meanwhile)");
