/**
 * `npm run soak -- --minutes N [--concurrency 16]`: N minutes of the mixed workload (likes,
 * follows, service increments with idempotency keys, views, badges, notifications, DMs) at full
 * speed against the local stack served as `npm run dev -- --serve` serves it (same stack, same
 * workerd options, same cron runner firing crons meanwhile), in a throwaway data directory.
 *
 * Every 30 s it samples the resident memory of the workerd processes; at the end it stops the
 * crons, fires one flush, and compares the counters, notification and DM totals the API answers
 * with what the acknowledged writes must have produced. Last line:
 *   RESULT soak_minutes=<n> requests=<n> errors=<n> max_workerd_mb=<n> counters_exact=<true|false>
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { formatNumber, printTable, runLoad } from "./bench/harness.js";
import { startStack } from "./stack/index.js";
import { startWorkerd } from "./stack/workerd.js";
import { startCronRunner } from "./dev/cron-runner.js";
import { descendantsNamed } from "./dev/leftovers.js";
import { createHotPost, signCallers } from "./load/target.js";
import { expectedAfter, mismatches, mixedRequest, observed } from "./load/mixed.js";
import { CRON_SCHEDULES } from "../src/cron.js";

const MAX_MINUTES = 240;
const SAMPLE_EVERY_MS = 30_000;
const USERS = 2_000;

const { values } = parseArgs({ options: { minutes: { type: "string", default: "10" }, concurrency: { type: "string", default: "16" } } });
const minutes = Number(values.minutes);
const concurrency = Number(values.concurrency);
if (!(minutes > 0 && minutes <= MAX_MINUTES) || !(Number.isInteger(concurrency) && concurrency > 0 && concurrency <= 256)) {
  console.error(`usage: npm run soak -- --minutes <0-${MAX_MINUTES}> [--concurrency <1-256>]`);
  process.exit(2);
}
const log = (line: string) => console.log(`[soak] ${line}`);

// Dev mode (persistent Redis and Postgres, as under `npm run dev`), in a directory of its own so a
// running `npm run dev` and its .data are never touched. Postgres runs as an unprivileged user
// when we are root: it must be able to enter the directory.
const dataDir = mkdtempSync(join(tmpdir(), "ce-soak-"));
chmodSync(dataDir, 0o755);
const stack = await startStack({ mode: "dev", dataDir, log: process.env.SOAK_DEBUG ? log : () => {} });
const jwtSecret = randomBytes(32).toString("hex");
const worker = await startWorkerd({
  vars: { UPSTASH_REDIS_REST_URL: stack.restUrl, UPSTASH_REDIS_REST_TOKEN: stack.restToken, DATABASE_URL: stack.databaseUrl, NEON_WS_PROXY: stack.wsProxy, NEON_HTTP_PROXY: stack.httpProxy, JWT_SECRET: jwtSecret },
  socket: "entry",
  // The Worker's one log line per request is drained, as a terminal would show and forget it.
  onOutput: (chunk, stream) => stream === "stderr" && process.env.SOAK_DEBUG && process.stderr.write(chunk),
});
const crons = startCronRunner({ fire: async (expression) => (await worker.scheduled(expression), 200), log });

const workerdMb = () =>
  descendantsNamed(process.pid, ["workerd"]).reduce((sum, { pid }) => {
    try {
      return sum + Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)![1]) / 1024;
    } catch {
      return sum;
    }
  }, 0);

let exitCode = 1;
try {
  const callers = await signCallers({ secret: jwtSecret, users: USERS, ttlSeconds: minutes * 60 + 3_600 });
  const fixtures = { callers, hotPost: await createHotPost(worker.url, callers), runId: randomBytes(4).toString("hex") };
  log(`${minutes} min of the mixed workload, ${concurrency} clients, ${USERS} users → ${worker.url}`);

  let latest = { requests: 0, errors: 0, elapsedMs: 0 };
  const samples: number[] = [workerdMb()];
  log(`0.0 min  workerd ${samples[0]!.toFixed(0)} MB`);
  const sampler = setInterval(() => {
    samples.push(workerdMb());
    const rate = latest.requests / (latest.elapsedMs / 1000);
    log(`${(latest.elapsedMs / 60_000).toFixed(1)} min  ${latest.requests} requests  ${formatNumber(rate)} req/s  ${latest.errors} errors  workerd ${samples.at(-1)!.toFixed(0)} MB`);
  }, SAMPLE_EVERY_MS);
  const result = await runLoad({
    baseUrl: worker.url,
    concurrency,
    durationMs: minutes * 60_000,
    request: (i) => mixedRequest(i, fixtures),
    onProgress: (progress) => (latest = progress),
  });
  clearInterval(sampler);
  samples.push(workerdMb());

  crons.stop();
  await worker.scheduled(CRON_SCHEDULES.flush);
  const wrong = mismatches(expectedAfter(result.requests, fixtures), await observed(worker.url, fixtures));

  printTable(
    Object.entries(result.byScenario).map(([scenario, s]) => ({
      scenario,
      requests: s.requests,
      "req/s": s.rps,
      "p50 ms": s.p50Ms,
      "p90 ms": s.p90Ms,
      "p99 ms": s.p99Ms,
      errors: Object.entries(s.errorStatuses).map(([status, n]) => `${status}×${n}`).join(" ") || "0",
    })),
  );
  log(`workerd MB every 30 s: ${samples.map((mb) => mb.toFixed(0)).join(" ")}`);
  for (const line of wrong.slice(0, 20)) log(`mismatch: ${line}`);
  if (wrong.length > 20) log(`… and ${wrong.length - 20} more mismatches`);
  console.log(
    `RESULT soak_minutes=${minutes} requests=${result.requests} errors=${result.errors} max_workerd_mb=${Math.round(Math.max(...samples))} counters_exact=${wrong.length === 0}`,
  );
  exitCode = result.errors === 0 && wrong.length === 0 ? 0 : 1;
} finally {
  crons.stop();
  await worker.stop();
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
