/**
 * `npm run erase:check -- --user ID [--posts ID,ID…] [--databases JSON] [--data-dir DIR]`
 *
 * Searches every Redis database (every key's name, members, fields and values) and every Postgres
 * table for a user id and their post ids — what an account deletion must leave behind: nothing but
 * the `account_deletions` row and the known leftovers docs/privacy.md lists (src/accounts/scan.ts,
 * the same check as the erasure test). The post ids: `--posts`, else those the posts table still
 * holds for the user (none once a deletion removed them: pass them if you noted them before).
 * Databases: `--databases` (or UPSTASH_REDIS_DATABASES), else the running dev stack's
 * (`<data-dir>/dev.pid`); Postgres: DATABASE_URL, else the dev stack's. Exits 1 when something
 * unexpected names the user, 0 otherwise; read-only.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { classify, KEPT_RECORDS, KNOWN_LEFTOVERS, restRedis, scanPostgres, scanRedis, type Finding } from "../src/accounts/scan.js";
import { isId } from "../src/lib/ids.js";
import type { DatabaseCredentials } from "../src/lib/redis-topology.js";
import { devRecordPath, readDevRecord } from "./dev/leftovers.js";
import { DEV_DATA_DIR } from "./stack/postgres.js";

const { values: flags } = parseArgs({
  options: {
    user: { type: "string" },
    posts: { type: "string" },
    databases: { type: "string" },
    "data-dir": { type: "string", default: DEV_DATA_DIR },
  },
});

function fail(message: string): never {
  console.error(`erase:check: ${message}`);
  process.exit(2);
}

const userId = flags.user ?? "";
if (!isId(userId)) fail("usage: npm run erase:check -- --user ID [--posts ID,ID…] [--databases JSON]");
const given = (flags.posts ?? "").split(",").map((s) => s.trim()).filter(Boolean);
if (given.some((id) => !isId(id))) fail("--posts must be post ids, comma-separated");

const record = readDevRecord(devRecordPath(resolve(flags["data-dir"]!)));
const raw = flags.databases ?? process.env.UPSTASH_REDIS_DATABASES;
let databases: DatabaseCredentials[];
if (raw?.trim()) {
  try {
    databases = JSON.parse(raw) as DatabaseCredentials[];
  } catch {
    fail('--databases is not valid JSON: expected [{"url":"https://…","token":"…"}, …]');
  }
} else if (record?.stack) {
  databases = (record.stack.databases ?? [{ restUrl: record.stack.restUrl, restToken: record.stack.restToken }]).map((d) => ({ url: d.restUrl, token: d.restToken }));
} else if (process.env.UPSTASH_REDIS_REST_URL && process.env.UPSTASH_REDIS_REST_TOKEN) {
  databases = [{ url: process.env.UPSTASH_REDIS_REST_URL, token: process.env.UPSTASH_REDIS_REST_TOKEN }];
} else {
  fail(`no Redis given: pass --databases, set UPSTASH_REDIS_REST_URL/TOKEN, or start \`npm run dev\` (no dev stack recorded in ${flags["data-dir"]})`);
}
const databaseUrl = process.env.DATABASE_URL ?? record?.stack?.databaseUrl;
if (!databaseUrl) fail("set DATABASE_URL (or start `npm run dev`)");

const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const query = async <Row>(text: string, params: unknown[]) => (await pool.query(text, params)).rows as Row[];
let code = 0;
try {
  const stored = await query<{ id: string }>("SELECT id::text AS id FROM posts WHERE author_id = $1", [userId]);
  const postIds = [...new Set([...given, ...stored.map((r) => r.id)])];
  const found: Finding[] = [];
  for (const [index, db] of databases.entries()) found.push(...(await scanRedis(restRedis(db.url, db.token), index, userId, postIds)));
  found.push(...(await scanPostgres(query, userId, postIds)));
  const kept = await query<{ id: string; status: string; finished_at: Date | null }>("SELECT id::text AS id, status, finished_at FROM account_deletions WHERE user_id = $1 ORDER BY account_deletions.id", [userId]);
  const { kept: records, known, unexpected } = classify(found);
  console.log(`user ${userId}, ${postIds.length} post id(s), ${databases.length} Redis database(s)`);
  console.log(`deletions: ${kept.length === 0 ? "none" : kept.map((d) => `${d.id} ${d.status}${d.finished_at ? ` ${d.finished_at.toISOString()}` : ""}`).join(", ")}`);
  for (const f of records) console.log(`kept: ${f.place}  — ${KEPT_RECORDS.find((k) => k.place.test(f.place))!.why}`);
  for (const f of known) console.log(`known leftover: ${f.place}  — ${KNOWN_LEFTOVERS.find((k) => k.place.test(f.place))!.why}`);
  for (const f of unexpected) console.log(`LEFTOVER: ${f.place}  ${f.sample}`);
  console.log(`RESULT erase_leftovers=${unexpected.length} known_leftovers=${known.length} kept_records=${records.length}`);
  code = unexpected.length > 0 ? 1 : 0;
} catch (error) {
  console.error(`erase:check: ${error instanceof Error ? error.message : String(error)}`);
  code = 2;
} finally {
  await pool.end();
}
process.exit(code);
