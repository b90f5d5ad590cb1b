/**
 * `npm run bench:badges` — unread badges in workerd (Miniflare API, fresh local stack):
 *   1. a system broadcast reaching 1,000,000 users: ours (one Postgres row + a few Redis commands on
 *      a shared id set, whatever the audience) against the naive write diffusion (one Redis write
 *      per recipient), run at 100,000 users over direct TCP pipelines (kinder to the naive design
 *      than Upstash REST would be) and extrapolated to 1,000,000;
 *   2. `GET /v1/me/badges` for a user following 2,000 authors in 500 streams: requests/s and
 *      p50/p99 against the same badges computed in Postgres (`/v1/bench/naive-badges`), side by
 *      side; Redis round trips per call (bridge requests) and billed commands per call
 *      (`INFO commandstats` deltas: EVALSHA_RO + every command the script runs);
 *   3. Redis bytes per user for the markers (`MEMORY USAGE` of the per-user marker keys);
 *   4. the billed commands of `GET /v1/me/badges?cap=99` for readers following 0, 10 and 200 big
 *      accounts, each of which posted once since the reader's last first-page read (5 posts of
 *      normal accounts are new on the timeline too): the `feed` badge merges their outboxes.
 *
 * All of it runs twice in one run, on a fresh stack each: over one Redis database (N = 1) and over
 * three (N = 3: each user's keys on their database, the global keys the badges read uses written to
 * every database; billed commands and bridge requests are summed over all of them). Seeds and
 * direct reads go to each key's database. `--databases 1,3` is the default; `--databases 1` runs
 * N = 1 alone. The RESULT line keeps N = 1's keys as they are and adds N = 3's with `_n3`.
 */
import { performance } from "node:perf_hooks";
import { Redis as IORedis } from "ioredis";
import { databaseOf } from "../../src/lib/redis-topology.js";
import { badgeKeys, BUILT, STREAM_META, streamName, USER_TTL_SECONDS } from "../../src/badges/keys.js";
import { feedKeys, TIMELINE_TTL_SECONDS } from "../../src/feed/keys.js";
import { billedCommandsBetween, bridgeRequests, printTable, redisCommandStats, resetBridgeStats, runLoad, startBenchWithClients, runAtDatabases } from "./harness.js";

const NAIVE_USERS = 100_000;
const TARGET_USERS = 1_000_000;
const BROADCASTS = 20;
const AUTHORS = 2_000;
const STREAMS = 500;
const STREAMS_WITH_NEWS = 10;
const UNREAD_AUTHOR_EVERY = 100; // 20 authors with one new post: both HMGET chunks are read
const LOAD_MS = 4_000;
const CONCURRENCY = 16;
const SAMPLE_CALLS = 20;

const ME = "7000000000001";
const LIGHT = "7000000000002";
const author = (i: number) => String(8_000_000_000_000 + i);
const bigAccount = (j: number) => String(8_500_000_000_000 + j);
const bigReader = (k: number) => String(7_100_000_000_000 + k);
/** Readers' big follows measured, and the marker their last first-page read left (a post id). */
const BIG_FOLLOWS = [0, 10, 200];
const MARKER = 1_000_000;
const stream = (j: number) => ({ kind: "chat", id: String(9_000_000_000_000 + j) });

async function main() {
  await runAtDatabases(benchAt);
}

/** One pass of every measure over a fresh stack of `databases` Redis databases; prints its tables, answers its RESULT keys. */
async function benchAt(databases: number): Promise<Record<string, string>> {
  const { bench, redis, db, close } = await startBenchWithClients({ redisDatabases: databases });
  // A direct client per database (database 0's is the harness'): a user's keys are on
  // `databaseOf(userId)`, the global keys the badges read uses on every database.
  const clients = [redis, ...bench.stack.databases.slice(1).map((d) => new IORedis(d.redisUrl))];
  const redisOf = (userId: string) => clients[databaseOf(userId, databases)]!;
  const auth = async (sub: string, role?: "user" | "service" | "admin") => ({ Authorization: `Bearer ${await bench.token(sub, role)}` });
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(bench.url + path, { method, headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  try {
    const rows: Record<string, string | number>[] = [];

    // ── 1. Broadcast to 1,000,000 users ─────────────────────────────────────
    const admin = await auth("1", "admin");
    let before = await redisCommandStats(bench.stack);
    let started = performance.now();
    for (let i = 0; i < BROADCASTS; i++) await call("POST", "/v1/broadcasts", admin, { title: `Broadcast ${i}`, body: "Scheduled maintenance" });
    const oursMs = (performance.now() - started) / BROADCASTS;
    const oursBilled = billedCommandsBetween(before, await redisCommandStats(bench.stack));
    const broadcastWrites = oursBilled.total / BROADCASTS;

    started = performance.now();
    for (let from = 0; from < NAIVE_USERS; from += 10_000) {
      const p = redis.pipeline();
      for (let u = from; u < from + 10_000; u++) p.hincrby(`bench:naive:n:${6_000_000_000_000 + u}`, "broadcast", 1);
      await p.exec();
    }
    const naiveMs = performance.now() - started;
    const naiveWritesAt1M = TARGET_USERS; // one write per recipient, by construction
    rows.push(
      { scenario: "broadcast → 1M users", design: "ours (read diffusion)", users: TARGET_USERS, "redis cmds/broadcast": broadcastWrites, "pg rows": 1, "ms/broadcast": oursMs, note: "independent of audience" },
      { scenario: "broadcast → 1M users", design: "naive (1 write/user)", users: NAIVE_USERS, "redis cmds/broadcast": NAIVE_USERS, "pg rows": 0, "ms/broadcast": naiveMs, note: "measured" },
      { scenario: "broadcast → 1M users", design: "naive (1 write/user)", users: TARGET_USERS, "redis cmds/broadcast": naiveWritesAt1M, "pg rows": 0, "ms/broadcast": naiveMs * (TARGET_USERS / NAIVE_USERS), note: "extrapolated ×10" },
    );

    // ── 2. Seed a user following 2,000 authors in 500 streams ───────────────
    const now = Date.now();
    await db.query(`INSERT INTO follows (follower_id, followee_id, created_at) SELECT $1::bigint, 8000000000000 + i, now() - interval '1 day' FROM generate_series(0, $2 - 1) i`, [ME, AUTHORS]);
    // 5 posts per author, all before the follow except one for every 100th author; plus noise.
    await db.query(`INSERT INTO posts (author_id, text, created_at) SELECT 8000000000000 + i / 5, 'old', now() - interval '2 days' FROM generate_series(0, $1 * 5 - 1) i WHERE NOT ((i / 5) % $2 = 0 AND i % 5 = 4)`, [AUTHORS, UNREAD_AUTHOR_EVERY]);
    await db.query(`INSERT INTO posts (author_id, text) SELECT 8000000000000 + i, 'new' FROM generate_series(0, $1 - 1, $2) i`, [AUTHORS, UNREAD_AUTHOR_EVERY]);
    await db.query(`INSERT INTO posts (author_id, text, created_at) SELECT 5000000000000 + i % 5000, 'noise', now() - interval '3 days' FROM generate_series(1, 100000) i`);
    const pub: string[] = [];
    const seen: string[] = [BUILT, "1"];
    for (let i = 0; i < AUTHORS; i++) {
      pub.push(author(i), "5");
      seen.push(author(i), i % UNREAD_AUTHOR_EVERY === 0 ? "4" : "5");
    }
    for (const client of clients) await client.hset(badgeKeys.authorPublished(), ...pub);
    await redisOf(ME).hset(badgeKeys.authorSeen(ME), ...seen);
    await redisOf(ME).expire(badgeKeys.authorSeen(ME), 30 * 24 * 3600);
    // Streams: access an hour ago; most streams quiet since, a few with 5 new items of 99 kept.
    const access: string[] = [BUILT, "1"];
    const last: string[] = [];
    const accessAt = now - 3_600_000;
    const items = clients.map((client) => client.pipeline());
    for (let j = 0; j < STREAMS; j++) {
      const s = stream(j);
      const name = streamName(s.kind, s.id);
      access.push(name, String(accessAt));
      const news = j < STREAMS_WITH_NEWS;
      const newest = news ? now - 60_000 : now - 7_200_000;
      // what ADD_STREAM_ITEM leaves: the last item time and the version (the 99th add, items alive 30 days)
      last.push(name, String(newest), `${STREAM_META}${name}`, `99:${now + USER_TTL_SECONDS * 1000}`);
      const z: (string | number)[] = [];
      for (let k = 0; k < 99; k++) z.push(newest - k * (news ? 1000 : 60_000), `${j}:${k}`);
      // newest 5 of a stream with news fall after the access; the rest are older than it
      if (news) for (let k = 5; k < 99; k++) z[k * 2] = accessAt - k * 1000;
      for (const p of items) p.zadd(badgeKeys.streamItems(name), ...z);
    }
    for (const p of items) await p.exec();
    await redisOf(ME).hset(badgeKeys.streamAccess(ME), ...access);
    for (const client of clients) await client.hset(badgeKeys.streamLastItem(), ...last);
    await db.query(`INSERT INTO stream_members (user_id, view_code, view_id) SELECT $1::bigint, 'chat', 9000000000000 + j FROM generate_series(0, $2 - 1) j`, [ME, STREAMS]);
    await db.query(
      `INSERT INTO user_access_log (user_id, view_code, view_id, last_access_at) SELECT $1::bigint, 'chat', 9000000000000 + j, to_timestamp($3::bigint / 1000.0) FROM generate_series(0, $2 - 1) j`,
      [ME, STREAMS, accessAt],
    );
    // Broadcasts: the user read up to the 10th newest; notifications, DMs, inbox, red dots.
    const { rows: bc } = await db.query(`SELECT id::text FROM broadcasts ORDER BY id DESC OFFSET 10 LIMIT 1`);
    await db.query(`INSERT INTO broadcast_reads (user_id, last_read_id) VALUES ($1, $2)`, [ME, bc[0].id]);
    await redisOf(ME).hset(badgeKeys.markers(ME), "bc", bc[0].id);
    await redisOf(ME).hset(badgeKeys.notifications(ME), "reply", 3, "like", 10, "total", 13);
    await redisOf(ME).hset(badgeKeys.dms(ME), "42", 2, "total", 2);
    const service = await auth("1", "service");
    for (let i = 0; i < 3; i++) await call("POST", "/v1/messages", service, { to: [ME, LIGHT], type: i ? "system" : "promo", title: "t", content: "c" });
    for (let c = 0; c < 10; c++) await call("PUT", `/v1/reddots/channel-${c}`, admin);
    const me = await auth(ME);
    for (let c = 0; c < 5; c++) await call("POST", `/v1/me/reddots/channel-${c}/seen`, me);
    await db.query("ANALYZE");

    const first = await call("GET", "/v1/me/badges", me); // builds the inbox cache
    const naiveBody = await call("GET", "/v1/bench/naive-badges", me);
    if (process.env.BENCH_DEBUG) console.error(JSON.stringify({ first, naiveBody }));

    resetBridgeStats(bench.stack);
    before = await redisCommandStats(bench.stack);
    for (let i = 0; i < SAMPLE_CALLS; i++) await call("GET", "/v1/me/badges", me);
    const billed = billedCommandsBetween(before, await redisCommandStats(bench.stack));
    const roundTrips = bridgeRequests(bench.stack) / SAMPLE_CALLS;
    const billedPerCall = billed.total / SAMPLE_CALLS;
    const byCommand = Object.entries(billed.byCommand)
      .map(([c, n]) => `${c}=${n / SAMPLE_CALLS}`)
      .join(" ");

    const ours = await runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: () => ({ path: "/v1/me/badges?cap=99", headers: me }) });
    const naive = await runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: LOAD_MS, request: () => ({ path: "/v1/bench/naive-badges?cap=99", headers: me }) });
    const speedup = ours.rps / naive.rps;
    rows.push(
      { scenario: "GET /v1/me/badges (2,000 authors, 500 streams)", design: "ours (1 EVALSHA_RO)", "req/s": ours.rps, "p50 ms": ours.p50Ms, "p99 ms": ours.p99Ms, errors: ours.errors, "round trips/call": roundTrips, "billed cmds/call": billedPerCall, note: byCommand },
      { scenario: "GET /v1/me/badges (2,000 authors, 500 streams)", design: "naive (Postgres per request)", "req/s": naive.rps, "p50 ms": naive.p50Ms, "p99 ms": naive.p99Ms, errors: naive.errors, "round trips/call": 0, "billed cmds/call": 0, note: "4 queries; skips Redis-only kinds" },
    );

    // ── 3. Marker bytes per user ────────────────────────────────────────────
    const light = await auth(LIGHT);
    for (let i = 0; i < 50; i++) await call("PUT", `/v1/me/following/${author(i)}`, light);
    for (let j = 0; j < 10; j++) await call("PUT", `/v1/streams/chat/${stream(j).id}/members/${LIGHT}`, service);
    for (let c = 0; c < 3; c++) await call("POST", `/v1/me/reddots/channel-${c}/seen`, light);
    await call("GET", "/v1/me/badges", light);
    const markerKeys = (u: string) => [badgeKeys.markers(u), badgeKeys.reddotSeen(u), badgeKeys.authorSeen(u), badgeKeys.streamAccess(u)];
    const bytes = async (u: string) => {
      let total = 0;
      const parts: string[] = [];
      for (const key of markerKeys(u)) {
        const n = Number((await redisOf(u).call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);
        total += n;
        parts.push(`${key.split(":").slice(0, -1).join(":")}=${n}`);
      }
      return { total, parts: parts.join(" ") };
    };
    const heavy = await bytes(ME);
    const lightBytes = await bytes(LIGHT);
    rows.push(
      { scenario: "marker bytes/user", design: "2,000 authors, 500 streams, 5 dots", bytes: heavy.total, note: heavy.parts },
      { scenario: "marker bytes/user", design: "50 authors, 10 streams, 3 dots", bytes: lightBytes.total, note: lightBytes.parts },
    );

    // ── 4. Readers following 0, 10 and 200 big accounts ─────────────────────
    // Every big account has 20 posts older than the marker and 1 newer (its outbox, its activity);
    // each reader's timeline has 50 posts older than the marker and 5 newer. The readers' keys are
    // on their databases; the outboxes and activity, which their badges read merges, on every one.
    const seedBig = redis.pipeline();
    const seedEvery = clients.map((client) => client.pipeline());
    for (let j = 0; j < Math.max(...BIG_FOLLOWS); j++) {
      const ob: (string | number)[] = [];
      for (let m = 0; m < 20; m++) ob.push(800_000 + j * 20 + m, `${800_000 + j * 20 + m}:${bigAccount(j)}`);
      ob.push(MARKER + 500 + j, `${MARKER + 500 + j}:${bigAccount(j)}`);
      for (const p of seedEvery) p.zadd(feedKeys.outbox(bigAccount(j)), ...ob).zadd(feedKeys.activity(), MARKER + 500 + j, bigAccount(j));
      seedBig.hset(feedKeys.bigStates(), bigAccount(j), "big");
    }
    for (const k of BIG_FOLLOWS) {
      const u = bigReader(k);
      const seedReader = redisOf(u).pipeline();
      const tl: (string | number)[] = [0, BUILT];
      for (let i = 0; i < 50; i++) tl.push(900_000 + k * 100 + i, `${900_000 + k * 100 + i}:${author(i)}`);
      for (let i = 0; i < 5; i++) tl.push(MARKER + 100 + i, `${MARKER + 100 + i}:${author(i)}`);
      seedReader.zadd(feedKeys.timeline(u), ...tl).expire(feedKeys.timeline(u), TIMELINE_TTL_SECONDS);
      seedReader.set(feedKeys.seen(u), MARKER, "EX", TIMELINE_TTL_SECONDS);
      if (k > 0) seedReader.sadd(feedKeys.bigFollows(u), ...Array.from({ length: k }, (_, j) => bigAccount(j))).expire(feedKeys.bigFollows(u), TIMELINE_TTL_SECONDS);
      await seedReader.exec();
    }
    await seedBig.exec();
    for (const p of seedEvery) await p.exec();
    const bigBilled: Record<number, number> = {};
    for (const k of BIG_FOLLOWS) {
      const reader = await auth(bigReader(k));
      const body = await call("GET", "/v1/me/badges?cap=99", reader); // builds the reader's caches
      before = await redisCommandStats(bench.stack);
      for (let i = 0; i < SAMPLE_CALLS; i++) await call("GET", "/v1/me/badges?cap=99", reader);
      const b = billedCommandsBetween(before, await redisCommandStats(bench.stack));
      bigBilled[k] = b.total / SAMPLE_CALLS;
      rows.push({
        scenario: `GET /v1/me/badges, reader following ${k} big accounts`,
        design: "ours (1 EVALSHA_RO)",
        "billed cmds/call": bigBilled[k]!,
        note: `feed ${JSON.stringify(body.feed)}; ${Object.entries(b.byCommand).map(([c, n]) => `${c}=${n / SAMPLE_CALLS}`).join(" ")}`,
      });
    }

    printTable(rows);
    return {
      broadcast_writes: String(broadcastWrites),
      naive_broadcast_writes: String(naiveWritesAt1M),
      badges_round_trips: String(roundTrips),
      badges_billed_commands: String(billedPerCall),
      badges_speedup: speedup.toFixed(2),
      badges_p99_ms: ours.p99Ms.toFixed(1),
      marker_bytes_per_user: String(heavy.total),
      badges_billed_commands_big0: String(bigBilled[0]),
      badges_billed_commands_big10: String(bigBilled[10]),
      badges_billed_commands_big200: String(bigBilled[200]),
    };
  } finally {
    for (const client of clients.slice(1)) client.disconnect();
    await close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
