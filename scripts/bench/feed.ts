/**
 * `npm run bench:feed` — the home timeline in workerd (bench-only entry with the naive baseline,
 * fresh local stack, the real queue), side by side in one process:
 *   1. a warm home page (20 hydrated items) for readers following 500 authors among 200,000
 *      posts: this design (one script) vs the naive design (`/v1/bench/naive/feed`: follows ⋈ posts
 *      ORDER BY id DESC LIMIT 20, then counters and flags, all from Postgres) — requests/s, p50,
 *      p99, Redis round trips (requests reaching the Upstash bridge), billed commands
 *      (`INFO commandstats` deltas) and Postgres statements (counted by the stack's Neon proxies:
 *      statements over HTTP, Query/Execute messages over the WebSocket) per page;
 *   2. a cold page (timeline build): Postgres statements and ms;
 *   3. a fan-out of one post to 10,000 followers of whom half have a timeline: ms from publish to the
 *      last delivery, queue messages (the consumer's log lines), Redis round trips, billed commands;
 *   4. a follow on the request path: Redis round trips;
 *   5. a ranked first page (300 candidates scored) and a later ranked page vs the chronological
 *      page, in the same run (`ranked_vs_chrono`);
 *   8. trending: what an increment adds, list reads, and 50 concurrent cold readers of a window
 *      (ZUNIONSTOREs: `trending_stampede_zunionstores`);
 *   9. (last, as its backlog outlives it) the same fan-out with 10,000 follow syncs queued just
 *      before the publish: ms from publish to the last follower's timeline, and how many of the
 *      syncs were still waiting then (posts and syncs have a queue each).
 *
 * Every measure runs at N = 1 and then at N = 3 Redis databases, each over a fresh stack (round
 * trips and billed commands are summed over the databases). `--databases 1,3` is the default;
 * `--databases 1` runs N = 1 alone. The RESULT line keeps N = 1's keys as they are and adds N = 3's
 * with `_n3`. Seeds and direct reads go to each key's database (`databaseOf`); the keys every
 * database holds (big accounts' states, outboxes, activity) are seeded on every one.
 */
import { Redis as IORedis } from "ioredis";
import { performance } from "node:perf_hooks";
import { databaseOf } from "../../src/lib/redis-topology.js";
import { BIG_POST_WINDOW_SECONDS } from "../../src/feed/messages.js";
import { billedCommandsBetween, bridgeRequests, cpuTicks, postgresStatements, printTable, redisCommandStats, runLoad, startBenchWithClients, runAtDatabases, warmUp, workerdPid, type LoadResult } from "./harness.js";

const CONCURRENCY = 32;
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 4_000);
const AUTHORS = 2_000;
const FOLLOWED = 500;
const POSTS = 200_000;
const READERS = 50;
const FANOUT_FOLLOWERS = 10_000;
const READER_BASE = 1_000_000; // reader ids
const FAN_BASE = 2_000_000; // fan-out follower ids
const FANOUT_AUTHOR = "999999";
const SYNC_BACKLOG = 10_000;
const SYNC_BASE = 30_000_000; // followers whose follow syncs are queued
const SYNC_FOLLOWEE = "1"; // a seeded author with ~100 posts: each sync copies them

async function main() {
  await runAtDatabases(async (n) => {
    const line = await benchAt(n);
    return Object.fromEntries(line.split(" ").map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
  });
}

/** Direct-client pipelines, one per database, each command sent to its key owner's database. */
function pipelinesOf(clients: IORedis[], databases: number) {
  const pipes = clients.map((c) => c.pipeline());
  return {
    of: (ownerId: string) => pipes[databaseOf(ownerId, databases)]!,
    every: pipes,
    exec: async () => (await Promise.all(pipes.map((p) => p.exec()))).flatMap((r) => r ?? []),
  };
}

/** One pass of every measure over a fresh stack of `databases` Redis databases; prints its tables, answers its RESULT line (without `RESULT`). */
async function benchAt(databases: number): Promise<string> {
  const fanoutLines: string[] = [];
  let syncsDelivered = 0;
  const { bench, redis: redis0, db, close } = await startBenchWithClients({
    redisDatabases: databases,
    onWorkerLog: (line) => {
      if (line.includes('"queue":"feed-fanout"')) fanoutLines.push(line);
      if (line.includes('"queue":"feed-follow-sync"')) syncsDelivered++;
    },
  });
  // A direct client per database (database 0's is the harness'); a user's or post's keys are on `databaseOf(id)`.
  const clients = [redis0, ...bench.stack.databases.slice(1).map((d) => new IORedis(d.redisUrl))];
  const redisOf = (id: string) => clients[databaseOf(id, databases)]!;
  const pipelines = () => pipelinesOf(clients, databases);
  const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
  try {
    // ── Seed: 200,000 posts by 2,000 authors; each reader follows 500 of them; likes and counters ──
    await db.query(`INSERT INTO posts (author_id, text) SELECT 1 + (g * 7919) % $1, 'post number ' || g FROM generate_series(1, $2) g`, [AUTHORS, POSTS]);
    await db.query(
      `INSERT INTO follows (follower_id, followee_id)
       SELECT $1 + r, 1 + (r * 37 + k * 4) % $2 FROM generate_series(0, $3 - 1) r, generate_series(0, $4 - 1) k ON CONFLICT DO NOTHING`,
      [READER_BASE, AUTHORS, READERS, FOLLOWED],
    );
    await db.query(
      `INSERT INTO post_likes (user_id, post_id) SELECT $1 + r, p FROM generate_series(0, $2 - 1) r, generate_series($3 - 3000, $3, 7) p ON CONFLICT DO NOTHING`,
      [READER_BASE, READERS, POSTS],
    );
    await db.query(`INSERT INTO counters (entity, entity_id, field, value) SELECT 'post', p, 'likes', p % 97 FROM generate_series($1 - 5000, $1) p ON CONFLICT DO NOTHING`, [POSTS]);
    await db.query("VACUUM ANALYZE"); // so autovacuum does not add transactions to the windows below
    const tokens = await Promise.all(Array.from({ length: READERS }, (_, r) => bench.token(String(READER_BASE + r))));
    const auth = (r: number) => ({ Authorization: `Bearer ${tokens[r % READERS]}` });

    // Statements the Worker sent to Postgres: counted by the stack's Neon proxy (each simple Query
    // or extended-protocol Execute message is one statement).
    const statementsSoFar = () => postgresStatements(bench.stack);

    // ── 2. Cold pages (timeline builds): 10 readers one after another, in one counting window ──
    const COLD = 10;
    const coldMs: number[] = [];
    const x0 = statementsSoFar();
    for (let r = 0; r < COLD; r++) {
      const t0 = performance.now();
      const res = await fetch(`${bench.url}/v1/me/feed?limit=20`, { headers: auth(r) });
      coldMs.push(performance.now() - t0);
      const body = (await res.json()) as { items: unknown[] };
      if (res.status !== 200 || body.items.length !== 20) throw new Error(`cold page: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
    const coldStatements = [(statementsSoFar() - x0) / COLD];
    // Every reader's timeline built and its first page's counters cached: the warm state.
    await warmUp(bench, "warm page", READERS, 8, (i) => ({ path: "/v1/me/feed?limit=20", headers: auth(i) }));
    await runLoad({ baseUrl: bench.url, concurrency: 8, total: 100, request: (i) => ({ path: "/v1/bench/naive/feed", headers: auth(i) }) });

    // ── 1. Warm pages: ours vs naive ──
    const rows: Record<string, string | number>[] = [];
    // The Worker's CPU per page: what a page costs in workerd itself (decoding, merging, scoring),
    // which the load of a shared machine moves far less than it moves req/s.
    const worker = workerdPid();
    const measured = async (name: string, run: () => Promise<LoadResult>) => {
      const statsBefore = await redisCommandStats(bench.stack);
      const bridgeBefore = bridgeRequests(bench.stack);
      const x0 = statementsSoFar();
      const ticks0 = cpuTicks(worker);
      const result = await run();
      const cpuMs = (cpuTicks(worker) - ticks0) * 10; // ticks are 10 ms
      const statements = statementsSoFar() - x0;
      const billed = billedCommandsBetween(statsBefore, await redisCommandStats(bench.stack));
      const bridge = bridgeRequests(bench.stack) - bridgeBefore;
      const ok = result.requests - result.errors;
      const m = { result, roundTrips: ok ? bridge / ok : 0, billed: ok ? billed.total / ok : 0, statements: ok ? statements / ok : 0, cpuMs: ok ? cpuMs / ok : 0, byCommand: billed.byCommand };
      rows.push({
        scenario: name,
        "req/s": result.rps,
        "p50 ms": result.p50Ms,
        "p99 ms": result.p99Ms,
        requests: result.requests,
        errors: result.errors,
        "redis round trips/page": m.roundTrips,
        "billed cmds/page": m.billed,
        "pg statements/page": m.statements,
        "worker cpu ms/page": m.cpuMs,
      });
      return m;
    };
    const ours = await measured("warm page, this design", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: (i) => ({ path: "/v1/me/feed?limit=20", headers: auth(i) }) }),
    );
    const naive = await measured("warm page, naive Postgres", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: (i) => ({ path: "/v1/bench/naive/feed", headers: auth(i) }) }),
    );
    printTable(rows);

    // ── 3. Fan-out of one post to 10,000 followers, half of them with a timeline ──
    await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1 + g, $2 FROM generate_series(0, $3 - 1) g`, [FAN_BASE, FANOUT_AUTHOR, FANOUT_FOLLOWERS]);
    const active = Array.from({ length: FANOUT_FOLLOWERS / 2 }, (_, i) => String(FAN_BASE + 2 * i));
    const seed = pipelines();
    for (const f of active) seed.of(f).zadd(`feed:tl:${f}`, 0, "0").expire(`feed:tl:${f}`, 3600);
    await seed.exec();
    const author = `Bearer ${await bench.token(FANOUT_AUTHOR)}`;
    /** Publishes a post by FANOUT_AUTHOR and polls until every follower timeline holds it: ms from publish. */
    const publishToAllActive = async (text: string) => {
      const t0 = performance.now();
      const res = await fetch(`${bench.url}/v1/posts`, { method: "POST", headers: { Authorization: author, "content-type": "application/json" }, body: JSON.stringify({ text }) });
      const { id } = (await res.json()) as { id: string };
      const member = `${id}:${FANOUT_AUTHOR}`;
      for (;;) {
        const check = pipelines();
        for (const f of active) check.of(f).zscore(`feed:tl:${f}`, member);
        const got = (await check.exec()).filter(([, v]) => v !== null).length;
        if (got === active.length) return performance.now() - t0;
        if (performance.now() - t0 > 60_000) throw new Error(`fan-out incomplete after 60 s: ${got}/${active.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await fetch(`${bench.url}/v1/posts`, { method: "POST", headers: { Authorization: author, "content-type": "application/json" }, body: '{"text":"warm-up"}' });
    await new Promise((r) => setTimeout(r, 3_000)); // the warm-up fan-out drains
    fanoutLines.length = 0;
    const statsBefore = await redisCommandStats(bench.stack);
    const bridgeBefore = bridgeRequests(bench.stack);
    const fanoutMs = await publishToAllActive("to ten thousand");
    const fanoutMessages = fanoutLines.length;
    const fanoutBilled = billedCommandsBetween(statsBefore, await redisCommandStats(bench.stack));
    const fanoutBilledTotal = fanoutBilled.total - (fanoutBilled.byCommand.zscore ?? 0) + 0; // the polls' ZSCOREs are ours, not the design's
    const fanoutRoundTrips = bridgeRequests(bench.stack) - bridgeBefore;
    const timelinesWithPost = active.length;
    const idleWithPost = (await Promise.all(Array.from({ length: 20 }, (_, i) => redisOf(String(FAN_BASE + 2 * i + 1)).exists(`feed:tl:${FAN_BASE + 2 * i + 1}`)))).filter(Boolean).length;

    // ── 4. A follow on the request path (caches already built by a first follow) ──
    const follower = `Bearer ${await bench.token("3000000")}`;
    await fetch(`${bench.url}/v1/me/following/1`, { method: "PUT", headers: { Authorization: follower } });
    await new Promise((r) => setTimeout(r, 2_500)); // its queued sync is delivered (max_batch_timeout 1 s)
    const consumed = fanoutLines.length + syncsDelivered;
    const fb = bridgeRequests(bench.stack);
    const fr = await fetch(`${bench.url}/v1/me/following/2`, { method: "PUT", headers: { Authorization: follower } });
    if (fr.status !== 200) throw new Error(`follow: ${fr.status}`);
    await new Promise((r) => setTimeout(r, 2_500));
    // The bridge also saw the queue consumer deliver this follow's sync (one script per delivery,
    // counted from the consumer's log lines): the request path's share is the rest.
    const followRoundTrips = bridgeRequests(bench.stack) - fb - (fanoutLines.length + syncsDelivered - consumed);

    // ── 5. Ranked page vs the chronological page (same readers, warm) ──
    await warmUp(bench, "ranked page", READERS, 8, (i) => ({ path: "/v1/me/feed?order=ranked&limit=20", headers: auth(i) }));
    await warmUp(bench, "chronological page (again)", READERS, 8, (i) => ({ path: "/v1/me/feed?limit=20", headers: auth(i) }));
    const chrono = await measured("chronological page (again)", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: (i) => ({ path: "/v1/me/feed?limit=20", headers: auth(i) }) }),
    );
    const ranked = await measured("ranked page (300 candidates scored)", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: (i) => ({ path: "/v1/me/feed?order=ranked&limit=20", headers: auth(i) }) }),
    );
    // A later ranked page hydrates the slice of the ranking its cursor carries: one first page per
    // reader, then their second pages over and over (a cursor is read, never changed, by its pages).
    const rankedCursors = await Promise.all(
      Array.from({ length: READERS }, async (_, r) => {
        const first = (await (await fetch(`${bench.url}/v1/me/feed?order=ranked&limit=20`, { headers: auth(r) })).json()) as { nextCursor: string | null };
        if (!first.nextCursor) throw new Error("ranked first page without a next cursor");
        return first.nextCursor;
      }),
    );
    await measured("ranked page, next (cursor's slice)", () =>
      runLoad({
        baseUrl: bench.url,
        concurrency: CONCURRENCY,
        durationMs: LOAD_MS,
        request: (i) => ({ path: `/v1/me/feed?order=ranked&limit=20&cursor=${rankedCursors[i % READERS]}`, headers: auth(i) }),
      }),
    );

    // ── 6. Big accounts: a reader following 50 big and 500 normal authors ──
    // Fixture: the big accounts are seeded in the state a finished transition leaves (Postgres row,
    // feed:big, outbox, activity, the readers' pulled sets); the transition itself is tested.
    const BIG = 50;
    const MIXED_READERS = 20;
    const MIXED_BASE = 4_000_000;
    const bigAuthors = Array.from({ length: BIG }, (_, i) => String(AUTHORS + 1 + i));
    await db.query(`INSERT INTO posts (author_id, text) SELECT $1 + 1 + (g % $2), 'big post ' || g FROM generate_series(1, $3) g`, [AUTHORS, BIG, BIG * 200]);
    await db.query(`INSERT INTO feed_big_accounts (author_id, state) SELECT unnest($1::bigint[]), 'big'`, [bigAuthors]);
    await db.query(
      `INSERT INTO follows (follower_id, followee_id)
       SELECT $1 + r, 1 + (r * 41 + k * 3) % $2 FROM generate_series(0, $3 - 1) r, generate_series(0, 499) k ON CONFLICT DO NOTHING`,
      [MIXED_BASE, AUTHORS, MIXED_READERS],
    );
    await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1 + r, unnest($2::bigint[]) FROM generate_series(0, $3 - 1) r`, [MIXED_BASE, bigAuthors, MIXED_READERS]);
    const { rows: outboxRows } = await db.query(
      `SELECT author_id::text AS a, id::text AS id FROM (SELECT author_id, id, row_number() OVER (PARTITION BY author_id ORDER BY id DESC) AS rn FROM posts WHERE author_id = ANY($1::bigint[])) t WHERE rn <= 1000`,
      [bigAuthors],
    );
    // Outboxes, states and activity are on every database.
    const fixture = pipelines();
    for (const p of fixture.every) {
      for (const r of outboxRows) p.zadd(`feed:ob:${r.a}`, r.id, `${r.id}:${r.a}`);
      for (const a of bigAuthors) {
        p.hset("feed:big", a, "big");
        const newest = Math.max(...outboxRows.filter((r: { a: string }) => r.a === a).map((r: { id: string }) => Number(r.id)));
        p.zadd("feed:act", newest, a);
      }
    }
    await fixture.exec();
    await db.query("VACUUM ANALYZE");
    const mixedTokens = await Promise.all(Array.from({ length: MIXED_READERS }, (_, r) => bench.token(String(MIXED_BASE + r))));
    const mixedAuth = (i: number) => ({ Authorization: `Bearer ${mixedTokens[i % MIXED_READERS]}` });
    await warmUp(bench, "merged page", MIXED_READERS, 4, (i) => ({ path: "/v1/me/feed?limit=20", headers: mixedAuth(i) }));
    await runLoad({ baseUrl: bench.url, concurrency: 4, total: 40, request: (i) => ({ path: "/v1/bench/naive/feed", headers: mixedAuth(i) }) });
    const merged = await measured("merged page (50 big + 500 normal), this design", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: (i) => ({ path: "/v1/me/feed?limit=20", headers: mixedAuth(i) }) }),
    );
    const mergedNaive = await measured("merged page (50 big + 500 normal), naive Postgres", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: (i) => ({ path: "/v1/bench/naive/feed", headers: mixedAuth(i) }) }),
    );
    console.log("");
    printTable(rows.slice(2));

    // ── 7. Publishing by an account with 1,000,000 followers vs pushing to every follower ──
    const MILLION = 1_000_000;
    const PUSHED = 100_000;
    const bigStar = "7000000";
    const pusher = "7000001";
    const STAR_FANS = 10_000_000;
    await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1 + g, $2 FROM generate_series(0, $3 - 1) g`, [STAR_FANS, bigStar, MILLION]);
    await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1 + g, $2 FROM generate_series(0, $3 - 1) g`, [STAR_FANS, pusher, PUSHED]);
    await db.query(`INSERT INTO feed_big_accounts (author_id, state) VALUES ($1, 'big')`, [bigStar]);
    await Promise.all(clients.map((c) => c.hset("feed:big", bigStar, "big")));
    // Pushing to every follower: each of the 100,000 has a timeline (an active follower).
    for (let from = 0; from < PUSHED; from += 10_000) {
      const p = pipelines();
      for (let g = from; g < from + 10_000; g++) p.of(String(STAR_FANS + g)).zadd(`feed:tl:${STAR_FANS + g}`, 0, "0").expire(`feed:tl:${STAR_FANS + g}`, 3600);
      await p.exec();
    }
    // A follower of the big account reading its first page: it pulls the star (as a transition leaves it).
    const fanToken = `Bearer ${await bench.token(String(STAR_FANS))}`;
    await redisOf(String(STAR_FANS)).sadd(`feed:bf:${STAR_FANS}`, bigStar);
    await fetch(`${bench.url}/v1/me/feed`, { headers: { Authorization: fanToken } });
    const publish = async (authorId: string, text: string) => {
      const res = await fetch(`${bench.url}/v1/posts`, {
        method: "POST",
        headers: { Authorization: `Bearer ${await bench.token(authorId)}`, "content-type": "application/json" },
        body: JSON.stringify({ text }),
      });
      return ((await res.json()) as { id: string }).id;
    };
    await publish(bigStar, "warm-up");
    await new Promise((r) => setTimeout(r, 500));
    let s0 = await redisCommandStats(bench.stack);
    let t = performance.now();
    const bigPost = await publish(bigStar, "to a million");
    const bigPublishMs = performance.now() - t;
    let lagMs = 0;
    for (;;) {
      const page = (await (await fetch(`${bench.url}/v1/me/feed?limit=20`, { headers: { Authorization: fanToken } })).json()) as { items: { post: { id: string } }[] };
      if (page.items.some((i) => i.post.id === bigPost)) {
        lagMs = performance.now() - t;
        break;
      }
      if (performance.now() - t > 30_000) throw new Error("the big account's post never reached the follower's page");
    }
    await new Promise((r) => setTimeout(r, 1_500));
    s0 = await redisCommandStats(bench.stack);
    const before = bridgeRequests(bench.stack);
    t = performance.now();
    const pushedPost = await publish(pusher, "to a hundred thousand");
    for (;;) {
      const last = await redisOf(String(STAR_FANS + PUSHED - 1)).zscore(`feed:tl:${STAR_FANS + PUSHED - 1}`, `${pushedPost}:${pusher}`);
      const first = await redisOf(String(STAR_FANS)).zscore(`feed:tl:${STAR_FANS}`, `${pushedPost}:${pusher}`);
      if (last !== null && first !== null) break;
      if (performance.now() - t > 300_000) throw new Error("push to 100,000 did not finish");
      await new Promise((r) => setTimeout(r, 20));
    }
    const pushMs = performance.now() - t;
    await new Promise((r) => setTimeout(r, 500));
    const pushBilled = billedCommandsBetween(s0, await redisCommandStats(bench.stack));
    const pushCommands = pushBilled.total - (pushBilled.byCommand.zscore ?? 0);
    const pushRoundTrips = bridgeRequests(bench.stack) - before;

    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log("");
    printTable([
      { measure: "cold page (timeline build): Postgres statements per page (10 builds)", value: avg(coldStatements) },
      { measure: "cold page: ms (mean of 10)", value: avg(coldMs) },
      { measure: "warm page: speedup (req/s ours / naive)", value: ours.result.rps / naive.result.rps },
      { measure: "fan-out to 10,000 followers: ms publish → last delivery", value: fanoutMs },
      { measure: "fan-out: queue messages delivered", value: fanoutMessages },
      { measure: "fan-out: Redis round trips (incl. the publish request)", value: fanoutRoundTrips },
      { measure: "fan-out: billed commands", value: fanoutBilledTotal },
      { measure: "fan-out: timelines holding the post / with a timeline", value: `${timelinesWithPost}/${active.length}` },
      { measure: "fan-out: timelines created for inactive followers (of 20 checked)", value: idleWithPost },
      { measure: "follow: Redis round trips on the request path", value: followRoundTrips },
    ]);
    // ── 8. Trending: commands the increment path adds, and reads of the list ──
    const service = { Authorization: `Bearer ${await bench.token("900", "service")}` };
    const incrStats0 = await redisCommandStats(bench.stack);
    const incr = await runLoad({
      baseUrl: bench.url,
      concurrency: CONCURRENCY,
      total: 2_000,
      request: (i) => ({ method: "POST", path: `/v1/counters/post/${1 + ((i * 7919) % 5000)}`, headers: service, body: { deltas: { likes: 1 } } }),
    });
    const incrBilled = billedCommandsBetween(incrStats0, await redisCommandStats(bench.stack));
    const incrOk = incr.requests - incr.errors;
    const trendingPerIncrement = (incrBilled.byCommand.zincrby ?? 0) / incrOk;
    const trendingReads = await measured("trending list (24h)", () =>
      runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: () => ({ path: "/v1/posts/trending?window=24h&limit=20" }) }),
    );

    // ── 8b. Trending stampede: 50 readers ask for a window at once, with no list in Redis younger
    // than 5 s and no isolate copy (the isolate's 2 s copy has expired): each one is a cold isolate
    // to Redis. First with no list stored at all, then with the last list kept from before.
    const stampede = async (keepLast: boolean) => {
      const window = "24h";
      await redis0.del(`ctr:trend:f:${window}`, `ctr:trend:lock:${window}`, ...(keepLast ? [] : [`ctr:trend:l:${window}`]));
      await new Promise((r) => setTimeout(r, 2_100));
      const s0 = await redisCommandStats(bench.stack);
      const answers = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const res = await fetch(`${bench.url}/v1/posts/trending?window=${window}&limit=20`);
          return { status: res.status, body: (await res.json()) as { items: unknown[]; degraded: boolean } };
        }),
      );
      const billed = billedCommandsBetween(s0, await redisCommandStats(bench.stack));
      return {
        zunionstores: billed.byCommand.zunionstore ?? 0,
        billed: billed.total,
        failed: answers.filter((a) => a.status !== 200 || a.body.degraded || a.body.items.length === 0).length,
      };
    };
    const coldStampede = await stampede(false);
    const lastStampede = await stampede(true);

    // The big publish's own billed commands, counted alone: its request (one pipeline: counters,
    // badges, feed) and no queue work — nothing is fanned out, and the post's announcement is
    // delivered BIG_POST_WINDOW_SECONDS after it: counted until half that.
    const bigPublishCommands = await (async () => {
      const q0 = await redisCommandStats(bench.stack);
      await publish(bigStar, "counted alone");
      await new Promise((r) => setTimeout(r, (BIG_POST_WINDOW_SECONDS * 1_000) / 2));
      return billedCommandsBetween(q0, await redisCommandStats(bench.stack)).total;
    })();
    console.log("");
    printTable([
      { measure: "big account (1,000,000 followers): billed Redis commands per post", value: bigPublishCommands },
      { measure: "big account: publish request ms", value: bigPublishMs },
      { measure: "big account: ms until the post is on a follower's first page", value: lagMs },
      { measure: "push to 100,000 followers: billed commands (measured)", value: pushCommands },
      { measure: "push to 100,000 followers: ms to the last timeline (measured)", value: pushMs },
      { measure: "push to 100,000 followers: Redis round trips", value: pushRoundTrips },
      { measure: "push to 1,000,000 followers: billed commands (×10)", value: pushCommands * 10 },
      { measure: "push to 1,000,000 followers: ms (×10)", value: pushMs * 10 },
      { measure: "ranked page p99 ms / chronological p99 ms", value: `${fmt(ranked.result.p99Ms)} / ${fmt(chrono.result.p99Ms)}` },
      { measure: "ranked page req/s / chronological req/s", value: `${fmt(ranked.result.rps)} / ${fmt(chrono.result.rps)}` },
      { measure: "ranked page: throughput vs chronological (same run)", value: ranked.result.rps / chrono.result.rps },
      { measure: "ranked first page's cursor (the rest of the ranking): characters, longest of the readers'", value: Math.max(...rankedCursors.map((c) => c.length)) },
      { measure: "merged page: speedup vs naive", value: merged.result.rps / mergedNaive.result.rps },
      { measure: "trending: billed commands added per increment (ZINCRBY per like)", value: trendingPerIncrement },
      { measure: "trending: billed commands per increment in all", value: incrBilled.total / incrOk },
      { measure: "trending list: reads/s, p99 ms", value: `${fmt(trendingReads.result.rps)}, ${fmt(trendingReads.result.p99Ms)}` },
      { measure: "trending list: billed commands per read", value: trendingReads.billed },
      { measure: "trending list: Redis round trips per read", value: trendingReads.roundTrips },
      { measure: "trending list: billed commands in the window, by command", value: JSON.stringify(trendingReads.byCommand) },
      { measure: "50 concurrent cold readers: ZUNIONSTOREs", value: coldStampede.zunionstores },
      { measure: "50 concurrent cold readers: billed commands, answers failed or empty", value: `${coldStampede.billed}, ${coldStampede.failed}` },
      { measure: "50 concurrent cold readers, last list kept: ZUNIONSTOREs", value: lastStampede.zunionstores },
      { measure: "50 concurrent cold readers, last list kept: billed commands, answers failed or empty", value: `${lastStampede.billed}, ${lastStampede.failed}` },
    ]);

    // ── 9. The fan-out of section 3 again, with 10,000 follow syncs queued just before it ──
    // Real follows, each follower with a timeline and the follow intent: every sync reads the
    // followee's newest posts from Postgres and copies them, as a burst of follows leaves them.
    await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1 + g, $2 FROM generate_series(0, $3 - 1) g`, [SYNC_BASE, SYNC_FOLLOWEE, SYNC_BACKLOG]);
    for (let from = 0; from < SYNC_BACKLOG; from += 5_000) {
      const p = pipelines();
      for (let g = from; g < from + 5_000; g++) {
        p.of(String(SYNC_BASE + g)).zadd(`feed:tl:${SYNC_BASE + g}`, 0, "0").expire(`feed:tl:${SYNC_BASE + g}`, 3600).set(`feed:fi:${SYNC_BASE + g}:${SYNC_FOLLOWEE}`, "1", "EX", 3600);
      }
      await p.exec();
    }
    await new Promise((r) => setTimeout(r, 2_000)); // earlier queue work drains
    const syncsBefore = syncsDelivered;
    const queued = await fetch(`${bench.url}/v1/bench/feed/queue-syncs`, {
      method: "POST",
      headers: { ...service, "content-type": "application/json" },
      body: JSON.stringify({ followeeId: SYNC_FOLLOWEE, from: SYNC_BASE, count: SYNC_BACKLOG }),
    });
    if (queued.status !== 200) throw new Error(`queue syncs: ${queued.status} ${await queued.text()}`);
    const syncsWaitingAtPublish = SYNC_BACKLOG - (syncsDelivered - syncsBefore);
    const behindSyncsMs = await publishToAllActive("behind ten thousand syncs");
    const syncsWaitingAtDelivery = SYNC_BACKLOG - (syncsDelivered - syncsBefore);
    console.log("");
    printTable([
      { measure: "follow syncs queued just before the publish", value: SYNC_BACKLOG },
      { measure: "  of them still waiting when the publish was sent", value: syncsWaitingAtPublish },
      { measure: "  of them still waiting when the last follower timeline held the post", value: syncsWaitingAtDelivery },
      { measure: "fan-out to 10,000 followers behind the syncs: ms publish → last timeline", value: behindSyncsMs },
      { measure: "follow syncs delivered per second meanwhile (their own queue)", value: (syncsWaitingAtPublish - syncsWaitingAtDelivery) / (behindSyncsMs / 1000) },
      { measure: "fan-out to 10,000 followers, no backlog (section 3): ms", value: fanoutMs },
    ]);
    return (
      `feed_read_speedup=${fmt(ours.result.rps / naive.result.rps)} feed_read_round_trips=${fmt(ours.roundTrips)} feed_read_pg_statements=${fmt(ours.statements)} feed_read_billed_commands=${fmt(ours.billed)} feed_read_p99_ms=${fmt(ours.result.p99Ms)} init_pg_statements=${fmt(avg(coldStatements))} fanout_10k_ms=${Math.round(fanoutMs)} fanout_10k_round_trips=${fanoutRoundTrips} follow_round_trips=${followRoundTrips} big_publish_commands=${bigPublishCommands} naive_big_publish_commands=${pushCommands * 10} merged_read_round_trips=${fmt(merged.roundTrips)} merged_read_speedup=${fmt(merged.result.rps / mergedNaive.result.rps)} ranked_read_p99_ms=${fmt(ranked.result.p99Ms)} trending_commands_per_increment=${fmt(trendingPerIncrement)} fanout_behind_syncs_ms=${Math.round(behindSyncsMs)} ranked_vs_chrono=${fmt(ranked.result.rps / chrono.result.rps)} feed_read_cpu_ms=${ours.cpuMs.toFixed(3)} merged_read_cpu_ms=${merged.cpuMs.toFixed(3)} ranked_read_cpu_ms=${ranked.cpuMs.toFixed(3)} trending_stampede_zunionstores=${coldStampede.zunionstores}`
    );
  } finally {
    for (const c of clients.slice(1)) c.disconnect();
    await close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
