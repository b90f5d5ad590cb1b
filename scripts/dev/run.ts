/**
 * What `npm run dev` runs (started by `scripts/dev.ts` in a process group of its own): the local
 * stack (Redis, Postgres, Upstash bridge, Neon proxy), migrations, the Worker, and a cron runner.
 *
 * - default: `wrangler dev` (rebuilds on save, DevTools, source-mapped logs);
 * - `--serve`: the bundled Worker in workerd through Miniflare's API, with no dev proxy in front
 *   (production-like: for load and soak work; docs/development.md says why both exist).
 * - `--redis-databases N` (default 1): N redis-servers, each behind its own Upstash bridge, and
 *   the Worker configured with `UPSTASH_REDIS_DATABASES` (docs/scale.md); their data lives in
 *   `<data-dir>/redis-of-N/<index>/` (N = 1 keeps `<data-dir>/redis/`).
 * - `--max-commands-per-second C`: each database's command budget, answered past it as Upstash
 *   answers (`ERR max requests limit exceeded`), so one machine shows where a database stops.
 * - `--far-region-ms R`: the Worker as if R ms (round trip) from the primary region: each database
 *   read through a replica near it, writes and Postgres R ms away (docs/regions.md, "Local far-region stack"),
 *   and the Worker run as on an Upstash Global database (`REDIS_READ_REGIONS = on`);
 *   `--read-regions off` compares with the single-region mode over the same stack.
 * - `--var NAME=VALUE` (repeatable): any Worker variable, over everything else (`scripts/dev/worker-vars.ts`).
 *
 * SIGTERM, or the end of stdin (the supervising `scripts/dev.ts` is gone, however it died), flushes
 * buffered counters (fires the flush cron), then stops everything it started. A run killed hard
 * itself is cleaned up by the next start (`leftovers.ts`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startStack } from "../stack/index.js";
import { stopChild } from "../stack/processes.js";
import { REPO_ROOT } from "../stack/migrate.js";
import { DEV_DATA_DIR, redactPassword } from "../stack/postgres.js";
import { startWorkerd, type RunningWorker } from "../stack/workerd.js";
import { DEV_JWT_SECRET, readDevVars } from "../dev-vars.js";
import { DEV_ISSUER, devKeysPath, devSigningKeys, publicJwks } from "../dev-keys.js";
import { devPushKeysPath, devPushVars } from "../dev-push-keys.js";
import { describePush } from "../stack/push/index.js";
import { DEV_JWKS_PATH } from "../../src/lib/dev-jwks.js";
import { fireCron } from "../fire-cron.js";
import { startCronRunner } from "./cron-runner.js";
import { cleanLeftovers, descendantsNamed, devRecordPath, isOurs, removeDevRecord, writeDevRecord, type DevRecord, type StartedProcess } from "./leftovers.js";
import { CRON_SCHEDULES } from "../../src/cron.js";
import { devWorkerVars, parseReadRegionsFlag, parseVarFlags } from "./worker-vars.js";

const { values: flags } = parseArgs({
  options: {
    serve: { type: "boolean", default: false },
    port: { type: "string", default: "8787" },
    "data-dir": { type: "string", default: DEV_DATA_DIR },
    "redis-databases": { type: "string", default: "1" },
    "max-commands-per-second": { type: "string" },
    "far-region-ms": { type: "string" },
    "read-regions": { type: "string" },
    var: { type: "string", multiple: true, default: [] },
  },
});
const PORT = Number(flags.port);
const REDIS_DATABASES = Number(flags["redis-databases"]);
const MAX_COMMANDS_PER_SECOND = flags["max-commands-per-second"] === undefined ? undefined : Number(flags["max-commands-per-second"]);
if (!Number.isInteger(REDIS_DATABASES) || REDIS_DATABASES < 1 || REDIS_DATABASES > 16) {
  console.error("--redis-databases must be an integer from 1 to 16");
  process.exit(2);
}
const FAR_REGION_MS = flags["far-region-ms"] === undefined ? undefined : Number(flags["far-region-ms"]);
if (FAR_REGION_MS !== undefined && !(Number.isFinite(FAR_REGION_MS) && FAR_REGION_MS >= 0)) {
  console.error("--far-region-ms must be a number of milliseconds ≥ 0");
  process.exit(2);
}
if (MAX_COMMANDS_PER_SECOND !== undefined && !(MAX_COMMANDS_PER_SECOND > 0)) {
  console.error("--max-commands-per-second must be a positive number");
  process.exit(2);
}
let VAR_OVERRIDES: Record<string, string>;
let READ_REGIONS: ReturnType<typeof parseReadRegionsFlag>;
try {
  VAR_OVERRIDES = parseVarFlags(flags.var ?? []);
  READ_REGIONS = parseReadRegionsFlag(flags["read-regions"]);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const DATA_DIR = resolve(flags["data-dir"]!);
const WORKER_URL = `http://127.0.0.1:${PORT}`;
/** Longest wait for the flush on the way out; then the deltas simply stay in Redis' file. */
const FLUSH_ON_STOP_MS = 30_000;
const log = (line: string) => console.log(`[dev] ${line}`);

mkdirSync(DATA_DIR, { recursive: true });
const recordPath = devRecordPath(DATA_DIR);
const leftovers = await cleanLeftovers(recordPath);
if (leftovers.previousPid !== undefined) {
  log(
    `the last dev run (pid ${leftovers.previousPid}) did not shut down: ` +
      (leftovers.stopped.length ? `stopped what it left running: ${leftovers.stopped.join(", ")}` : "nothing of it was still running"),
  );
}

if (!(await portIsFree(PORT))) {
  log(`port ${PORT} is taken by another program (\`ss -ltnp 'sport = :${PORT}'\` shows which); stop it or pass --port`);
  process.exit(1);
}

const started: StartedProcess[] = [];
let stackInfo: DevRecord["stack"];
const startedAt = new Date().toISOString();
const record = () => writeDevRecord(recordPath, { pid: process.pid, port: PORT, startedAt, processes: started, stack: stackInfo });
record(); // from here on a hard kill leaves a record the next start can act on

const devVars = readDevVars();
// Every push provider configured with generated dev keys (scripts/dev-push-keys.ts), so each kind
// of device registers locally; `.dev.vars` entries of the same names win. The stack's local push
// services check what the Worker signs with them.
const pushCredentials = Object.fromEntries(Object.entries(await devPushVars(DATA_DIR)).map(([name, value]) => [name, devVars[name] ?? value])) as Awaited<ReturnType<typeof devPushVars>>;

const stack = await startStack({
  mode: "dev",
  pushCredentials,
  dataDir: DATA_DIR,
  log,
  // Restarts included: a server the stack starts again after it died replaces its dead pid in the
  // record (which the kernel may hand to another program's server).
  onSpawn: (pid, what) => {
    started.splice(0, started.length, ...started.filter((entry) => isOurs(entry)), { pid, what, match: what });
    record();
  },
  redisDatabases: REDIS_DATABASES,
  maxCommandsPerSecond: MAX_COMMANDS_PER_SECOND,
  farRegionMs: FAR_REGION_MS,
});
stackInfo = {
  redisUrl: stack.redisUrl,
  restUrl: stack.restUrl,
  restToken: stack.restToken,
  databases: stack.databases.map((d) => ({ redisUrl: d.redisUrl, restUrl: d.restUrl, restToken: d.restToken })),
  // Postgres, for `npm run reshard` (which flushes the counters while it moves slots).
  databaseUrl: stack.databaseUrl,
};
record();
const jwtSecret = devVars.JWT_SECRET ?? DEV_JWT_SECRET;
/** Any local page may call the Worker (`.dev.vars` CORS_ORIGINS overrides). */
const DEV_CORS_ORIGINS = "http://localhost:*,http://127.0.0.1:*";

const stackVars: Record<string, string> = {
  ...stack.redisBindings,
  DATABASE_URL: stack.databaseUrl,
  NEON_WS_PROXY: stack.wsProxy,
  NEON_HTTP_PROXY: stack.httpProxy,
  JWT_SECRET: jwtSecret,
  // Unset, the Worker derives the X-Consistency-Token key from JWT_SECRET (src/lib/consistency-signing.ts).
  ...(devVars.CONSISTENCY_TOKEN_SECRET ? { CONSISTENCY_TOKEN_SECRET: devVars.CONSISTENCY_TOKEN_SECRET } : {}),
  CORS_ORIGINS: devVars.CORS_ORIGINS ?? DEV_CORS_ORIGINS,
  // A local identity provider (scripts/dev-keys.ts): the Worker serves its JWKS and verifies
  // `npm run token -- --alg ES256` tokens through it, as it would Auth0's or Clerk's.
  ENVIRONMENT: "development",
  DEV_JWKS: JSON.stringify(publicJwks(await devSigningKeys(DATA_DIR))),
  JWT_JWKS_URL: `${WORKER_URL}${DEV_JWKS_PATH}`,
  JWT_ISSUER: DEV_ISSUER,
  JWT_ROLE_CLAIM: "role admin=admin,service=service",
  // The push credentials above, FCM's token_uri and FCM_API_URL/APNS_API_URL pointing at the
  // stack's local push services (scripts/stack/push), and WEBPUSH_LOCAL_ORIGINS, their Web Push
  // origins, which endpoints may point at in development.
  ...stack.push.vars,
};
const vars = devWorkerVars({ base: stackVars, farRegionMs: FAR_REGION_MS, readRegions: READ_REGIONS, overrides: VAR_OVERRIDES });

// Each push a local push service answered, as it arrives: kind, device, title, badge (or why refused).
stack.push.received.onReceived((push) => console.log(describePush(push)));

/** How the running Worker is stopped and how a cron is fired on it, whichever way it runs. */
interface Served {
  fire(expression: string): Promise<number>;
  stop(): Promise<void>;
  exited: Promise<number>;
}

const served: Served = flags.serve ? await serveBundle() : startWranglerDev();
started.push(...descendantsNamed(process.pid, ["workerd"]));
record();

console.log(
  [
    "",
    `  Local stack (${flags.serve ? "--serve: bundled Worker in workerd, no dev proxy" : "wrangler dev"})`,
    `    Postgres        ${redactPassword(stack.databaseUrl)}`,
    ...(REDIS_DATABASES === 1
      ? [`    Redis           ${stack.redisUrl} (append-only file in ${join(DATA_DIR, "redis")})`, `    Upstash bridge  ${stack.restUrl}  (token ${stack.restToken})`]
      : stack.databases.map((d, i) => `    Redis db ${i}      ${d.redisUrl} behind ${d.restUrl} (token ${d.restToken}; data in ${join(DATA_DIR, `redis-of-${REDIS_DATABASES}`, String(i))})`)),
    ...(MAX_COMMANDS_PER_SECOND === undefined ? [] : [`    Budget          ${MAX_COMMANDS_PER_SECOND} commands/s per database`]),
    ...(FAR_REGION_MS === undefined
      ? []
      : [`    Far region      the Worker is ${FAR_REGION_MS} ms (round trip) from the primary: the bridge above is a read region's (replica ${stack.databases.map((d) => d.readRegion!.replicaUrl).join(", ")}), Postgres ${FAR_REGION_MS} ms away`]),
    ...(vars.REDIS_READ_REGIONS === undefined
      ? []
      : [`    Read regions    REDIS_READ_REGIONS=${vars.REDIS_READ_REGIONS}${vars.REDIS_READ_REGIONS === "on" ? " (writes answer X-Consistency-Token; --read-regions off to compare)" : ""}`]),
    ...(Object.keys(VAR_OVERRIDES).length === 0 ? [] : [`    --var           ${Object.keys(VAR_OVERRIDES).join(", ")}`]),
    `    Neon WS proxy   ${stack.wsProxy}`,
    `    Neon HTTP SQL   ${stack.httpProxy}`,
    `    Worker          ${WORKER_URL}`,
    `    JWT secret      ${jwtSecret === DEV_JWT_SECRET ? "dev default (set JWT_SECRET in .dev.vars)" : "from .dev.vars"}`,
    `    JWKS            ${vars.JWT_JWKS_URL} (keys in ${devKeysPath(DATA_DIR)}; npm run token -- --sub 42 --alg ES256)`,
    `    CORS origins    ${vars.CORS_ORIGINS}`,
    `    Push keys       ${devPushKeysPath(DATA_DIR)} (VAPID public key ${vars.VAPID_PUBLIC_KEY})`,
    `    Push services   Web Push ${stack.push.webPush.url} (web-push-testing), FCM ${stack.push.fcm.url}, APNs ${stack.push.apns.url}`,
    `                    control ${stack.push.controlUrl} (POST /webpush/subscriptions; GET /received)`,
    `    Crons           ${Object.entries(CRON_SCHEDULES).map(([name, expr]) => `${name} "${expr}"`).join(", ")} (UTC)`,
    `    Data            ${DATA_DIR}`,
    "",
  ].join("\n"),
);

const crons = startCronRunner({ fire: served.fire, log });

let stopping = false;
async function shutdown(exitCode: number, workerGone = false): Promise<never> {
  if (stopping) return new Promise<never>(() => {});
  stopping = true;
  log("stopping…");
  crons.stop();
  if (!workerGone) {
    // Increments wait in Redis for the per-minute flush; apply them now so Postgres holds them too.
    const flushed = await Promise.race([
      served.fire(CRON_SCHEDULES.flush).then((status) => `flushed counters (flush cron → ${status})`),
      new Promise<string>((r) => setTimeout(() => r("flush did not finish in time: pending deltas stay in Redis' file"), FLUSH_ON_STOP_MS)),
    ]).catch((error: unknown) => `flush failed (${String(error)}): pending deltas stay in Redis' file`);
    log(flushed);
  }
  await served.stop();
  await stack.stop();
  removeDevRecord(recordPath);
  log("stopped");
  process.exit(exitCode);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
process.on("SIGHUP", () => void shutdown(0));
// The supervisor holds our stdin's other end: EOF means it is gone (killed, terminal closed).
process.stdin.on("end", () => void shutdown(0));
process.stdin.on("error", () => void shutdown(0));
process.stdin.resume();
void served.exited.then((code) => shutdown(code, true));

/** `wrangler dev` on PORT, in a process group of its own under an orphan guard. */
function startWranglerDev(): Served {
  // Own process group (detached): Ctrl-C reaches this script, which flushes through wrangler
  // before stopping it; stopping the group takes wrangler AND the workerd it spawns. The guard
  // stops that group if this script dies without doing so (its stdin is our pipe).
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(REPO_ROOT, "scripts/dev/orphan-guard.mjs"),
      join(REPO_ROOT, "node_modules/.bin/wrangler"),
      "dev",
      "--port",
      String(PORT),
      "--ip",
      "127.0.0.1",
      "--test-scheduled",
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    {
      cwd: REPO_ROOT,
      stdio: ["pipe", "inherit", "inherit"],
      detached: true,
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    },
  );
  started.push({ pid: child.pid!, what: "wrangler", match: "orphan-guard", group: true });
  return {
    fire: async (expression) => (await fireCron(expression, WORKER_URL)).status,
    // The whole group, also when wrangler already exited, so no workerd is left behind.
    stop: () => stopChild(child, { group: true, graceMs: 5_000 }),
    exited: new Promise((r) => child.once("exit", (code) => r(code ?? 1))),
  };
}

/** The bundled Worker in workerd through Miniflare's API, on PORT behind its entry worker. */
async function serveBundle(): Promise<Served> {
  let worker: RunningWorker;
  try {
    worker = await startWorkerd({
      vars,
      port: PORT,
      // The entry worker adds /cdn-cgi/handler/scheduled, so `npm run cron` works in this mode too.
      socket: "entry",
      // This script flushes through workerd on SIGINT/SIGTERM first, then stops it itself.
      callerHandlesSignals: true,
      onOutput: (chunk, stream) => (stream === "stdout" ? process.stdout : process.stderr).write(chunk),
    });
  } catch (error) {
    await stack.stop();
    removeDevRecord(recordPath);
    throw error;
  }
  return {
    fire: async (expression) => {
      await worker.scheduled(expression);
      return 200;
    },
    stop: () => worker.stop(),
    // Miniflare restarts nothing by itself and reports no exit: a dead workerd shows as failed requests.
    exited: new Promise<number>(() => {}),
  };
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
