/**
 * `npm run bench:erase [-- --databases 1,3]`: an account deletion at size, while others keep posting
 * and following, and the export of the same account first.
 *
 * Per N (a fresh stack each): a user with 5,000 posts, 20,000 followers, 5,000 likes given (on
 * followees' posts) and 1,000 followees, seeded in Postgres with consistent counter rows, made a
 * big account by the per-minute scan as a real one would be. Others' steady mix runs throughout:
 * a post every MIX_POST_MS by one of MIX_AUTHORS authors (fan-out measured from the publish to the
 * post in each sampled follower's timeline) and a follow every MIX_FOLLOW_MS.
 *
 * - `fanout_p99_ms_before`: the mix alone for BEFORE_MS; `fanout_p99_ms_during`: from the delete
 *   request to the deletion's end. Target: during ≤ 1.5 × before.
 * - `erase_seconds`: the deletion's row, asked → finished (the first step waits
 *   ERASE_START_DELAY_SECONDS, included). `erase_billed_commands`: Redis commands billed over the
 *   deletion, less the mix's own rate measured before times the deletion's length.
 * - `erase_leftovers`: what the erasure check (src/accounts/scan.ts, as `npm run erase:check`)
 *   finds on every database and every table beyond the kept records and the known leftovers.
 * - `counters_wrong`: after a flush, every other user's and post's counter the deletion moved
 *   (the followers' `following`, the followees' `followers` and `likes_received`, the liked posts'
 *   `likes`), as the API reads them and as Postgres holds them, against a count of the rows.
 * - `export_records_per_s`, `export_peak_rss_mb`: the user's export read as a client would, the
 *   Worker process' peak resident memory sampled meanwhile; `export_empty_peak_rss_mb` the same
 *   for an account with nothing, just before. Target: within 50 MB of it.
 *
 * BENCH_ERASE_SCALE=0.1 runs a tenth of every size (a quick check of the script, not a figure).
 */
import { Redis as IORedis } from "ioredis";
import { performance } from "node:perf_hooks";
import { classify, restRedis, scanPostgres, scanRedis } from "../../src/accounts/scan";
import { ERASE_START_DELAY_SECONDS } from "../../src/accounts/deletion";
import { DEFAULT_BIG_ACCOUNT_FOLLOWERS, feedKeys, timelineMember } from "../../src/feed/keys";
import { databaseOf } from "../../src/lib/redis-topology";
import { billedCommandsBetween, benchLog, formatNumber, percentile, printTable, redisCommandStats, rssBytes, runAtDatabases, startBenchWithClients, phaseTimer, workerdPid } from "./harness";
import { call } from "../load/target";

const SCALE = Number(process.env.BENCH_ERASE_SCALE ?? 1);
const sized = (n: number) => Math.max(1, Math.round(n * SCALE));
const POSTS = sized(5_000);
const FOLLOWERS = sized(20_000);
const LIKES = sized(5_000);
const FOLLOWEES = sized(1_000);
/** Likes other users gave the user's posts (the counters eraser removes them with the posts). */
const LIKES_RECEIVED = sized(2_000);

const USER = "9000000";
const EMPTY_USER = "9000001";
const FOLLOWER_BASE = 1_000_000;
const FOLLOWEE_BASE = 2_000_000;
const MIX_AUTHOR_BASE = 3_000_000;
const MIX_FOLLOWER_BASE = 3_100_000;
const MIX_FOLLOWING_BASE = 5_000_000;
const MIX_AUTHORS = 10;
const MIX_FOLLOWERS = 200;
/** Followers of each mix author whose timelines are built and watched for its posts. */
const MIX_SAMPLED = 10;
const MIX_POST_MS = 500;
const MIX_FOLLOW_MS = 1_000;
const BEFORE_MS = Number(process.env.BENCH_ERASE_BEFORE_MS ?? 60_000);
const ERASE_TIMEOUT_MS = 60 * 60_000;

type Db = { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

async function seed(db: Db): Promise<void> {
  // The followees' posts (5 each) are what the user liked; then the user's own posts.
  const perFollowee = Math.ceil(LIKES / FOLLOWEES);
  await db.query(`INSERT INTO posts (author_id, text) SELECT $1::bigint + g / $2, 'a followee''s post ' || g FROM generate_series(0, $3 - 1) g`, [FOLLOWEE_BASE, perFollowee, FOLLOWEES * perFollowee]);
  await db.query(`INSERT INTO posts (author_id, text, created_at) SELECT $1::bigint, 'the user''s post ' || g, now() - make_interval(mins => $2 - g) FROM generate_series(1, $2) g`, [USER, POSTS]);
  await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1::bigint + g, $2::bigint FROM generate_series(0, $3 - 1) g`, [FOLLOWER_BASE, USER, FOLLOWERS]);
  await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1::bigint, $2::bigint + g FROM generate_series(0, $3 - 1) g`, [USER, FOLLOWEE_BASE, FOLLOWEES]);
  await db.query(`INSERT INTO post_likes (user_id, post_id) SELECT $1::bigint, id FROM posts WHERE author_id BETWEEN $2 AND $3 ORDER BY id LIMIT $4`, [USER, FOLLOWEE_BASE, FOLLOWEE_BASE + FOLLOWEES - 1, LIKES]);
  await db.query(
    `INSERT INTO post_likes (user_id, post_id) SELECT $1::bigint + n, p.id FROM (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM posts WHERE author_id = $2 ORDER BY id LIMIT $3) p`,
    [FOLLOWER_BASE, USER, LIKES_RECEIVED],
  );
  // The mix: authors each with their followers, watched through the sampled ones' timelines, and
  // a post each already (a timeline built empty is cached for 5 minutes only: a longer run would
  // lose the watched timelines, and their fan-outs would never be seen).
  await db.query(`INSERT INTO posts (author_id, text, created_at) SELECT $1::bigint + a, 'an earlier mix post', now() - interval '1 hour' FROM generate_series(0, $2 - 1) a`, [MIX_AUTHOR_BASE, MIX_AUTHORS]);
  await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1::bigint + a * 1000 + f, $2::bigint + a FROM generate_series(0, $3 - 1) a, generate_series(0, $4 - 1) f`, [MIX_FOLLOWER_BASE, MIX_AUTHOR_BASE, MIX_AUTHORS, MIX_FOLLOWERS]);
  // Counter rows as the flushes would have left them: exactly the rows' counts.
  await db.query(`
    INSERT INTO counters (entity, entity_id, field, value)
    SELECT 'user', followee_id, 'followers', count(*) FROM follows GROUP BY followee_id
    UNION ALL SELECT 'user', follower_id, 'following', count(*) FROM follows GROUP BY follower_id
    UNION ALL SELECT 'user', author_id, 'posts', count(*) FROM posts GROUP BY author_id
    UNION ALL SELECT 'post', post_id, 'likes', count(*) FROM post_likes GROUP BY post_id
    UNION ALL SELECT 'user', p.author_id, 'likes_received', count(*) FROM post_likes l JOIN posts p ON p.id = l.post_id GROUP BY p.author_id`);
  await db.query("ANALYZE");
}

/** The counters the deletion moved, as `field of entity id` → the truth counted from the rows. */
async function truthOfMoved(db: Db): Promise<Map<string, number>> {
  const truth = new Map<string, number>();
  const add = (rows: { id: string; n: string }[], entity: string, field: string) => {
    for (const r of rows) truth.set(`${entity}:${r.id}:${field}`, Number(r.n));
  };
  const followers = range(FOLLOWERS).map((i) => FOLLOWER_BASE + i);
  const followees = range(FOLLOWEES).map((i) => FOLLOWEE_BASE + i);
  add((await db.query(`SELECT u::text AS id, (SELECT count(*) FROM follows WHERE follower_id = u) AS n FROM unnest($1::bigint[]) u`, [followers])).rows, "user", "following");
  add((await db.query(`SELECT u::text AS id, (SELECT count(*) FROM follows WHERE followee_id = u) AS n FROM unnest($1::bigint[]) u`, [followees])).rows, "user", "followers");
  add(
    (await db.query(`SELECT u::text AS id, (SELECT count(*) FROM post_likes l JOIN posts p ON p.id = l.post_id WHERE p.author_id = u) AS n FROM unnest($1::bigint[]) u`, [followees])).rows,
    "user",
    "likes_received",
  );
  add(
    (await db.query(`SELECT p.id::text AS id, (SELECT count(*) FROM post_likes l WHERE l.post_id = p.id) AS n FROM posts p WHERE p.author_id BETWEEN $1 AND $2`, [FOLLOWEE_BASE, FOLLOWEE_BASE + FOLLOWEES - 1])).rows,
    "post",
    "likes",
  );
  return truth;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

async function main() {
  console.log(
    `bench:erase: a user with ${POSTS} posts, ${FOLLOWERS} followers, ${LIKES} likes given, ${FOLLOWEES} followees (${LIKES_RECEIVED} likes received), deleted while ${MIX_AUTHORS} others post every ${MIX_POST_MS} ms and follows come every ${MIX_FOLLOW_MS} ms${SCALE !== 1 ? ` (BENCH_ERASE_SCALE=${SCALE}: not a figure)` : ""}`,
  );
  await runAtDatabases(benchAt);
}

async function benchAt(databases: number): Promise<Record<string, string | number>> {
  const started = performance.now();
  const { bench, db, close } = await startBenchWithClients({ redisDatabases: databases });
  const clients = bench.stack.databases.map((d) => new IORedis(d.redisUrl));
  const redisOf = (id: string) => clients[databaseOf(id, databases)]!;
  const tokens = new Map<string, string>();
  const tokenOf = async (u: string, role: "user" | "service" | "admin" = "user") => {
    const key = `${role}:${u}`;
    if (!tokens.has(key)) tokens.set(key, await bench.token(u, role));
    return tokens.get(key)!;
  };
  const as = async (u: string, method: string, path: string, body?: unknown, role?: "user" | "service" | "admin") => call(bench.url, method, path, `Bearer ${await tokenOf(u, role)}`, body);
  const okAs = async (u: string, method: string, path: string, body?: unknown, role?: "user" | "service" | "admin") => {
    const a = await as(u, method, path, body, role);
    if (a.status < 200 || a.status > 299) throw new Error(`${method} ${path}: ${a.status} ${JSON.stringify(a.json).slice(0, 300)}`);
    return a;
  };
  const { phase, text: phasesText } = phaseTimer(started);
  phase("stack");
  try {
    await seed(db);
    // The per-minute job finds the user past the big-account threshold, as it would a real one.
    // Its transition runs as queued pages; wait for its end.
    await bench.scheduled("* * * * *");
    const bigState = async () => (await db.query(`SELECT state FROM feed_big_accounts WHERE author_id = $1`, [USER])).rows[0]?.state as string | undefined;
    if (FOLLOWERS >= DEFAULT_BIG_ACCOUNT_FOLLOWERS) {
      for (let waited = 0; (await bigState()) !== "big"; waited += 500) {
        if (waited > 60_000) throw new Error(`the user is not a big account after 60 s: ${await bigState()}`);
        await sleep(500);
      }
    }
    console.log(`  the user's big-account state: ${(await bigState()) ?? "none"} (the threshold: ${DEFAULT_BIG_ACCOUNT_FOLLOWERS} followers)`);
    // The watched followers' timelines, built by their first read.
    const sampled = range(MIX_AUTHORS).map((a) => range(MIX_SAMPLED).map((f) => String(MIX_FOLLOWER_BASE + a * 1000 + f)));
    for (const group of sampled) await Promise.all(group.map((f) => okAs(f, "GET", "/v1/me/feed?limit=5")));
    const watchedTtl = await Promise.all(sampled.flat().map((f) => redisOf(f).ttl(feedKeys.timeline(f))));
    if (watchedTtl.some((t) => t < 24 * 3600)) throw new Error(`a watched timeline is not cached for long: TTLs ${[...new Set(watchedTtl)].join(", ")}`);
    phase("seed");

    // ── The export, an empty account's then the user's ──
    const exportEmpty = await measureExport(bench.url, await tokenOf(EMPTY_USER));
    const exported = await measureExport(bench.url, await tokenOf(USER));
    phase("export");

    // ── The mix ──
    const fanouts: { at: number; ms: number }[] = [];
    const mixErrors: string[] = [];
    let mixing = true;
    let posted = 0;
    let followed = 0;
    const inFlight = new Set<Promise<void>>();
    const track = (p: Promise<void>) => {
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    const postAndWatch = async (a: number) => {
      const author = String(MIX_AUTHOR_BASE + a);
      const t0 = performance.now();
      const res = await as(author, "POST", "/v1/posts", { text: `mix post ${posted}` });
      if (res.status !== 201) return void mixErrors.push(`post ${res.status}`);
      const member = timelineMember(String((res.json as { id: string }).id), author);
      const watched = sampled[a]!;
      for (;;) {
        const got = await Promise.all(watched.map((f) => redisOf(f).zscore(feedKeys.timeline(f), member)));
        if (got.every((s) => s !== null)) return void fanouts.push({ at: t0, ms: performance.now() - t0 });
        if (performance.now() - t0 > 120_000) return void mixErrors.push(`fan-out incomplete after 120 s: ${got.filter((s) => s !== null).length}/${watched.length}`);
        await sleep(20);
      }
    };
    const postLoop = (async () => {
      for (let i = 0; mixing; i++) {
        posted++;
        track(postAndWatch(i % MIX_AUTHORS));
        await sleep(MIX_POST_MS);
      }
    })();
    const followLoop = (async () => {
      for (let i = 0; mixing; i++) {
        followed++;
        track(
          as(String(MIX_FOLLOWING_BASE + i), "PUT", `/v1/me/following/${MIX_AUTHOR_BASE + (i % MIX_AUTHORS)}`).then((r) => {
            if (r.status !== 200) mixErrors.push(`follow ${r.status}`);
          }),
        );
        await sleep(MIX_FOLLOW_MS);
      }
    })();

    await sleep(5_000); // the mix settles in (first scripts loaded, isolates warm)
    const beforeFrom = performance.now();
    const statsBefore = await redisCommandStats(bench.stack);
    await sleep(BEFORE_MS);
    const statsMid = await redisCommandStats(bench.stack);
    const beforeMs = performance.now() - beforeFrom;
    const mixPerMs = billedCommandsBetween(statsBefore, statsMid).total / beforeMs;
    phase("mix alone");

    // ── The deletion ──
    const duringFrom = performance.now();
    const asked = await okAs("1", "DELETE", `/v1/users/${USER}`, undefined, "service");
    const deletionId = (asked.json as { deletionId: string }).deletionId;
    let deletion: { status: string; askedAt: string; finishedAt: string | null; progress: { capability: string; removed: number }[] } | undefined;
    for (;;) {
      await sleep(1_000);
      deletion = (await okAs("1", "GET", `/v1/admin/deletions/${deletionId}`, undefined, "admin")).json as typeof deletion;
      if (deletion!.status === "finished") break;
      if (performance.now() - duringFrom > ERASE_TIMEOUT_MS) throw new Error(`the deletion did not finish in ${ERASE_TIMEOUT_MS / 60_000} min: ${JSON.stringify(deletion).slice(0, 500)}`);
      benchLog(`  deletion: ${JSON.stringify(deletion).slice(0, 300)}`);
    }
    const duringTo = performance.now();
    const statsAfter = await redisCommandStats(bench.stack);
    mixing = false;
    await Promise.all([postLoop, followLoop]);
    await Promise.all([...inFlight]);
    phase("deletion");
    const duringBilled = billedCommandsBetween(statsMid, statsAfter);
    const during = duringBilled.total;
    const mixBy = billedCommandsBetween(statsBefore, statsMid).byCommand;
    const scale = (duringTo - duringFrom) / beforeMs;
    const extra = Object.entries(duringBilled.byCommand)
      .map(([command, n]) => [command, Math.round(n - (mixBy[command] ?? 0) * scale)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8);
    const eraseBilled = Math.max(0, Math.round(during - mixPerMs * (duringTo - duringFrom)));
    const eraseSeconds = (Date.parse(deletion!.finishedAt!) - Date.parse(deletion!.askedAt)) / 1000;
    const steps = Number((await db.query(`SELECT step FROM account_deletions WHERE id = $1`, [deletionId])).rows[0]?.step ?? 0);

    const p99 = (from: number, to: number) => percentile(sorted(fanouts.filter((f) => f.at >= from && f.at < to).map((f) => f.ms)), 0.99);
    const countIn = (from: number, to: number) => fanouts.filter((f) => f.at >= from && f.at < to).length;
    const fanoutBefore = p99(beforeFrom, duringFrom);
    const fanoutDuring = p99(duringFrom, duringTo);

    // ── Exact afterwards: the counters, then the erasure check ──
    await bench.scheduled("* * * * *"); // the flush: every pending delta in Postgres
    const truth = await truthOfMoved(db);
    const wrong = await countersWrong(db, truth, (entity, ids) => okAs("1", "GET", `/v1/counters/${entity}?ids=${ids.join(",")}&fresh=true`));
    phase("counters");
    const postIds = (await db.query(`SELECT id::text AS id FROM posts WHERE author_id = $1`, [USER])).rows.map((r: { id: string }) => r.id);
    const found = [];
    for (const [index, d] of bench.stack.databases.entries()) found.push(...(await scanRedis(restRedis(d.restUrl, d.restToken), index, USER, postIds)));
    found.push(...(await scanPostgres(async (text, params) => (await db.query(text, params as unknown[])).rows, USER, postIds)));
    const { unexpected, known, kept } = classify(found);
    for (const f of unexpected.slice(0, 20)) console.log(`  LEFTOVER: ${f.place}  ${f.sample}`);
    phase("erasure check");

    printTable([
      { measure: "deletion: asked → finished (s), incl. the first step's delay", value: `${formatNumber(eraseSeconds)} (${ERASE_START_DELAY_SECONDS} s delay)` },
      { measure: "deletion: steps, s a step", value: `${steps}, ${formatNumber((eraseSeconds - ERASE_START_DELAY_SECONDS) / Math.max(1, steps))}` },
      { measure: "deletion: billed Redis commands (all, the mix's rate × its length taken off)", value: `${during} − ${Math.round(mixPerMs * (duringTo - duringFrom))} = ${eraseBilled}` },
      { measure: "deletion: removed, by capability", value: deletion!.progress.filter((p) => p.removed > 0).map((p) => `${p.capability} ${p.removed}`).join(", ") },
      { measure: "deletion: its commands, most billed first", value: extra.map(([c, n]) => `${c} ${n}`).join(", ") },
      { measure: "fan-out p99 ms: mix alone / during the deletion (posts measured)", value: `${formatNumber(fanoutBefore)} / ${formatNumber(fanoutDuring)} (${countIn(beforeFrom, duringFrom)} / ${countIn(duringFrom, duringTo)})` },
      { measure: "mix: posts, follows, errors", value: `${posted}, ${followed}, ${mixErrors.length}${mixErrors.length ? ` (${[...new Set(mixErrors)].slice(0, 3).join("; ")})` : ""}` },
      { measure: "counters checked / wrong (API and Postgres)", value: `${truth.size * 2} / ${wrong.length}${wrong.length ? ` (${wrong.slice(0, 3).join("; ")})` : ""}` },
      { measure: "erasure check: leftovers / known leftovers / kept records", value: `${unexpected.length} / ${known.length} / ${kept.length}` },
      { measure: "export: records, s, records/s", value: `${exported.records}, ${formatNumber(exported.seconds)}, ${formatNumber(exported.records / exported.seconds)}` },
      { measure: "export: Worker peak RSS MB, empty account / this one", value: `${formatNumber(exportEmpty.peakRssMb)} / ${formatNumber(exported.peakRssMb)}` },
    ]);
    console.log(`  phases: ${phasesText()}`);
    if (mixErrors.length > 0) throw new Error(`the mix failed: ${[...new Set(mixErrors)].slice(0, 5).join("; ")}`);
    return {
      erase_seconds: formatNumber(eraseSeconds),
      erase_steps: steps,
      erase_billed_commands: eraseBilled,
      erase_leftovers: unexpected.length,
      counters_wrong: wrong.length,
      fanout_p99_ms_during: Math.round(fanoutDuring),
      fanout_p99_ms_before: Math.round(fanoutBefore),
      export_records_per_s: Math.round(exported.records / exported.seconds),
      export_peak_rss_mb: formatNumber(exported.peakRssMb),
      export_empty_peak_rss_mb: formatNumber(exportEmpty.peakRssMb),
    };
  } finally {
    for (const c of clients) c.disconnect();
    await close();
  }
}

/** Every moved counter read through the API (fresh) and from Postgres's rows, against the truth. */
async function countersWrong(db: Db, truth: Map<string, number>, read: (entity: string, ids: string[]) => Promise<{ json: unknown }>): Promise<string[]> {
  const wrong: string[] = [];
  const byEntity = new Map<string, Set<string>>();
  for (const key of truth.keys()) {
    const [entity, id] = key.split(":") as [string, string];
    (byEntity.get(entity) ?? byEntity.set(entity, new Set()).get(entity)!).add(id);
  }
  for (const [entity, idSet] of byEntity) {
    const ids = [...idSet];
    for (let i = 0; i < ids.length; i += 100) {
      const page = ids.slice(i, i + 100);
      const { items } = (await read(entity, page)).json as { items: { id: string; counts: Record<string, number> }[] };
      for (const item of items) {
        for (const [field, value] of Object.entries(item.counts)) {
          const want = truth.get(`${entity}:${item.id}:${field}`);
          if (want !== undefined && want !== value) wrong.push(`API ${entity} ${item.id} ${field} ${value} ≠ ${want}`);
        }
      }
    }
    const stored = await db.query(`SELECT entity_id::text AS id, field, value FROM counters WHERE entity = $1 AND entity_id = ANY($2::bigint[])`, [entity, ids]);
    const seen = new Set<string>();
    for (const r of stored.rows as { id: string; field: string; value: string }[]) {
      const key = `${entity}:${r.id}:${r.field}`;
      seen.add(key);
      const want = truth.get(key);
      if (want !== undefined && want !== Number(r.value)) wrong.push(`Postgres ${key} ${r.value} ≠ ${want}`);
    }
    for (const [key, want] of truth) if (key.startsWith(`${entity}:`) && !seen.has(key) && want !== 0) wrong.push(`Postgres ${key} missing ≠ ${want}`);
  }
  return wrong;
}

/** Reads an export as a client does (line by line, nothing kept), sampling the Worker's RSS meanwhile. */
async function measureExport(url: string, token: string): Promise<{ records: number; seconds: number; peakRssMb: number }> {
  const pid = workerdPid();
  let peak = rssBytes(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 10);
  const t0 = performance.now();
  try {
    const res = await fetch(`${url}/v1/me/export`, { headers: { Authorization: `Bearer ${token}` } });
    if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status} ${await res.text()}`);
    let records = 0;
    let last = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      const text = last + decoder.decode(chunk as Uint8Array, { stream: true });
      const lines = text.split("\n");
      last = lines.pop() ?? "";
      for (const line of lines) {
        if (!line) continue;
        records++;
        if (line.includes('"type":"error"')) throw new Error(`export stopped early: ${line}`);
      }
    }
    if (last) records++;
    return { records, seconds: (performance.now() - t0) / 1000, peakRssMb: peak / 2 ** 20 };
  } finally {
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(pid));
  }
}

await main();
process.exit(0);
