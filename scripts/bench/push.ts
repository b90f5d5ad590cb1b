/**
 * `npm run bench:push` — live badges over hibernating sockets, in workerd (Miniflare API, fresh
 * local stack), against polling `GET /v1/me/badges` over the same window:
 *   1. idle: 10,000 sockets of 10,000 users, each sending `ping` every 10 s for 30 s, once the
 *      connects settled (degraded snapshots retried) and the hubs hibernated — workerd's
 *      CPU share (utime + stime of the workerd process over the window, % of one core) and its
 *      resident memory per socket (VmRSS after the sockets opened minus before, over the sockets),
 *      and the billed Redis commands of the window;
 *   2. 1,000 targeted notifications at 50/s to distinct connected users — from each response to
 *      the socket receiving the push, p50 and p99; billed commands of the pushes (the phase's
 *      commands minus what the same writes cost for offline users, measured first);
 *   3. one broadcast to hubs that have hibernated — time from the request's send until the last of
 *      the 10,000 sockets has it, the object calls it made (hub stats, bench-only route) and its
 *      billed Redis commands; then a second one while they are awake (a table row: what waking costs);
 *   4. an author with 5,000 connected followers posts — time from the request's send until the last
 *      follower has both its `authors` and its `feed` push (through the queue's fan-out pages;
 *      from the send, not the response: the pages run after the response has left);
 *   5. a big account with 100,000 followers, 5,000 of them online, posts — time from the send
 *      until the last online follower has both its `authors` and its `feed` push (the post's
 *      announcement waits out its window, BIG_POST_WINDOW_SECONDS, then one call per hub shard), the object
 *      calls and billed Redis commands of the announcement (the publish request's own are apart);
 *   6. the same 10,000 clients polling `GET /v1/me/badges` once in a 30 s window (every 30 s) —
 *      billed commands, against what pushing cost over a window of the same length.
 * The client sockets live in this process (Node's `ws`); the file-descriptor limit must allow them
 * (`ulimit -n` ≥ 12,000 here; the script says so if not).
 */
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { badgeKeys, BUILT, USER_TTL_SECONDS } from "../../src/badges/keys.js";
import { feedKeys, TIMELINE_TTL_SECONDS } from "../../src/feed/keys.js";
import { PUSH_INTERVAL_MS } from "../../src/badges/live/protocol.js";
import { billedCommandsBetween, cpuTicks, percentile, printTable, redisCommandStats, rssBytes, runLoad, startBenchWithClients, benchLog, workerdPid } from "./harness.js";
import { profiled } from "./profile.js";

const SOCKETS = Number(process.env.PUSH_SOCKETS ?? 10_000);
const FOLLOWERS = Math.min(5_000, SOCKETS);
const IDLE_MS = 30_000;
const PING_EVERY_MS = 10_000;
const NOTIFICATIONS = Math.min(1_000, SOCKETS);
const NOTIFY_PER_S = 50;
const OFFLINE_WRITES = 200;
/** Longer than the hub's FRESH_READ_MS: counts move in place, as they do for users connected a while. */
const SETTLE_MS = 11_000;
const CONNECT_CONCURRENCY = 200;
/** workerd evicts a Durable Object 10 s after its last event (hibernating its sockets); 64 of them take a few seconds more. */
const HIBERNATE_AFTER_MS = 16_000;
const AUTHOR = "6000000000001";
/** A big account (≥ BIG_ACCOUNT_FOLLOWERS): pulled by readers, its posts announced to every hub shard. */
const BIG = "6000000000002";
const BIG_FOLLOWERS = 100_000;
/** Its online followers: the last 5,000 sockets (the normal author's are the first 5,000). */
const BIG_ONLINE = Math.min(5_000, SOCKETS);

/**
 * `--only idle`: seed, connect and the idle window only (then the same sockets quiet and pinging
 * again), for working on the idle figure without the whole bench; its RESULT line has the idle keys.
 */
const ONLY = (() => {
  const argv = process.argv.slice(2);
  const at = argv.indexOf("--only");
  const value = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
  if (value !== undefined && value !== "idle") throw new Error(`--only takes idle, not ${value}`);
  return value;
})();

const userId = (i: number) => String(5_000_000_000_000 + i);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One idle window of IDLE_MS over the open sockets, each sending `ping` every PING_EVERY_MS (spread
 * evenly over the interval) when `ping`: workerd's utime + stime over it, % of one core.
 */
async function idleWindow(pid: number, clients: Client[], ping: boolean): Promise<number> {
  // With BENCH_DEBUG: when each window starts and the workerd pid, to profile a window from outside.
  benchLog(`idle window (${ping ? "pinging" : "quiet"}) starts, workerd pid ${pid}`);
  const ticksBefore = cpuTicks(pid);
  const started = performance.now();
  const timers = ping
    ? clients.map((c, i) => {
        const offset = (i / clients.length) * PING_EVERY_MS;
        let interval: NodeJS.Timeout | undefined;
        const first = setTimeout(() => {
          c.ws.send("ping");
          interval = setInterval(() => c.ws.send("ping"), PING_EVERY_MS);
        }, offset);
        return () => (clearTimeout(first), clearInterval(interval));
      })
    : [];
  await sleep(IDLE_MS);
  const seconds = (performance.now() - started) / 1000;
  const cpuPct = ((cpuTicks(pid) - ticksBefore) / 100 / seconds) * 100;
  for (const stop of timers) stop();
  return cpuPct;
}

/** A client socket: its latest badges, and how many pongs and other messages it received. */
type Client = { user: string; ws: WebSocket; state: any; onChange?: (changed: any, at: number) => void; pongs: number; messages: number };

/**
 * Waits for every one of `clients` to get both its `authors` and its `feed` push for one new post:
 * `all` resolves when all have, `done()` says how many have, `lastAt()` when the last one did.
 */
function awaitAuthorsAndFeed(clients: { onChange?: (changed: Partial<Record<string, { count: number }>>, at: number) => void }[]) {
  let done = 0;
  let lastAt = 0;
  const all = new Promise<void>((resolve) => {
    for (const c of clients) {
      const got = { authors: false, feed: false };
      c.onChange = (changed, at) => {
        if (changed.authors?.count === 1) got.authors = true;
        if (changed.feed?.count === 1) got.feed = true;
        if (got.authors && got.feed) {
          c.onChange = undefined;
          lastAt = at;
          if (++done === clients.length) resolve();
        }
      };
    }
  });
  return { all, done: () => done, lastAt: () => lastAt };
}

async function main() {
  const { bench, redis, db, close } = await startBenchWithClients();
  const log = benchLog;
  const clients: Client[] = [];
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(bench.url + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const hubs = async () => (await fetch(`${bench.url}/v1/bench/hubs`)).json() as Promise<{ shards: number; sockets: number; degraded: number; calls: number; handled: number }>;
  try {
    const admin = await bench.token("1", "admin");
    const service = await bench.token("1", "service");
    // ── Seed: caches built as a month of use leaves them (no Postgres on connect) ──
    const { id: newest } = await call("POST", "/v1/broadcasts", admin, { title: "Welcome", body: "b" });
    await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1::bigint + i, $2::bigint FROM generate_series(0, $3 - 1) i`, [userId(0), AUTHOR, FOLLOWERS]);
    await redis.hset(badgeKeys.authorPublished(), AUTHOR, 0);
    // The big account: 100,000 followers in Postgres (its online ones among them), big in Postgres
    // and Redis, its flushed followers counter above the threshold (so the per-minute scan keeps it).
    const bigFrom = SOCKETS - BIG_ONLINE;
    await db.query(
      `INSERT INTO follows (follower_id, followee_id) SELECT $1::bigint + i, $2::bigint FROM generate_series(0, $3 - 1) i
       UNION ALL SELECT $4::bigint + i, $2::bigint FROM generate_series(0, $5 - 1) i`,
      [userId(bigFrom), BIG, BIG_ONLINE, userId(SOCKETS + OFFLINE_WRITES), BIG_FOLLOWERS - BIG_ONLINE],
    );
    await db.query(`INSERT INTO feed_big_accounts (author_id, state) VALUES ($1, 'big') ON CONFLICT DO NOTHING`, [BIG]);
    await db.query(
      `INSERT INTO counters (entity, entity_id, field, value) VALUES ('user', $1, 'followers', $2) ON CONFLICT (entity, entity_id, field) DO UPDATE SET value = excluded.value`,
      [BIG, BIG_FOLLOWERS],
    );
    await redis.hset(feedKeys.bigStates(), { [BIG]: "big" });
    await redis.hset(badgeKeys.authorPublished(), BIG, 0);
    for (let from = 0; from < SOCKETS; from += 1000) {
      const p = redis.pipeline();
      for (let i = from; i < Math.min(SOCKETS, from + 1000); i++) {
        const u = userId(i);
        p.hset(badgeKeys.authorSeen(u), BUILT, "all", ...(i < FOLLOWERS ? [AUTHOR, "0"] : []), ...(i >= bigFrom ? [BIG, "0"] : []));
        p.hset(badgeKeys.streamAccess(u), BUILT, "1");
        p.hset(badgeKeys.inbox(u), BUILT, "1");
        p.hset(badgeKeys.markers(u), "bc", newest);
        for (const key of [badgeKeys.authorSeen(u), badgeKeys.streamAccess(u), badgeKeys.inbox(u), badgeKeys.markers(u)]) p.expire(key, USER_TTL_SECONDS);
        if (i < FOLLOWERS || i >= bigFrom) p.zadd(feedKeys.timeline(u), 0, "0").expire(feedKeys.timeline(u), TIMELINE_TTL_SECONDS);
        if (i >= bigFrom) p.sadd(feedKeys.bigFollows(u), BIG).expire(feedKeys.bigFollows(u), TIMELINE_TTL_SECONDS);
      }
      await p.exec();
    }

    // ── Offline write cost: what a notification bills when nobody is online ──
    let before = await redisCommandStats(bench.stack);
    for (let i = 0; i < OFFLINE_WRITES; i++) await call("POST", `/v1/users/${userId(SOCKETS + i)}/notifications`, service, { type: "reply", count: 1 });
    const writeBilled = billedCommandsBetween(before, await redisCommandStats(bench.stack)).total / OFFLINE_WRITES;

    // ── 1. Connect and idle ──
    const pid = workerdPid();
    const rssBefore = rssBytes(pid);
    const wsUrl = bench.url.replace(/^http/, "ws");
    let connected = 0;
    const connectStarted = performance.now();
    for (let from = 0; from < SOCKETS; from += CONNECT_CONCURRENCY) {
      await Promise.all(
        Array.from({ length: Math.min(CONNECT_CONCURRENCY, SOCKETS - from) }, async (_, k) => {
          const user = userId(from + k);
          // No permessage-deflate offer, as the load generator's clients: zlib state per client
          // socket would cost this process gigabytes at 10,000 sockets.
          const ws = new WebSocket(`${wsUrl}/v1/me/live?token=${await bench.token(user)}`, { perMessageDeflate: false });
          const client: Client = { user, ws, state: null, pongs: 0, messages: 0 };
          clients.push(client);
          await new Promise<void>((resolve, reject) => {
            ws.on("message", (data) => {
              const text = data.toString();
              if (text === "pong") return void client.pongs++;
              client.messages++;
              const message = JSON.parse(text);
              if (message.badges) {
                client.state = message.badges;
                resolve();
              } else if (message.changed) {
                Object.assign(client.state, message.changed);
                client.onChange?.(message.changed, performance.now());
              }
            });
            ws.on("error", reject);
            ws.on("close", (code) => reject(new Error(`socket of ${user} closed ${code} before its snapshot`)));
          });
          connected++;
        }),
      );
      log(`connected ${connected}`);
    }
    const connectMs = performance.now() - connectStarted;
    await sleep(2_000);
    const rssAfter = rssBytes(pid);
    const bytesPerSocket = Math.round((rssAfter - rssBefore) / SOCKETS);

    // The window measures sockets idle behind hibernated objects, as every quiet spell ends up,
    // not what the connects left behind (profiled: a busy machine's connects whose snapshot read
    // timed out are read again by their hub's alarm 5 s later — ~0.6 s of CPU for ~160 sockets —
    // and every hub's eviction, ~0.25 s for the 64, fell in the window). First the retries…
    const settleStarted = performance.now();
    let hubsBeforeIdle = await hubs();
    const degradedAfterConnect = hubsBeforeIdle.degraded;
    while (hubsBeforeIdle.degraded > 0 && performance.now() - settleStarted < 60_000) {
      await sleep(1_000);
      hubsBeforeIdle = await hubs();
    }
    const settleMs = performance.now() - settleStarted;
    // …then the runtime evicts each object HIBERNATE_AFTER_MS after its last event (the stats
    // call just made), closing its SQLite database and hibernating its sockets: its own row.
    before = await redisCommandStats(bench.stack);
    log(`hubs hibernating (quiet) starts, workerd pid ${pid}`);
    const hibernatingTicks = cpuTicks(pid);
    await sleep(HIBERNATE_AFTER_MS);
    const hibernateCpuMs = (cpuTicks(pid) - hibernatingTicks) * 10;
    const hibernateBilled = billedCommandsBetween(before, await redisCommandStats(bench.stack)).total;
    before = await redisCommandStats(bench.stack);
    const messagesBeforeIdle = clients.reduce((s, c) => s + c.messages, 0);
    const idleCpuPct = await idleWindow(pid, clients, true);
    // Steady state: after the idle window (the snapshots' garbage has had time to be collected).
    const rssIdle = rssBytes(pid);
    const bytesPerSocketIdle = Math.round((rssIdle - rssBefore) / SOCKETS);
    const idleBilled = billedCommandsBetween(before, await redisCommandStats(bench.stack)).total;
    const hubsAfterIdle = await hubs();
    const pongs = clients.reduce((s, c) => s + c.pongs, 0);
    // A hub woken by a client message answers it (`ping` aside, only `badges` is not an error): the
    // clients count what reached them, which an object hibernating again cannot forget (`handled`).
    const messagesInIdle = clients.reduce((s, c) => s + c.messages, 0) - messagesBeforeIdle;
    const hibernateRow = {
      scenario: `hubs hibernating (${HIBERNATE_AFTER_MS / 1000} s after their last call, no pings)`,
      sockets: SOCKETS,
      "billed cmds": hibernateBilled,
      note: `workerd cpu ${hibernateCpuMs} ms; ${degradedAfterConnect} degraded snapshots after the connects, ${hubsBeforeIdle.degraded} left after ${Math.round(settleMs)} ms of retries`,
    };
    const idleRow = { scenario: "idle, ping every 10 s, 30 s", sockets: SOCKETS, "workerd cpu %": idleCpuPct, "rss bytes/socket": bytesPerSocket, "billed cmds": idleBilled, note: `${pongs} pongs; ${hubsAfterIdle.handled - hubsBeforeIdle.handled} messages woke a hub, ${messagesInIdle} other messages came; rss/socket after the window ${bytesPerSocketIdle}` };

    if (ONLY === "idle") {
      // The same sockets quiet, then pinging again: what the pings cost against what workerd costs
      // holding them, in one run (the machine's load moves absolute figures from run to run).
      const quietCpuPct = await idleWindow(pid, clients, false);
      const againCpuPct = await idleWindow(pid, clients, true);
      const hubsAfter = await hubs();
      printTable([
        { scenario: "connect", sockets: SOCKETS, ms: connectMs, note: `${hubsAfterIdle.shards} hub shards, ${hubsAfterIdle.sockets} sockets held` },
        hibernateRow,
        idleRow,
        { scenario: "the same sockets, no pings, 30 s", sockets: SOCKETS, "workerd cpu %": quietCpuPct, note: "the hubs woken by the stats call before it hibernate again in it" },
        { scenario: "idle, ping every 10 s, 30 s, again", sockets: SOCKETS, "workerd cpu %": againCpuPct, note: `${hubsAfter.handled - hubsBeforeIdle.handled} messages woke a hub over the three windows` },
      ]);
      console.log(
        `RESULT push_sockets=${connected} idle_cpu_pct=${idleCpuPct.toFixed(2)} idle_quiet_cpu_pct=${quietCpuPct.toFixed(2)} idle_again_cpu_pct=${againCpuPct.toFixed(2)} hibernate_cpu_ms=${hibernateCpuMs} bytes_per_socket=${bytesPerSocket} idle_billed_commands=${idleBilled}`,
      );
      return;
    }

    // ── 2. 1,000 targeted notifications at 50/s ──
    before = await redisCommandStats(bench.stack);
    const latencies: number[] = [];
    let missing = 0;
    await Promise.all(
      Array.from({ length: NOTIFICATIONS }, async (_, i) => {
        await sleep((i * 1000) / NOTIFY_PER_S);
        const client = clients[(i * 7919) % SOCKETS]!; // distinct users, spread over the shards
        const received = new Promise<number>((resolve) => {
          client.onChange = (changed, at) => changed.notifications && resolve(at);
        });
        await call("POST", `/v1/users/${client.user}/notifications`, service, { type: "like", count: 1 });
        const respondedAt = performance.now();
        const at = await Promise.race([received, sleep(10_000).then(() => null)]);
        if (at === null) missing++;
        else latencies.push(Math.max(0, at - respondedAt));
        client.onChange = undefined;
      }),
    );
    const notifyBilled = billedCommandsBetween(before, await redisCommandStats(bench.stack)).total;
    const pushReadsBilled = notifyBilled - writeBilled * NOTIFICATIONS;
    latencies.sort((a, b) => a - b);

    // ── 3. One broadcast to every socket ──
    await sleep(SETTLE_MS);
    before = await redisCommandStats(bench.stack);
    const callsBefore = (await hubs()).calls;
    /** One broadcast: ms from its send until the last socket has it (NaN: some never did), and the workerd and bench CPU it took. */
    const broadcastOnce = async (profile: string) => {
      const expected = new Map(clients.map((c) => [c.user, c.state.broadcasts.count + 1]));
      let reached = 0;
      let lastAt = 0;
      const allReached = new Promise<void>((resolve) => {
        for (const c of clients) {
          c.onChange = (changed, at) => {
            if (changed.broadcasts?.count === expected.get(c.user)) {
              c.onChange = undefined;
              lastAt = at;
              if (++reached === SOCKETS) resolve();
            }
          };
        }
      });
      // Timed from the request's send, not its response: the response leaves before the hubs have
      // run (they are the request's waitUntil work, on the same workerd thread), so "from the
      // response" counts the hubs' work or not depending on what else holds the response (an
      // [assets] router in front used to hold it until they had run, which hid ~1 s at 10,000 sockets).
      const [ticks, ownCpu] = [cpuTicks(pid), process.cpuUsage()];
      const started = performance.now();
      await profiled(profile, async () => {
        await call("POST", "/v1/broadcasts", admin, { title: "Maintenance", body: "tonight" });
        await Promise.race([allReached, sleep(30_000)]);
      });
      const ms = reached === SOCKETS ? lastAt - started : Number.NaN;
      const { user, system } = process.cpuUsage(ownCpu);
      return { ms, reached, workerdCpuMs: (cpuTicks(pid) - ticks) * 10, benchCpuMs: Math.round((user + system) / 1000) };
    };
    // The hubs have hibernated (evicted SETTLE_MS after their last event), as before any broadcast
    // that follows a quiet spell: the figure counts waking them and their 10,000 sockets.
    const broadcast = await broadcastOnce("broadcast");
    const broadcastAllMs = broadcast.ms;
    await sleep(500);
    const broadcastBilled = billedCommandsBetween(before, await redisCommandStats(bench.stack)).total;
    const broadcastCalls = (await hubs()).calls - callsBefore;
    // A second one soon after (past the sockets' push interval, the hubs and their sockets still
    // awake): what waking them cost above.
    await sleep(PUSH_INTERVAL_MS);
    const awake = await broadcastOnce("broadcast-awake");
    await sleep(500);
    for (const c of clients) c.onChange = undefined;

    // ── 4. An author with 5,000 connected followers posts ──
    await sleep(SETTLE_MS);
    const followers = clients.slice(0, FOLLOWERS);
    const authorPost = awaitAuthorsAndFeed(followers);
    before = await redisCommandStats(bench.stack);
    const authorToken = await bench.token(AUTHOR);
    // From the request's send, as the broadcast: the fan-out pages run after the response.
    const postSentAt = performance.now();
    await profiled("author-post", async () => {
      await call("POST", "/v1/posts", authorToken, { text: "hello followers" });
      await Promise.race([authorPost.all, sleep(60_000)]);
    });
    const authorPostAllMs = authorPost.done() === FOLLOWERS ? authorPost.lastAt() - postSentAt : Number.NaN;
    await sleep(500);
    const postBilled = billedCommandsBetween(before, await redisCommandStats(bench.stack)).total;

    // ── 5. A big account with 100,000 followers, 5,000 of them online, posts ──
    // Its followers are never walked: the post's announcement leaves the fan-out queue after its
    // window (BIG_POST_WINDOW_SECONDS) and calls every hub shard once; each hub moves authors and feed of the online
    // followers it knows, reading nothing.
    await sleep(SETTLE_MS);
    const bigFollowers = clients.slice(SOCKETS - BIG_ONLINE);
    const bigPost = awaitAuthorsAndFeed(bigFollowers);
    const bigBefore = await redisCommandStats(bench.stack.redisUrl);
    const bigCallsBefore = (await hubs()).calls;
    const bigToken = await bench.token(BIG);
    const bigSentAt = performance.now();
    await call("POST", "/v1/posts", bigToken, { text: "hello, all 100,000 of you" });
    // The publish request's own commands and its author's own push (every post makes one) land
    // now; the announcement waits out its window (1 s) and is measured from here.
    await sleep(300);
    const bigPublished = await redisCommandStats(bench.stack.redisUrl);
    const bigCallsPublished = (await hubs()).calls;
    await Promise.race([bigPost.all, sleep(60_000)]);
    const bigPostAllMs = bigPost.done() === BIG_ONLINE ? bigPost.lastAt() - bigSentAt : Number.NaN;
    await sleep(500);
    const bigPublishBilled = billedCommandsBetween(bigBefore, bigPublished).total;
    const bigPostBilled = billedCommandsBetween(bigPublished, await redisCommandStats(bench.stack.redisUrl)).total;
    const bigCallsAfter = (await hubs()).calls;
    const bigPostCalls = bigCallsAfter - bigCallsPublished;
    for (const c of clients) c.onChange = undefined;

    // ── 6. The same clients polling once per 30 s window ──
    const tokens = await Promise.all(clients.map((c) => bench.token(c.user)));
    before = await redisCommandStats(bench.stack);
    const poll = await runLoad({
      baseUrl: bench.url,
      concurrency: 32,
      total: SOCKETS,
      durationMs: 120_000,
      request: (i) => ({ path: "/v1/me/badges?cap=99", headers: { Authorization: `Bearer ${tokens[i]!}` } }),
    });
    const pollBilled = billedCommandsBetween(before, await redisCommandStats(bench.stack)).total;
    // Push over a window of the same length: what idle sockets cost, plus the reads of the window's
    // pushes (1,000 notifications; the writes themselves are the same in both designs).
    const pushWindowBilled = idleBilled + Math.max(0, pushReadsBilled);
    const ratio = pollBilled / Math.max(1, pushWindowBilled);

    printTable([
      { scenario: "connect", sockets: SOCKETS, ms: connectMs, note: `${hubsAfterIdle.shards} hub shards, ${hubsAfterIdle.sockets} sockets held` },
      hibernateRow,
      idleRow,
      { scenario: "1,000 notifications at 50/s", sockets: SOCKETS, "p50 ms": percentile(latencies, 0.5), "p99 ms": percentile(latencies, 0.99), "billed cmds": notifyBilled, note: `writes ${writeBilled}/call (offline), push reads ${pushReadsBilled}; ${missing} pushes missing` },
      { scenario: "broadcast", sockets: SOCKETS, "ms to last": broadcastAllMs, "object calls": broadcastCalls, "billed cmds": broadcastBilled, note: `${broadcast.reached} sockets reached; workerd cpu ${broadcast.workerdCpuMs} ms, bench clients' ${broadcast.benchCpuMs} ms` },
      { scenario: "broadcast again, hubs awake", sockets: SOCKETS, "ms to last": awake.ms, note: `${awake.reached} sockets reached; workerd cpu ${awake.workerdCpuMs} ms, bench clients' ${awake.benchCpuMs} ms` },
      { scenario: "author post, 5,000 online followers", sockets: FOLLOWERS, "ms to last": authorPostAllMs, "billed cmds": postBilled, note: `${authorPost.done()} followers got authors + feed` },
      {
        scenario: "big account post, 100,000 followers, 5,000 online",
        sockets: BIG_ONLINE,
        "ms to last": bigPostAllMs,
        "object calls": bigPostCalls,
        "billed cmds": bigPostBilled,
        note: `${bigPost.done()} followers got authors + feed; the publish request billed ${bigPublishBilled} and made ${bigCallsPublished - bigCallsBefore} object call (the author's own push)`,
      },
      { scenario: "polling GET /v1/me/badges, 1 per client per 30 s", sockets: SOCKETS, "billed cmds": pollBilled, note: `${poll.errors} errors; push over the same window: ${pushWindowBilled}` },
    ]);
    console.log(
      `RESULT push_sockets=${connected} idle_cpu_pct=${idleCpuPct.toFixed(2)} bytes_per_socket=${bytesPerSocket} notify_p50_ms=${percentile(latencies, 0.5).toFixed(1)} notify_p99_ms=${percentile(latencies, 0.99).toFixed(1)} broadcast_all_ms=${broadcastAllMs.toFixed(0)} broadcast_object_calls=${broadcastCalls} broadcast_billed_commands=${broadcastBilled} author_post_all_ms=${authorPostAllMs.toFixed(0)} poll_vs_push_commands=${ratio.toFixed(1)} big_post_all_ms=${bigPostAllMs.toFixed(0)} big_post_object_calls=${bigPostCalls} big_post_billed_commands=${bigPostBilled}`,
    );
  } finally {
    for (const c of clients) c.ws.terminate();
    await close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
