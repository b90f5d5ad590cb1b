/**
 * `npm run reshard -- --to M`: moves the deployment's Redis keys from N to M databases while the
 * Worker serves (`scripts/reshard/core.ts`; the operator's steps: docs/resharding.md).
 *
 *   --to M                 the number of databases after the reshard (required)
 *   --databases JSON       every database of the larger setting, database 0 first, as the secret
 *                          UPSTASH_REDIS_DATABASES lists them (also read from that variable);
 *                          default: the running dev stack's (`<data-dir>/dev.pid`)
 *   --data-dir DIR         the dev stack's data directory, as given to `npm run dev` (default .data)
 *   --prepare              only record the plan (the first run does that anyway, and stops)
 *   --slots-per-step K     slots moved per step (default 128)
 *
 * Postgres (the counters' flush): DATABASE_URL, or the running dev stack's. The first run records
 * the plan and stops: deploy the Worker then (with the M-database setting when growing), so that
 * every isolate starts by reading the plan; the next run moves the slots. A run that stops half
 * way (Ctrl-C, a crash, a database down) is resumed by running the command again.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { RESHARD_STATE_KEY, parseReshardState, type DatabaseCredentials } from "../src/lib/redis-topology.js";
import type { Database } from "../src/lib/db.js";
import { DEFAULT_SLOTS_PER_STEP, reshard } from "./reshard/core.js";
import { devRecordPath, readDevRecord } from "./dev/leftovers.js";
import { DEV_DATA_DIR } from "./stack/postgres.js";
import { Redis } from "@upstash/redis/cloudflare";

const { values: flags } = parseArgs({
  options: {
    to: { type: "string" },
    databases: { type: "string" },
    prepare: { type: "boolean", default: false },
    "slots-per-step": { type: "string" },
    "data-dir": { type: "string", default: DEV_DATA_DIR },
  },
});

function fail(message: string): never {
  console.error(`reshard: ${message}`);
  process.exit(2);
}

const to = Number(flags.to);
if (!Number.isInteger(to) || to < 1) fail("usage: npm run reshard -- --to M [--databases JSON] [--prepare] [--slots-per-step K]");
const slotsPerStep = flags["slots-per-step"] === undefined ? DEFAULT_SLOTS_PER_STEP : Number(flags["slots-per-step"]);
if (!Number.isInteger(slotsPerStep) || slotsPerStep < 1) fail("--slots-per-step must be a positive integer");

const record = readDevRecord(devRecordPath(resolve(flags["data-dir"]!)));
const databases = databasesFromSetting(flags.databases ?? process.env.UPSTASH_REDIS_DATABASES) ?? devDatabases();
const databaseUrl = process.env.DATABASE_URL ?? record?.stack?.databaseUrl;
if (!databaseUrl) fail("set DATABASE_URL (the counters' pending deltas are flushed to Postgres during the move)");

function databasesFromSetting(raw: string | undefined): DatabaseCredentials[] | undefined {
  if (!raw?.trim()) return undefined;
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    fail('--databases (or UPSTASH_REDIS_DATABASES) is not valid JSON: expected [{"url":"https://…","token":"…"}, …]');
  }
  if (!Array.isArray(list) || list.some((d) => typeof d?.url !== "string" || typeof d?.token !== "string")) fail("--databases must be a JSON array of {url, token}, database 0 first");
  return list as DatabaseCredentials[];
}

function devDatabases(): DatabaseCredentials[] {
  const stack = record?.stack;
  if (!stack) fail(`no databases given: pass --databases (or UPSTASH_REDIS_DATABASES), or start \`npm run dev -- --redis-databases N\` (no dev stack recorded in ${flags["data-dir"]})`);
  return (stack.databases ?? [{ restUrl: stack.restUrl, restToken: stack.restToken }]).map((d) => ({ url: d.restUrl, token: d.restToken }));
}

const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
// The counters' store speaks to Postgres through `db.$client.query`, which a node-postgres pool answers alike.
const db = { $client: pool } as unknown as Database;
const log = (line: string) => console.log(`[reshard ${new Date().toISOString()}] ${line}`);
let code = 0;
let planned = false;
try {
  const state = parseReshardState(await new Redis({ url: databases[0]!.url, token: databases[0]!.token, enableTelemetry: false }).get(RESHARD_STATE_KEY));
  // A first run only records the plan: isolates learn of a reshard when they start, so the Worker
  // must be deployed between the plan and the move.
  planned = !!state && state.phase !== "done";
  const prepareOnly = flags.prepare || !planned;
  const report = await reshard({ databases, db, log, slotsPerStep }, { to, prepareOnly });
  log(JSON.stringify(report));
  if (report.phase === "prepared") {
    log(
      report.to > report.from
        ? `next: deploy the Worker with the ${report.to} databases in UPSTASH_REDIS_DATABASES (npx wrangler secret put UPSTASH_REDIS_DATABASES), then run \`npm run reshard -- --to ${to}\` again`
        : `next: deploy the Worker again (npx wrangler deploy; the setting stays at ${report.from} databases until the move is done), then run \`npm run reshard -- --to ${to}\` again`,
    );
  }
} catch (error) {
  console.error(`reshard: ${error instanceof Error ? error.message : String(error)}`);
  if (planned) console.error("reshard: nothing is lost; the step that stopped stays degraded until the same command is run again, which resumes it");
  code = 1;
} finally {
  await pool.end();
}
process.exit(code);
