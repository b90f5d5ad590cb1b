/**
 * `npm run bench:geo` — a user far from the primary region (R = 200 ms round trip by default,
 * `--far-region-ms R` or BENCH_FAR_REGION_MS), the same calls against two layouts in one process,
 * over one far-region stack (`startStack({ farRegionMs })`, docs/regions.md "Local far-region stack"):
 *
 *   single  today's single-region layout: the Worker's Redis calls all go to the primary, R away
 *           (a delaying link, R/2 each way, in front of each primary's bridge), `REDIS_READ_REGIONS`
 *           off; at N = 1.
 *   global  an Upstash Global database: the near-region bridges over replicas (reads answered near,
 *           everything else forwarded R away), `REDIS_READ_REGIONS = on`, the app's token carried;
 *           at N = 1 and at N = 3 (the stack's three databases).
 *
 * Postgres is R away in both (Neon has no read replicas). Measured:
 *   1. every warm read call (counter read, a 20-id batch, badges, the feed page of every kind — first
 *      and next chronological page, merged with a big account, ranked first and next —, a post's
 *      detail, an author's posts, followers, the inbox and the device list, and trending,
 *      global layouts after the per-minute cron stored its lists and their 5 s fresh copies expired):
 *      p50/p99 and requests that reached a primary per call (counted at the primaries' bridges);
 *      `far_rounds_read_calls` is how many of the global layout's calls (N = 1 and N = 3) sent any;
 *   2. every write call (like, follow, post, increment, mark read, device registration): far rounds
 *      on its request path — the requests its read regions forwarded to a primary before its
 *      answer (`far_rounds_write_calls`, Redis alone), and with them the requests it sent over the
 *      Postgres link (Neon's HTTP endpoint, R away; each spans R from the Worker), in runs of
 *      overlapping ones: the worst as `max_write_rounds_far`. Then a like, a post, a follow and a
 *      device registration timed in both layouts at N = 1 (p50/p99; `*_p50_global` in RESULT);
 *   3. write-then-read pairs of each client (like then its feed page shows `liked`, follow then its
 *      following list, post then its own feed and its own profile, mark read then its badges,
 *      increment then the counter read, a device registration then the device list), PAIRS of them with the client's token carried as `community-edge/client` carries it
 *      (`consistentFetch`), then as many without: a pair whose first read misses the write is a
 *      violation. Without the token the client polls until the write shows: from its answer to the
 *      first read that showed it is what a second device of the user waits
 *      (`second_device_staleness_ms_p99`).
 *
 * The replicas apply the primary's stream `--replication-lag-ms` (default 50, each way) later than a
 * write's answer reaches the Worker, so a read without the token can miss (docs/regions.md).
 * `write_billed_multiplier`: Upstash bills each write once in the primary and once more per read
 * region; this layout has one read region, a deployment names as many as it has (stated, not measured).
 */
import { performance } from "node:perf_hooks";
import { Redis as IORedis } from "ioredis";
import pg from "pg";
import { consistentFetch } from "../../src/client/http.js";
import { CRON_SCHEDULES } from "../../src/cron.js";
import { feedKeys } from "../../src/feed/keys.js";
import { databaseOf } from "../../src/lib/redis-topology.js";
import { startDelayingProxy } from "../stack/delaying-proxy.js";
import type { Stack } from "../stack/index.js";
import type { RequestSpan } from "../stack/upstash-bridge.js";
import { benchLog, bridgeRequests, formatNumber, loadEveryScript, percentile, printTable, quiet, runLoad, startBenchWithClients, startBenchWorkerOn, type BenchWorker } from "./harness.js";
import { countRounds, roundsText } from "./rounds.js";

const FAR_MS = numberOption("--far-region-ms", "BENCH_FAR_REGION_MS", 200);
const LAG_MS = numberOption("--replication-lag-ms", "BENCH_REPLICATION_LAG_MS", 50);
/** Write-then-read pairs with the token, and as many without. */
const PAIRS = numberOption("--pairs", "BENCH_GEO_PAIRS", 2_000);
/**
 * Clients making pairs at once, per global layout and per mode (with and without the token, side by
 * side so both meet the same load): 4 × this many requests in flight, most holding a Postgres
 * connection, beside their `waitUntil` work and the queue consumers (embedded Postgres: 300).
 */
const CLIENTS = 16;
/** Calls sampled per warm read, and how many at once. */
const SAMPLES = 20;
const SAMPLE_CONCURRENCY = 4;
/** Read regions of the modelled Global database (one: the Worker's). */
const READ_REGIONS = 1;
const POSTS_PER_AUTHOR = 40;
const AUTHORS = 3;
const MERGED_READERS = 4;
/** Longest a write may take to show for a client polling without its token. */
const CONVERGE_MS = 10_000;

type Fetch = (request: Request) => Promise<Response>;

/** One Worker of a layout, with the users it serves (ids of its own, so layouts never share state). */
interface Layout {
  name: string;
  global: boolean;
  n: number;
  worker: BenchWorker;
  authors: string[];
  big: string;
  readers: string[];
  mergedReaders: string[];
  writer: string;
  /** Posts by the authors, newest first. */
  posts: string[];
  service: string;
}

async function main() {
  const started = performance.now();
  console.log(`bench:geo — a user ${FAR_MS} ms (round trip) from the primary region; replicas ${LAG_MS} ms behind the answers, each way; ${PAIRS} pairs with and without the token`);
  // `push`: the local push services, so device registrations are taken (FCM tokens, sent to the stand-in).
  const { bench, db, close } = await startBenchWithClients({ redisDatabases: 3, farRegionMs: FAR_MS, farReplicationLagMs: LAG_MS, push: true, vars: { REDIS_READ_REGIONS: "on" } });
  const stack = bench.stack;
  const primaries = stack.databases.map((d) => new IORedis(d.redisUrl));
  try {
    // The single-region layout: the primary's own bridge, R away.
    const link = await startDelayingProxy({ targetHost: "127.0.0.1", targetPort: stack.databases[0]!.bridge.port, delayMs: FAR_MS / 2 });
    const n1 = { UPSTASH_REDIS_DATABASES: "", UPSTASH_REDIS_REST_TOKEN: stack.restToken };
    const [single1, global1] = await Promise.all([
      startBenchWorkerOn(stack, { log: benchLog, push: true, vars: { ...n1, UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${link.port}`, REDIS_READ_REGIONS: "off" } }),
      startBenchWorkerOn(stack, { log: benchLog, push: true, vars: { ...n1, UPSTASH_REDIS_REST_URL: stack.restUrl, REDIS_READ_REGIONS: "on" } }),
    ]);
    try {
      const layouts: Layout[] = [];
      for (const [k, [name, worker, global, n]] of ([
        ["single, N = 1", single1, false, 1],
        ["global, N = 1", global1, true, 1],
        ["global, N = 3", bench, true, 3],
      ] as const).entries()) {
        layouts.push(await seedLayout(db, primaries, { name, worker, global, n }, 10_000_000 * (k + 1)));
      }
      benchLog(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      await Promise.all(layouts.map(warm));
      benchLog(`warm at ${((performance.now() - started) / 1000).toFixed(0)} s`);

      // ── 1. Warm reads ──
      const reads: { layout: string; call: string; p50: number; p99: number; primaryPerCall: number; sent: string }[] = [];
      for (const layout of layouts) {
        for (const call of await readCalls(layout)) {
          await call.prepare?.();
          await quiet(stack);
          const before = bridgeRequests(stack);
          // What the read regions forwarded (global layouts): says which write a read call sent, if any.
          const stops = layout.global ? stack.databases.map((d) => d.readRegion!.near.trace()) : [];
          const load = await runLoad({ baseUrl: layout.worker.url, concurrency: SAMPLE_CONCURRENCY, total: SAMPLES, request: call.request });
          if (load.errors > 0) throw new Error(`${layout.name} ${call.name}: ${load.errors} failed (${JSON.stringify(load.errorStatuses)})`);
          await settle();
          const forwarded = stops.flatMap((stop) => stop());
          reads.push({ layout: layout.name, call: call.name, p50: load.p50Ms, p99: load.p99Ms, primaryPerCall: (bridgeRequests(stack) - before) / load.requests, sent: tally(forwarded.map((s) => s.commands?.join(",") ?? "?")) });
        }
      }
      benchLog(`reads measured at ${((performance.now() - started) / 1000).toFixed(0)} s`);
      console.log("\nWarm reads (requests reaching a primary, per call, counted at the primaries' bridges):");
      printTable(reads.map((r) => ({ layout: r.layout, call: r.call, "p50 ms": r.p50, "p99 ms": r.p99, "to the primary /call": r.primaryPerCall, "forwarded by the read region": r.sent })));

      // ── 2. Writes: primary rounds on the request path ──
      // Every script on every database, as after a while in production (a first use anywhere is a
      // refused EVALSHA and an EVAL: a round of that database's first call, not of every call).
      await loadEveryScript(stack);
      const writes: { layout: string; call: string; rounds: number; farRounds: number; ms: number; sent: string }[] = [];
      for (const layout of layouts.filter((l) => l.global)) {
        for (const call of writeCalls(layout)) {
          // A first call unmeasured: caches of the writer built, as in a warm isolate.
          await call.prepare?.();
          await call.send(3);
          for (let i = 0; i < 2; i++) {
            await call.prepare?.();
            // The last call's queued work (a follow's sync, a post's fan-out: a batch waits up to
            // 1 s, then reads Postgres R away) and its `waitUntil` writes done: not this call's rounds.
            await quiet(stack, { stillMs: WRITE_QUIET_MS });
            const { rounds, farRounds, ms, sent } = await roundsOf(stack, () => call.send(i));
            writes.push({ layout: layout.name, call: call.name, rounds, farRounds, ms, sent });
          }
        }
      }
      benchLog(`write rounds measured at ${((performance.now() - started) / 1000).toFixed(0)} s`);
      console.log("\nWrites, global layout (far rounds on the request path: Redis primaries and Postgres; worst of 2, after one unmeasured):");
      const worstWrite = new Map<string, (typeof writes)[number]>();
      for (const w of writes) {
        const key = `${w.layout}|${w.call}`;
        if (!worstWrite.has(key) || worstWrite.get(key)!.farRounds < w.farRounds) worstWrite.set(key, w);
      }
      printTable([...worstWrite.values()].map((w) => ({ layout: w.layout, call: w.call, "far rounds": w.farRounds, "Redis primary rounds": w.rounds, ms: w.ms, "sent (pg: Postgres), | between rounds": w.sent })));

      // Each write's latency alone, in both layouts at N = 1 (the pairs' writes wait behind each other).
      const writeTimes: { layout: string; call: string; p50: number; p99: number }[] = [];
      for (const layout of layouts.filter((l) => l.n === 1)) {
        for (const write of await timedWrites(layout)) {
          await quiet(stack);
          const load = await runLoad({ baseUrl: layout.worker.url, concurrency: SAMPLE_CONCURRENCY, total: SAMPLES, request: write.request });
          if (load.errors > 0) throw new Error(`${layout.name} ${write.name}: ${load.errors} failed (${JSON.stringify(load.errorStatuses)})`);
          writeTimes.push({ layout: layout.name, call: write.name, p50: load.p50Ms, p99: load.p99Ms });
        }
      }
      benchLog(`writes timed at ${((performance.now() - started) / 1000).toFixed(0)} s`);
      console.log(`\nWrites, ${SAMPLES} calls ${SAMPLE_CONCURRENCY} at a time, N = 1 (target: each ≤ 2 R + 30 = ${2 * FAR_MS + 30} ms p50 in the global layout):`);
      printTable(writeTimes.map((w) => ({ layout: w.layout, call: w.call, "p50 ms": w.p50, "p99 ms": w.p99 })));
      const writeP50 = (call: string) => writeTimes.find((w) => w.layout === "global, N = 1" && w.call === call)!.p50;

      // ── 3. Read your writes ──
      const globals = layouts.filter((l) => l.global);
      const [withToken, withoutToken] = await Promise.all([runPairs(globals, true), runPairs(globals, false)]);
      console.log(`\nWrite-then-read pairs (first read after the write missed it = violation; calls sent again after a 503 or a dropped connection: ${retried}):`);
      printTable(
        PAIR_KINDS.flatMap((kind) =>
          [withToken, withoutToken].map((run) => ({
            pair: kind,
            token: run.withToken ? "carried" : "none",
            pairs: run.byKind[kind]!.pairs,
            violations: run.byKind[kind]!.violations,
            "write p50 ms": percentile(sorted(run.byKind[kind]!.writeMs), 0.5),
            "read p50 ms": percentile(sorted(run.byKind[kind]!.readMs), 0.5),
            "staleness p99 ms": run.withToken ? "" : percentile(sorted(run.byKind[kind]!.stalenessMs), 0.99),
          })),
        ),
      );

      const p50 = (layout: string, call: string) => reads.find((r) => r.layout === layout && r.call === call)!.p50;
      const globalReads = reads.filter((r) => r.layout.startsWith("global"));
      const farReads = globalReads.filter((r) => r.primaryPerCall > 0);
      const farWriteRounds = Math.max(...writes.map((w) => w.rounds));
      const maxWriteRoundsFar = Math.max(...writes.map((w) => w.farRounds));
      console.log(`\nGlobal layout's read calls that reached a primary: ${farReads.length ? farReads.map((r) => `${r.call} (${r.layout}: ${formatNumber(r.primaryPerCall)}/call)`).join("; ") : "none"}`);
      const staleness = sorted(withoutToken.stalenessMs);
      console.log(`Second device (no token): ${staleness.filter((ms) => ms > 0).length} of ${staleness.length} writes not shown by the read right after; p50 ${formatNumber(percentile(staleness, 0.5))} ms, p99 ${formatNumber(percentile(staleness, 0.99))} ms, max ${formatNumber(staleness.at(-1) ?? 0)} ms until a read showed the write`);
      console.log(`Write billed multiplier: 1 (the primary) + ${READ_REGIONS} read region${READ_REGIONS === 1 ? "" : "s"} = ${1 + READ_REGIONS}; a database with k read regions bills each write 1 + k times.`);
      console.log(`Total ${((performance.now() - started) / 1000).toFixed(0)} s`);
      const fmt = (v: number) => formatNumber(v);
      const screens = SCREENS.map(([key, call]) => `${key}_p50_single=${fmt(p50("single, N = 1", call))} ${key}_p50_global=${fmt(p50("global, N = 1", call))}`).join(" ");
      console.log(
        `RESULT geo_far_rtt_ms=${FAR_MS} ${screens} feed_page_p50_single=${fmt(p50("single, N = 1", FEED_FIRST))} feed_page_p50_global=${fmt(p50("global, N = 1", FEED_FIRST))} badges_p50_single=${fmt(p50("single, N = 1", "badges"))} badges_p50_global=${fmt(p50("global, N = 1", "badges"))} counter_read_p50_single=${fmt(p50("single, N = 1", COUNTER_READ))} counter_read_p50_global=${fmt(p50("global, N = 1", COUNTER_READ))} like_p50_global=${fmt(writeP50("like"))} post_write_p50_global=${fmt(writeP50("post"))} follow_p50_global=${fmt(writeP50("follow"))} device_register_p50_global=${fmt(writeP50("device registration"))} max_write_rounds_far=${maxWriteRoundsFar} far_rounds_read_calls=${farReads.length} far_rounds_write_calls=${farWriteRounds} ryw_violations_with_token=${withToken.violations} ryw_violations_without_token=${withoutToken.violations} second_device_staleness_ms_p99=${fmt(percentile(sorted(withoutToken.stalenessMs), 0.99))} write_billed_multiplier=${1 + READ_REGIONS}`,
      );
      await link.close();
    } finally {
      await single1.stop();
      await global1.stop();
    }
  } finally {
    for (const p of primaries) p.disconnect();
    await close();
  }
}

// ── Fixture ──

/**
 * Per layout: three authors with 40 posts each and a big account (pulled by readers, as a finished
 * transition leaves it), readers following the authors (the pair clients), a few readers who also
 * follow the big account (merged pages), a writer and a service caller. Postgres rows first, then
 * the big account's Redis state on every database's primary; timelines are built by first reads.
 */
async function seedLayout(db: pg.Client, primaries: IORedis[], layout: Pick<Layout, "name" | "worker" | "global" | "n">, base: number): Promise<Layout> {
  const id = (offset: number) => String(base + offset);
  const authors = Array.from({ length: AUTHORS }, (_, i) => id(1 + i));
  const big = id(9);
  const readers = Array.from({ length: 2 * CLIENTS }, (_, i) => id(1_000 + i));
  const mergedReaders = Array.from({ length: MERGED_READERS }, (_, i) => id(3_000 + i));
  await db.query(`INSERT INTO posts (author_id, text) SELECT a, 'post ' || g FROM unnest($1::bigint[]) a, generate_series(1, $2) g`, [[...authors, big], POSTS_PER_AUTHOR]);
  await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT r, a FROM unnest($1::bigint[]) r, unnest($2::bigint[]) a`, [[...readers, ...mergedReaders], authors]);
  await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT r, $2 FROM unnest($1::bigint[]) r`, [mergedReaders, big]);
  await db.query(`INSERT INTO feed_big_accounts (author_id, state) VALUES ($1, 'big')`, [big]);
  const { rows } = await db.query<{ id: string; author: string }>(`SELECT id::text, author_id::text AS author FROM posts WHERE author_id = ANY($1::bigint[]) ORDER BY id DESC`, [[...authors, big]]);
  for (const p of primaries) {
    const pipe = p.pipeline().hset(feedKeys.bigStates(), big, "big");
    for (const r of rows.filter((r) => r.author === big)) pipe.zadd(feedKeys.outbox(big), r.id, `${r.id}:${big}`);
    pipe.zadd(feedKeys.activity(), rows.find((r) => r.author === big)!.id, big);
    await pipe.exec();
  }
  for (const reader of mergedReaders) await primaries[databaseOf(reader, layout.n)]!.sadd(feedKeys.bigFollows(reader), big);
  return { ...layout, authors, big, readers, mergedReaders, writer: id(7_000), posts: rows.filter((r) => r.author !== big).map((r) => r.id), service: id(9_000) };
}

/** Every reader's timeline built, caches filled, scripts loaded: what the measured calls find. */
async function warm(layout: Layout): Promise<void> {
  const { worker } = layout;
  const users = [...layout.readers, ...layout.mergedReaders, layout.writer];
  const tokens = await Promise.all(users.map((u) => worker.token(u)));
  // A failed warm-up call leaves its caches unbuilt and the measured calls cold: asked again up to
  // twice, then said in the output (the measured calls of that layout are cold, not warm).
  const everyone = async (path: string) => {
    for (let attempt = 1; ; attempt++) {
      const load = await runLoad({ baseUrl: worker.url, concurrency: 12, total: users.length, request: (i) => ({ path, headers: { Authorization: `Bearer ${tokens[i]}` } }) });
      if (load.errors === 0) return;
      console.log(`WARNING ${layout.name}: warming ${path}, attempt ${attempt}: ${load.errors} of ${load.requests} failed (${JSON.stringify(load.errorStatuses)})`);
      if (attempt === 3) return;
    }
  };
  // Timelines and badge caches built side by side; ranked pages read the built timelines.
  await Promise.all([everyone("/v1/me/feed?limit=20"), everyone("/v1/me/badges")]);
  // Badges again: on a fresh stack no broadcast exists, so the first call rebuilt the broadcast
  // window and the second records each user's first-seen marker (a write once per user, not per call).
  await Promise.all([everyone("/v1/me/feed?order=ranked&limit=20"), everyone("/v1/me/feed?limit=20"), everyone("/v1/me/badges")]);
  // Every counter the calls read, cached by one batch read (one Postgres statement), then read again.
  const ids = layout.posts.slice(0, 100).join(",");
  for (let i = 0; i < 2; i++) {
    await runLoad({ baseUrl: worker.url, concurrency: 1, total: 1, request: () => ({ path: `/v1/counters/post?ids=${ids}&fresh=true` }) });
    await runLoad({ baseUrl: worker.url, concurrency: 2, total: 4, request: () => ({ path: "/v1/posts/trending?window=24h&limit=20" }) });
  }
}

// ── Calls ──

/** The per-minute cron run on the layout's Worker (the trending lists stored), then 6 s: its fresh copies have expired. */
async function storedListsAged(layout: Layout): Promise<void> {
  await layout.worker.scheduled(CRON_SCHEDULES.flush);
  await new Promise((resolve) => setTimeout(resolve, 6_000));
}

const COUNTER_READ = "counter read";
const POST_DETAIL = "post detail";
const PROFILE = "profile (author's posts)";
const FOLLOWERS = "followers list";
const INBOX = "inbox list";
const DEVICES = "device list";
/** The screens' RESULT keys: `<key>_p50_single` and `<key>_p50_global` (N = 1). */
const SCREENS: [string, string][] = [
  ["post_detail", POST_DETAIL],
  ["profile", PROFILE],
  ["followers", FOLLOWERS],
  ["inbox", INBOX],
  ["devices", DEVICES],
];
const FEED_FIRST = "feed page, chronological";

/** The warm read calls of a layout, each as the load generator's request for the i-th sample. */
async function readCalls(layout: Layout) {
  const { worker } = layout;
  const auth = async (users: string[]) => {
    const tokens = await Promise.all(users.map((u) => worker.token(u)));
    return (i: number) => ({ Authorization: `Bearer ${tokens[i % users.length]}` });
  };
  const readers = await auth(layout.readers);
  const merged = await auth(layout.mergedReaders);
  /** Each reader's next-page cursor of `path` (a first page read now). */
  const cursors = async (path: string) =>
    Promise.all(
      layout.readers.map(async (_, i) => {
        const body = (await (await fetch(`${worker.url}${path}`, { headers: readers(i) })).json()) as { nextCursor: string | null };
        if (!body.nextCursor) throw new Error(`${layout.name}: ${path} has no next page`);
        return body.nextCursor;
      }),
    );
  /** `path` read once by every reader (caches it fills filled). */
  const everyReader = async (path: string) => {
    await Promise.all(layout.readers.map(async (_, i) => (await fetch(`${worker.url}${path}`, { headers: readers(i) })).arrayBuffer()));
  };
  // Each author's list read once; its cache is built after that answer (a Postgres read and a write
  // to the primary, far away), so the measured calls start once that has landed.
  const everyAuthor = async (path: (author: string) => string) => {
    await Promise.all(layout.authors.map(async (a) => (await fetch(`${worker.url}${path(a)}`)).arrayBuffer()));
    await new Promise((resolve) => setTimeout(resolve, 1_000 + 6 * FAR_MS));
  };
  const chronoNext = await cursors("/v1/me/feed?limit=20");
  const rankedNext = await cursors("/v1/me/feed?order=ranked&limit=20");
  const batch = layout.posts.slice(0, 20).join(",");
  return [
    { name: COUNTER_READ, request: (i: number) => ({ path: `/v1/counters/post?ids=${layout.posts[i % 20]}&fresh=true` }) },
    { name: "counter read, 20 ids", request: () => ({ path: `/v1/counters/post?ids=${batch}&fresh=true` }) },
    { name: "badges", request: (i: number) => ({ path: "/v1/me/badges", headers: readers(i) }) },
    { name: FEED_FIRST, request: (i: number) => ({ path: "/v1/me/feed?limit=20", headers: readers(i) }) },
    { name: "feed page, chronological, next", request: (i: number) => ({ path: `/v1/me/feed?limit=20&cursor=${encodeURIComponent(chronoNext[i % chronoNext.length]!)}`, headers: readers(i) }) },
    { name: "feed page, merged (big account)", request: (i: number) => ({ path: "/v1/me/feed?limit=20", headers: merged(i) }) },
    { name: "feed page, ranked", request: (i: number) => ({ path: "/v1/me/feed?order=ranked&limit=20", headers: readers(i) }) },
    { name: "feed page, ranked, next", request: (i: number) => ({ path: `/v1/me/feed?order=ranked&limit=20&cursor=${encodeURIComponent(rankedNext[i % rankedNext.length]!)}`, headers: readers(i) }) },
    // The app's other screens, each answered near the user from its cache when warm.
    { name: POST_DETAIL, request: (i: number) => ({ path: `/v1/posts/${layout.posts[i % 20]}`, headers: readers(i) }) },
    {
      name: PROFILE,
      prepare: () => everyAuthor((a) => `/v1/users/${a}/posts?limit=20`),
      request: (i: number) => ({ path: `/v1/users/${layout.authors[i % layout.authors.length]}/posts?limit=20`, headers: readers(i) }),
    },
    {
      name: FOLLOWERS,
      prepare: () => everyAuthor((a) => `/v1/users/${a}/followers?limit=20`),
      request: (i: number) => ({ path: `/v1/users/${layout.authors[i % layout.authors.length]}/followers?limit=20`, headers: readers(i) }),
    },
    { name: INBOX, prepare: () => everyReader("/v1/me/messages?limit=20"), request: (i: number) => ({ path: "/v1/me/messages?limit=20", headers: readers(i) }) },
    // Each reader's list cache filled by a first read, as an app's open does (here, not in `warm`,
    // so that the calls before it are measured as long after the warm-up as before).
    { name: DEVICES, prepare: () => everyReader("/v1/me/devices"), request: (i: number) => ({ path: "/v1/me/devices", headers: readers(i) }) },
    {
      name: "trending",
      // With read regions the per-minute cron stores the lists: run it as a deployment's has within
      // the last minute, and let the fresh copy (5 s) expire, so the calls answer the last copy.
      prepare: layout.global ? () => storedListsAged(layout) : undefined,
      request: () => ({ path: "/v1/posts/trending?window=24h&limit=20" }),
    },
  ] as { name: string; prepare?: () => Promise<void>; request: (i: number) => { path: string; headers?: Record<string, string> } }[];
}

/** The write calls, each sent by the layout's writer (or its service caller), the i-th time. */
function writeCalls(layout: Layout) {
  const { worker, writer } = layout;
  const as = async (user: string, role: "user" | "service" = "user") => ({ Authorization: `Bearer ${await worker.token(user, role)}` });
  const send = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(`${worker.url}${path}`, { method, headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    if (res.status !== 200 && res.status !== 201) throw new Error(`${layout.name} ${method} ${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  return [
    { name: "like", send: async (i: number) => send("PUT", `/v1/posts/${layout.posts[30 + i]}/likes/me`, await as(writer)) },
    { name: "follow", send: async (i: number) => send("PUT", `/v1/me/following/${Number(writer) + 100 + i}`, await as(writer)) },
    { name: "post", send: async () => send("POST", "/v1/posts", await as(writer), { text: "geo" }) },
    { name: "increment", send: async (i: number) => send("POST", `/v1/counters/post/${layout.posts[i]}`, await as(layout.service, "service"), { deltas: { views: 1 } }) },
    { name: "device registration", send: async () => send("PUT", `/v1/me/devices/${crypto.randomUUID()}`, await as(writer), { kind: "fcm", token: fcmToken() }) },
    {
      name: "mark read",
      // The notification it clears comes first, from the service, outside the measured call.
      prepare: async () => send("POST", `/v1/users/${writer}/notifications`, await as(layout.service, "service"), { type: "reply", count: 1 }),
      send: async () => send("POST", "/v1/me/notifications/read", await as(writer)),
    },
  ] as { name: string; prepare?: () => Promise<void>; send: (i: number) => Promise<void> }[];
}

/**
 * The writes timed in both layouts, the i-th sample of each: the writer's like of its own post,
 * post, follow of its own followee; a device registration by the i-th reader (one user's
 * registrations wait for each other on the user's lock, as they should: not what is timed).
 */
async function timedWrites(layout: Layout): Promise<{ name: string; request: (i: number) => { method: string; path: string; headers: Record<string, string>; body?: unknown } }[]> {
  const writer = { Authorization: `Bearer ${await layout.worker.token(layout.writer)}` };
  const readers = await Promise.all(layout.readers.map(async (r) => ({ Authorization: `Bearer ${await layout.worker.token(r)}` })));
  return [
    { name: "like", request: (i) => ({ method: "PUT", path: `/v1/posts/${layout.posts[60 + i]}/likes/me`, headers: writer }) },
    { name: "post", request: () => ({ method: "POST", path: "/v1/posts", headers: writer, body: { text: "timed" } }) },
    { name: "follow", request: (i) => ({ method: "PUT", path: `/v1/me/following/${Number(layout.writer) + 200 + i}`, headers: writer }) },
    { name: "device registration", request: (i) => ({ method: "PUT", path: `/v1/me/devices/${crypto.randomUUID()}`, headers: readers[i % readers.length]!, body: { kind: "fcm", token: fcmToken() } }) },
  ];
}

/**
 * Far rounds of one call. Redis: the requests its read regions forwarded to a primary that arrived
 * before its answer, counted where the Worker sends them (each spans its round trip R there), not
 * at the primaries' bridges: requests sent at once to several databases reach their primaries a
 * few ms apart on a loaded machine, and one answered in 1 ms would count as a round of its own
 * there. Postgres: the requests that crossed the link to Neon's HTTP endpoint, each seen from the
 * Worker (R/2 before it reached the endpoint to R/2 after its answer left). `rounds`: Redis alone;
 * `farRounds`: both, in runs of overlapping requests (`rounds.ts`). `sent`: what each request
 * held, `|` between rounds.
 */
async function roundsOf(stack: Stack, send: () => Promise<void>): Promise<{ rounds: number; farRounds: number; ms: number; sent: string }> {
  const stops = stack.databases.map((d) => d.readRegion!.near.trace());
  const stopSql = stack.httpSql.trace();
  const webSockets = stack.proxy.stats.connections;
  let spans: RequestSpan[];
  let sqlSpans: RequestSpan[];
  const sentAt = performance.now();
  let answeredAt: number;
  try {
    await send();
    answeredAt = performance.now();
  } finally {
    spans = stops.flatMap((stop) => stop());
    sqlSpans = stopSql().map((s) => ({ start: s.start - FAR_MS / 2, end: s.end + FAR_MS / 2, commands: s.commands.map((c) => `pg:${c}`) }));
  }
  // An interactive transaction (the WebSocket Pool) pays a connection and a round per statement: said, not hidden.
  if (stack.proxy.stats.connections !== webSockets) console.log("WARNING a write opened a Postgres WebSocket: its statements' rounds are not counted here");
  const before = spans.filter((s) => s.start <= answeredAt!);
  const all = [...before, ...sqlSpans.filter((s) => s.start <= answeredAt!)];
  return { rounds: countRounds(before), farRounds: countRounds(all), ms: answeredAt! - sentAt, sent: roundsText(all, (s) => s.commands?.join(",") ?? "") };
}

/** `evalsha×3 get` for ["evalsha", "evalsha", "get", "evalsha"]: each distinct request's commands and how often. */
function tally(requests: string[]): string {
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, k]) => (k > 1 ? `${r}×${k}` : r)).join(" ");
}

// ── Read your writes ──

const PAIR_KINDS = ["like → feed page", "follow → following list", "post → own feed", "post → own profile", "mark read → badges", "increment → counter read", "register → device list"] as const;
type PairKind = (typeof PAIR_KINDS)[number];

interface PairStats {
  pairs: number;
  violations: number;
  writeMs: number[];
  readMs: number[];
  /** Without the token: ms from the write's answer to the start of the first read that showed it. */
  stalenessMs: number[];
}

interface PairRun {
  withToken: boolean;
  violations: number;
  stalenessMs: number[];
  byKind: Record<string, PairStats>;
}

/**
 * PAIRS write-then-read pairs over the global layouts' readers (the first CLIENTS of each with the
 * token, the next CLIENTS without), CLIENTS at once per layout. Each reader is one app: its own
 * fetch (carrying the token as `community-edge/client` does, or not), one kind of pair after
 * another, each write undoing the last where it toggles.
 */
async function runPairs(layouts: Layout[], withToken: boolean): Promise<PairRun> {
  const byKind: Record<string, PairStats> = Object.fromEntries(PAIR_KINDS.map((k) => [k, { pairs: 0, violations: 0, writeMs: [], readMs: [], stalenessMs: [] }]));
  let started = 0;
  const t0 = performance.now();
  const clients = layouts.flatMap((layout) => layout.readers.slice(withToken ? 0 : CLIENTS, withToken ? CLIENTS : 2 * CLIENTS).map((reader, i) => ({ layout, reader, i })));
  await Promise.all(
    clients.map(async ({ layout, reader, i }) => {
      const app = await pairClient(layout, reader, i, withToken);
      for (let k = i; started < PAIRS; k++) {
        started += 1;
        const kind = PAIR_KINDS[k % PAIR_KINDS.length]!;
        const outcome = await app.pair(kind);
        const stats = byKind[kind]!;
        stats.pairs += 1;
        if (!outcome.sawIt) stats.violations += 1;
        stats.writeMs.push(outcome.writeMs);
        stats.readMs.push(outcome.readMs);
        if (!withToken) stats.stalenessMs.push(outcome.stalenessMs);
      }
    }),
  );
  const all = Object.values(byKind);
  benchLog(`pairs ${withToken ? "with" : "without"} the token: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return { withToken, violations: all.reduce((s, k) => s + k.violations, 0), stalenessMs: all.flatMap((k) => k.stalenessMs), byKind };
}

/** One app of one reader: the writes and reads of each pair kind, and what each read must show. */
async function pairClient(layout: Layout, reader: string, index: number, withToken: boolean) {
  const { worker } = layout;
  // A user's app and a service caller, each a client of its own (each carries its own token).
  const appFetch: Fetch = withToken ? consistentFetch((r) => fetch(r)) : (r) => fetch(r);
  const serviceFetch: Fetch = withToken ? consistentFetch((r) => fetch(r)) : (r) => fetch(r);
  const userAuth = `Bearer ${await worker.token(reader)}`;
  const serviceAuth = `Bearer ${await worker.token(layout.service, "service")}`;
  let keys = 0;
  /**
   * One call, sent again (up to 3 times) after a 503 or a dropped connection, as an app retries:
   * on this loaded machine the Worker's socket or its Postgres connection now and then closes
   * under ~60 requests in flight. Every call may be sent twice: toggles and reads are idempotent, a
   * post's check uses the id it answered, and increments and notifications carry an Idempotency-Key.
   */
  const call = async (f: Fetch, auth: string, method: string, path: string, body?: unknown) => {
    const idempotency: Record<string, string> = method === "POST" && body ? { "Idempotency-Key": `${reader}-${withToken}-${++keys}` } : {};
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      try {
        const res = await f(new Request(`${worker.url}${path}`, { method, headers: { Authorization: auth, ...idempotency, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined }));
        const json = (await res.json()) as any;
        if (res.status < 300) return json;
        failure = `${res.status} ${JSON.stringify(json)}`;
        if (res.status !== 503) attempt = Infinity;
      } catch (error) {
        failure = String(error);
      }
      if (attempt >= 3) throw new Error(`${layout.name} ${method} ${path}: ${failure}`);
      retried += 1;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  // This reader's own things: posts it likes and unlikes (the newest of its followed authors'), a
  // target it follows and unfollows, a post whose views it increments.
  const likeable = layout.posts.slice(0, 20);
  const liked = new Set<string>();
  let likeTurn = index;
  const target = String(Number(reader) + 500_000);
  let following = false;
  const counted = layout.posts[40 + layout.readers.indexOf(reader)]!;
  const deviceId = `geo-${reader}`;
  let views = -1;

  /** Sends `read` until `shows` holds for its answer: [first read showed it, ms until a read that did started]. */
  const readUntil = async (read: () => Promise<any>, shows: (answer: any) => boolean, wroteAt: number) => {
    const first = performance.now();
    let answer = await read();
    const readMs = performance.now() - first;
    if (shows(answer)) return { sawIt: true, readMs, stalenessMs: 0 };
    for (;;) {
      const startedAt = performance.now();
      if (startedAt - wroteAt > CONVERGE_MS) throw new Error(`${layout.name}: a write did not show within ${CONVERGE_MS} ms`);
      answer = await read();
      if (shows(answer)) return { sawIt: false, readMs, stalenessMs: startedAt - wroteAt };
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  const timed = async <T>(write: () => Promise<T>) => {
    const t = performance.now();
    const answer = await write();
    return { answer, writeMs: performance.now() - t, wroteAt: performance.now() };
  };

  return {
    async pair(kind: PairKind): Promise<{ sawIt: boolean; writeMs: number; readMs: number; stalenessMs: number }> {
      switch (kind) {
        case "like → feed page": {
          const post = likeable[likeTurn++ % likeable.length]!;
          const like = !liked.has(post);
          const { writeMs, wroteAt } = await timed(() => call(appFetch, userAuth, like ? "PUT" : "DELETE", `/v1/posts/${post}/likes/me`));
          if (like) liked.add(post);
          else liked.delete(post);
          const read = () => call(appFetch, userAuth, "GET", "/v1/me/feed?limit=60");
          const shows = (page: { items: { post: { id: string }; liked: boolean }[] }) => {
            const item = page.items.find((it) => it.post.id === post);
            if (!item) throw new Error(`${layout.name}: post ${post} is not on ${reader}'s first page`);
            return item.liked === like;
          };
          return { writeMs, ...(await readUntil(read, shows, wroteAt)) };
        }
        case "follow → following list": {
          following = !following;
          const { writeMs, wroteAt } = await timed(() => call(appFetch, userAuth, following ? "PUT" : "DELETE", `/v1/me/following/${target}`));
          const read = () => call(appFetch, userAuth, "GET", `/v1/users/${reader}/following?limit=100`);
          const shows = (page: { items: { userId: string }[] }) => page.items.some((e) => e.userId === target) === following;
          return { writeMs, ...(await readUntil(read, shows, wroteAt)) };
        }
        case "post → own feed": {
          const { answer, writeMs, wroteAt } = await timed(() => call(appFetch, userAuth, "POST", "/v1/posts", { text: "mine" }));
          const read = () => call(appFetch, userAuth, "GET", "/v1/me/feed?limit=5");
          const shows = (page: { items: { post: { id: string } }[] }) => page.items.some((it) => it.post.id === answer.id);
          return { writeMs, ...(await readUntil(read, shows, wroteAt)) };
        }
        case "post → own profile": {
          const { answer, writeMs, wroteAt } = await timed(() => call(appFetch, userAuth, "POST", "/v1/posts", { text: "on my profile" }));
          const read = () => call(appFetch, userAuth, "GET", `/v1/users/${reader}/posts?limit=5`);
          const shows = (page: { items: { id: string }[] }) => page.items.some((p) => p.id === answer.id);
          return { writeMs, ...(await readUntil(read, shows, wroteAt)) };
        }
        case "register → device list": {
          // The reader's one device, registered again with a new token each time (as an app does when FCM rotates it).
          const token = fcmToken();
          const { writeMs, wroteAt } = await timed(() => call(appFetch, userAuth, "PUT", `/v1/me/devices/${deviceId}`, { kind: "fcm", token }));
          const read = () => call(appFetch, userAuth, "GET", "/v1/me/devices");
          const shows = (list: { items: { deviceId: string; token?: string }[] }) => list.items.some((d) => d.deviceId === deviceId && d.token === token);
          return { writeMs, ...(await readUntil(read, shows, wroteAt)) };
        }
        case "mark read → badges": {
          // The notification comes from the service (another client); the pair is the user's.
          await call(serviceFetch, serviceAuth, "POST", `/v1/users/${reader}/notifications`, { type: "reply", count: 1 });
          const { writeMs, wroteAt } = await timed(() => call(appFetch, userAuth, "POST", "/v1/me/notifications/read"));
          const read = () => call(appFetch, userAuth, "GET", "/v1/me/badges");
          const shows = (badges: { notifications: { total: { count: number } } }) => badges.notifications.total.count === 0;
          return { writeMs, ...(await readUntil(read, shows, wroteAt)) };
        }
        case "increment → counter read": {
          const read = () => call(serviceFetch, serviceAuth, "GET", `/v1/counters/post?ids=${counted}&fresh=true`);
          if (views < 0) views = (await read()).items[0].counts.views as number;
          const { writeMs, wroteAt } = await timed(() => call(serviceFetch, serviceAuth, "POST", `/v1/counters/post/${counted}`, { deltas: { views: 1 } }));
          views += 1;
          const shows = (answer: { items: { counts: { views: number } }[] }) => answer.items[0]!.counts.views === views;
          return { writeMs, ...(await readUntil(read, shows, wroteAt)) };
        }
      }
    },
  };
}

// ── Helpers ──

/**
 * Silence at the primaries before a write is measured: a queue batch waits up to 1 s, then its
 * consumer reads Postgres (≈ 4 R for the connection and the statement) before its Redis call.
 */
const WRITE_QUIET_MS = 1_000 + 5 * FAR_MS;


/** What a call sends after its answer (`waitUntil`) reaches the primary within R and a little: counted with it. */
const settle = () => new Promise((resolve) => setTimeout(resolve, FAR_MS / 2 + 50));

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** A token of FCM's shape (the local FCM stand-in takes it): 152 characters, `<id>:APA91b…`. */
function fcmToken(): string {
  const head = `${crypto.randomUUID().replace(/-/g, "_")}:APA91b`;
  return head + "Qx7_kZ2-wN9v".repeat(13).slice(0, 152 - head.length);
}

/** Calls of the pair clients sent again after a 503 or a dropped connection (printed with the pairs). */
let retried = 0;

/** `--name V`, `--name=V`, else the environment variable, else `fallback`. */
function numberOption(name: string, envName: string, fallback: number): number {
  const argv = process.argv.slice(2);
  const at = argv.indexOf(name);
  const raw = at >= 0 ? argv[at + 1] : (argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1) ?? process.env[envName]);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0, not ${raw}`);
  return value;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
