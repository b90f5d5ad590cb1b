/**
 * `npm run bench:safety`: what blocks, mutes, suspension and the term filter cost the reads they
 * filter, how fast each applies, and whether anything of a hidden user gets through. One process;
 * every measure but the filter's runs at N = 1 and then N = 3 Redis databases, each over a fresh
 * stack (`--databases 1,3`, the default). The RESULT line has the issue's keys at N = 1 first, in
 * its order, then the baselines and side figures, then N = 3's keys with `_n3`.
 *
 *  - feed_page_speedup_ratio_blocked: 16 readers with 1,000 blocks and 1,000 mutes each (50 of the
 *    mutes are among the 500 authors they follow, so a page reads past their posts; the rest are
 *    users they do not follow), against 16 readers following the same authors with none, first
 *    chronological pages (limit 20), warm, in alternating slices (ABBA) of one closed loop each:
 *    req/s blocked / req/s unblocked, pooled over the slices. Blocks and mutes are seeded in
 *    Postgres, so the first read rebuilds the cached sets as in production after a cache loss.
 *  - feed_page_round_trips_blocked (and _unblocked): rounds of one page, counted at the bridges
 *    (`roundsOf`), the median of 10 pages each sent with the bridges quiet; the load's Redis
 *    requests and billed commands a page are in the table (and the RESULT line).
 *  - badges_round_trips_blocked, badges_billed_commands_blocked (and _unblocked): `GET /v1/me/badges`
 *    of the same readers, the median of 12 calls each, interleaved, each sent with the bridges
 *    quiet right after an unmeasured read of the same user (so the once-a-minute active record a
 *    read writes after its answer is not in it); billed: `INFO commandstats` deltas summed over
 *    the databases; the median leaves out the isolate's admission refreshes.
 *  - block_apply_ms_p50/p99: a reader with the 1,000 blocks and mutes follows an author who just
 *    posted (on the reader's timeline above the "N new posts" marker) and sent a DM; the reader
 *    blocks them, then reads its badges and then its first page, carrying the block's
 *    `X-Consistency-Token` when one is answered: ms from sending the block to sending the first
 *    reads that found the page without the author's post and the badges' `feed`, `authors` and
 *    `dms` without theirs. Equal to the block's own latency (block_latency_ms_*) when the first
 *    reads after the answer are clean (block_apply_reads_after_first counts those that were not).
 *    4 such readers side by side, BLOCK_TRIALS blocks in all.
 *  - suspension_visible_ms_p99: a suspension made through one Worker (its own workerd) until a
 *    request with the user's token to ANOTHER Worker on the same stack answers 403 `suspended` —
 *    the bound every isolate that did not make the write keeps (docs/safety.md: STALE_MS + one
 *    round trip). The user's requests are sent every 20 ms, as an active client's would be.
 *  - filter_cpu_ms_per_post_1000_terms: the term filter's CPU per new post (NFKC + lower case, then
 *    the Aho–Corasick automaton's `match`), in this process, with 1,000 terms (half Latin words,
 *    half CJK words) over realistic posts (Latin, Japanese, Chinese and mixed text, emoji, 40–400
 *    characters; none matching, the common case, plus 1 in 50 that does). The automaton is built
 *    once, as each isolate builds it once per terms version (its build time is printed too).
 *    It does not depend on N: measured once, reported with the first N's keys.
 *  - leaks: what a hidden user got through to a client over the run, each counted once:
 *      blocks and mutes — a hidden author's post on any page of every blocked reader's
 *      chronological walk (5 pages of 20) and ranked first page after the load; on the first page read
 *      after each block; a hidden author in `GET /v1/me/unread/authors`; a badge count a hidden
 *      user moved (`feed`, `authors`, `dms` after each block; `notifications` and `dms` after
 *      notifications and DMs sent from blocked and notification-muted users); such a send answered
 *      `applied: true`; a push any of them caused (the reader has an FCM device on the local push
 *      services; a DM from a friend before and after is the sentinel that the queue delivered);
 *      a blocked author's profile read by the blocker answered 200;
 *      suspension — once the other Worker refuses the user, any request with their token answered
 *      other than 403 by either Worker, their profile read showing their post or the post read
 *      answering other than 404 on either Worker, their post on a follower's home timeline or in
 *      trending on either Worker, and a push caused by a notification `from` them.
 */
import { Redis as IORedis } from "ioredis";
import { performance } from "node:perf_hooks";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import { databaseOf } from "../../src/lib/redis-topology";
import { matchedTerm } from "../../src/safety/filter";
import {
  billedCommandsBetween,
  benchLog,
  bridgeRequests,
  combineLoads,
  databasesOption,
  percentile,
  printTable,
  quiet,
  redisCommandStats,
  runAtDatabases,
  runLoad,
  startBenchWithClients,
  phaseTimer,
  startBenchWorkerOn,
  warmUp,
  type BenchWorker,
  type LoadResult,
} from "./harness";
import { roundsOf } from "./rounds";
import { call } from "../load/target";

const TERMS = 1_000;
const POSTS = 5_000;
const SUSPENSION_TRIALS = Number(process.env.BENCH_SUSPENSION_TRIALS ?? 16);
const BLOCK_TRIALS = Number(process.env.BENCH_BLOCK_TRIALS ?? 16);
/** Feed pages: each side's share of the load is SLICES slices of SLICE_MS, the sides alternating. */
const SLICES = 6;
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 1_500);
const CONCURRENCY = 16;
const SAMPLES = 12;
/** Pages of each reader's chronological walk checked for hidden authors. */
const WALK_PAGES = 5;

const AUTHORS = 1_000;
const POSTS_PER_AUTHOR = 100;
const READERS = 16;
const FOLLOWED = 500;
/** Of the authors a blocked reader follows, every MUTED_EVERY-th is muted (50 of 500). */
const MUTED_EVERY = 10;
const HIDDEN = 1_000;
const BLOCKED_READER_BASE = 1_000_000;
const PLAIN_READER_BASE = 1_100_000;
const BLOCKED_BASE = 6_000_000; // the 1,000 users every blocked reader blocked
const MUTED_BASE = 6_100_000; // the mutes that are not followed authors
const TRIAL_AUTHOR_BASE = 6_200_000; // the authors blocked in the block trials
const FRIEND = "6300000"; // sends the sentinel DMs
const SUSPENDED_BASE = 7_000_000_000;
const WATCHER_BASE = 7_100_000_000; // one follower of each suspended user, whose timeline is read

/** Reader `r`'s followed authors: the same for the blocked reader `r` and the plain reader `r`. */
const followedBy = (r: number) => Array.from({ length: FOLLOWED }, (_, k) => String(1 + ((r * 37 + 2 * k) % AUTHORS)));
const blockedReader = (r: number) => String(BLOCKED_READER_BASE + r);
const plainReader = (r: number) => String(PLAIN_READER_BASE + r);
/** Whom blocked reader `r` mutes: every MUTED_EVERY-th author it follows, then users it does not follow; notifications muted for every other one. */
const mutedBy = (r: number) => [...followedBy(r).filter((_, k) => k % MUTED_EVERY === 0), ...Array.from({ length: HIDDEN - FOLLOWED / MUTED_EVERY }, (_, j) => String(MUTED_BASE + j))];
const BLOCKED = Array.from({ length: HIDDEN }, (_, j) => String(BLOCKED_BASE + j));

/** A deterministic generator, so every run filters the same posts. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const LATIN = "the of and to in is you that it for on with as are this be at have from or by one had not but what all were when we there can an your which their said if will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know".split(" ");
const JA = "今日 配信 します ありがとう みんな 楽しい 音楽 ライブ 東京 週末 ゲーム 友達 写真 ご飯 美味しい 新しい 動画 見て ください よろしく".split(" ");
const ZH = "我们 今天 直播 音乐 朋友 周末 一起 演唱会 北京 上海 好吃 电影 游戏 喜欢 新闻 视频 看看 谢谢 大家 晚上".split(" ");
const EMOJI = ["🎉", "👍🏽", "❤️", "🔥", "😂", "🎶"];

function makeTerms(random: () => number): string[] {
  const terms = new Set<string>();
  const syllables = "ka ri to mo se na lu vi de zo pa gu".split(" ");
  while (terms.size < TERMS / 2) terms.add(Array.from({ length: 3 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join(""));
  // CJK terms: two or three characters from ranges posts rarely use together.
  while (terms.size < TERMS) terms.add(Array.from({ length: 2 + Math.floor(random() * 2) }, () => String.fromCharCode(0x4e00 + Math.floor(random() * 20_000))).join(""));
  return [...terms];
}

function makePost(random: () => number, terms: readonly string[]): string {
  const kind = random();
  const words: string[] = [];
  const target = 40 + Math.floor(random() * 360);
  let length = 0;
  while (length < target) {
    const r = random();
    const word = kind < 0.4 ? LATIN[Math.floor(random() * LATIN.length)]! : kind < 0.6 ? JA[Math.floor(random() * JA.length)]! : kind < 0.8 ? ZH[Math.floor(random() * ZH.length)]! : r < 0.5 ? LATIN[Math.floor(random() * LATIN.length)]! : r < 0.75 ? JA[Math.floor(random() * JA.length)]! : ZH[Math.floor(random() * ZH.length)]!;
    words.push(random() < 0.05 ? `${word} ${EMOJI[Math.floor(random() * EMOJI.length)]}` : word);
    length += word.length + 1;
  }
  if (random() < 0.02) words.splice(Math.floor(random() * words.length), 0, terms[Math.floor(random() * terms.length)]!.toUpperCase());
  // Latin and mixed posts have spaces; Japanese and Chinese ones none.
  return kind >= 0.4 && kind < 0.8 ? words.join("") : words.join(" ");
}

function measureFilter() {
  const random = rng(38);
  const terms = makeTerms(random);
  const posts = Array.from({ length: POSTS }, () => makePost(random, terms));
  const copy = { terms, termsVersion: "bench" };
  const buildStart = performance.now();
  matchedTerm(copy, "warm up");
  const buildMs = performance.now() - buildStart;
  for (const p of posts.slice(0, 500)) matchedTerm(copy, p); // JIT warm-up
  let held = 0;
  const cpu = process.cpuUsage();
  const wall = performance.now();
  for (const p of posts) if (matchedTerm(copy, p) !== null) held++;
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - wall;
  const cpuMsPerPost = (used.user + used.system) / 1000 / posts.length;
  const chars = posts.reduce((n, p) => n + p.length, 0) / posts.length;
  console.log(`term filter: ${terms.length} terms, automaton built in ${buildMs.toFixed(1)} ms; ${posts.length} posts (${chars.toFixed(0)} chars on average), ${held} held`);
  console.log(`  CPU ${cpuMsPerPost.toFixed(4)} ms a post (wall ${(wallMs / posts.length).toFixed(4)} ms)`);
  return cpuMsPerPost;
}


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => percentile(sorted(xs), 0.5);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

type Answer = Awaited<ReturnType<typeof call>>;
/** One request to a Worker; `token` is a bearer token, `headers` any other (the consistency token). */
const send = (url: string, method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  call(url, method, path, token ? `Bearer ${token}` : undefined, body, headers);
async function ok(answer: Promise<Answer>, what: string): Promise<Answer> {
  const a = await answer;
  if (a.status !== 200 && a.status !== 201) throw new Error(`${what}: ${a.status} ${JSON.stringify(a.json).slice(0, 300)}`);
  return a;
}

/** What a hidden user got through to a client, by kind: how many were checked, how many leaked. */
class Leaks {
  private kinds = new Map<string, { checked: number; leaked: number }>();
  check(kind: string, leaked: boolean | number, checked = 1) {
    const k = this.kinds.get(kind) ?? { checked: 0, leaked: 0 };
    k.checked += checked;
    k.leaked += typeof leaked === "number" ? leaked : leaked ? 1 : 0;
    this.kinds.set(kind, k);
  }
  get total() {
    return [...this.kinds.values()].reduce((n, k) => n + k.leaked, 0);
  }
  rows() {
    return [...this.kinds].map(([kind, k]) => ({ "leaks: checked": kind, checked: k.checked, leaked: k.leaked }));
  }
}

async function seed(db: { query(text: string, values?: unknown[]): Promise<unknown> }) {
  await db.query(`INSERT INTO posts (author_id, text) SELECT 1 + (g * 7919) % $1, 'post number ' || g FROM generate_series(1, $2) g`, [AUTHORS, AUTHORS * POSTS_PER_AUTHOR]);
  for (const base of [BLOCKED_READER_BASE, PLAIN_READER_BASE]) {
    await db.query(`INSERT INTO follows (follower_id, followee_id) SELECT $1::bigint + r, 1 + (r * 37 + 2 * k) % $2 FROM generate_series(0, $3 - 1) r, generate_series(0, $4 - 1) k`, [base, AUTHORS, READERS, FOLLOWED]);
  }
  // The blocked readers' blocks and mutes as Postgres holds them (what `followedBy`, `mutedBy` and
  // BLOCKED say): their cached sets are rebuilt from here by their first read.
  await db.query(`INSERT INTO safety_blocks (blocker_id, blocked_id) SELECT $1::bigint + r, $2::bigint + j FROM generate_series(0, $3 - 1) r, generate_series(0, $4 - 1) j`, [BLOCKED_READER_BASE, BLOCKED_BASE, READERS, HIDDEN]);
  await db.query(
    `INSERT INTO safety_mutes (muter_id, muted_id, notifications)
     SELECT $1::bigint + r, 1 + (r * 37 + 2 * k) % $2, (k / $5) % 2 = 0 FROM generate_series(0, $3 - 1) r, generate_series(0, $4 - 1, $5) k
     UNION ALL
     SELECT $1::bigint + r, $6::bigint + j, j % 2 = 0 FROM generate_series(0, $3 - 1) r, generate_series(0, $7 - 1) j`,
    [BLOCKED_READER_BASE, AUTHORS, READERS, FOLLOWED, MUTED_EVERY, MUTED_BASE, HIDDEN - FOLLOWED / MUTED_EVERY],
  );
  await db.query("VACUUM ANALYZE");
}

async function main() {
  const filterCpu = measureFilter();
  const first = databasesOption(process.argv.slice(2))[0];
  console.log("(keys without a suffix: N = 1; `_n3`: N = 3; filter_cpu_ms_per_post_1000_terms does not depend on N and is measured once)");
  await runAtDatabases((n) => benchAt(n, n === first ? filterCpu : undefined));
}

/** One pass of every measure but the filter's over a fresh stack of `databases` Redis databases; answers its RESULT keys. */
async function benchAt(databases: number, filterCpu: number | undefined): Promise<Record<string, string | number>> {
  const passStarted = performance.now();
  const { bench, redis, db, close } = await startBenchWithClients({ redisDatabases: databases, push: true });
  const other = await startBenchWorkerOn(bench.stack, { push: true });
  const clients = [redis, ...bench.stack.databases.slice(1).map((d) => new IORedis(d.redisUrl))];
  const redisOf = (id: string) => clients[databaseOf(id, databases)]!;
  const leaks = new Leaks();
  const { phase, text: phasesText } = phaseTimer(passStarted);
  phase("stack");
  try {
    await seed(db);
    phase("seed");
    const tokens = new Map<string, string>();
    const tokenOf = async (u: string) => tokens.get(u) ?? (tokens.set(u, await bench.token(u)), tokens.get(u)!);
    const service = await bench.token("1", "service");
    const as = async (u: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => send(bench.url, method, path, await tokenOf(u), body, headers);
    const blocked = range(READERS).map(blockedReader);
    const plain = range(READERS).map(plainReader);
    for (const u of [...blocked, ...plain]) await tokenOf(u);
    const hiddenOf = (r: number) => new Set([...BLOCKED, ...mutedBy(r)]);

    // The push witness: blocked reader 0 has an FCM device on the local push services.
    const witness = blocked[0]!;
    const device = `fcm-bench-${witness}`;
    await db.query(`INSERT INTO notify_devices (user_id, device_id, kind, address, details) VALUES ($1, 'android', 'fcm', $2, '{}')`, [witness, device]);
    const pushTitles: string[] = [];
    bench.stack.push.received.onReceived((p) => {
      if (p.device === device) pushTitles.push(p.title ?? "");
    });
    let sentinels = 0;
    /** A DM from a friend to the witness, pushed: once it arrived, the queue has sent everything enqueued before it. */
    const sentinel = async () => {
      const title = `sentinel ${++sentinels}`;
      await ok(send(bench.url, "POST", `/v1/dms/${witness}`, service, { from: FRIEND, alert: { title } }), "sentinel DM");
      const deadline = performance.now() + 60_000;
      while (!pushTitles.includes(title)) {
        if (performance.now() > deadline) throw new Error(`the sentinel push "${title}" did not arrive within 60 s`);
        await sleep(50);
      }
    };

    // ── Warm state: timelines built, sets rebuilt from Postgres, caches filled ──
    const pageOf = (users: string[]) => (i: number) => ({ path: "/v1/me/feed?limit=20", headers: { Authorization: `Bearer ${tokens.get(users[i % users.length]!)}` } });
    const badgesOf = (users: string[]) => (i: number) => ({ path: "/v1/me/badges", headers: { Authorization: `Bearer ${tokens.get(users[i % users.length]!)}` } });
    // At N > 1 a page read alone asks the other databases for what the isolate's copies (≤ 1 s for
    // counts) no longer hold: a pass of sequential-ish pages is warm at one request per database.
    const warm = { perPage: databases === 1 ? 1.1 : databases + 0.1 };
    await warmUp(bench, "pages of the readers with 1,000 blocks and 1,000 mutes", READERS, 4, pageOf(blocked), warm);
    await warmUp(bench, "pages of the readers with none", READERS, 4, pageOf(plain), warm);
    await warmUp(bench, "badges of the readers with 1,000 blocks and 1,000 mutes", READERS, 4, badgesOf(blocked));
    await warmUp(bench, "badges of the readers with none", READERS, 4, badgesOf(plain));

    phase("warm-up");
    // ── Feed pages: the two kinds of reader in alternating slices ──
    type Side = "blocked" | "unblocked";
    const loads: Record<Side, LoadResult[]> = { blocked: [], unblocked: [] };
    const counted: Record<Side, { requests: number; billed: number }> = { blocked: { requests: 0, billed: 0 }, unblocked: { requests: 0, billed: 0 } };
    for (let s = 0; s < SLICES; s++) {
      for (const side of (s % 2 === 0 ? ["blocked", "unblocked"] : ["unblocked", "blocked"]) as Side[]) {
        const stats = await redisCommandStats(bench.stack);
        const requests = bridgeRequests(bench.stack);
        loads[side].push(await runLoad({ baseUrl: bench.url, concurrency: CONCURRENCY, durationMs: SLICE_MS, request: pageOf(side === "blocked" ? blocked : plain) }));
        counted[side].requests += bridgeRequests(bench.stack) - requests;
        counted[side].billed += billedCommandsBetween(stats, await redisCommandStats(bench.stack)).total;
      }
    }
    const pages = { blocked: combineLoads(loads.blocked), unblocked: combineLoads(loads.unblocked) };
    const served = (side: Side) => pages[side].requests - pages[side].errors;
    const speedup = pages.blocked.rps / pages.unblocked.rps;

    phase("pages load");
    // ── Rounds of one page, and of one badges call, with the badges' billed commands ──
    const pageRounds: Record<Side, number[]> = { blocked: [], unblocked: [] };
    for (let i = 0; i < 10; i++) {
      for (const [side, users] of [["blocked", blocked], ["unblocked", plain]] as const) {
        await quiet(bench.stack);
        pageRounds[side].push(await roundsOf(bench.stack, () => as(users[i % READERS]!, "GET", "/v1/me/feed?limit=20"), (json) => json.items?.length === 20 || "a short page", (text) => benchLog(`page of ${users[i % READERS]}: ${text}`)));
      }
    }
    const badgeRounds: Record<Side, number[]> = { blocked: [], unblocked: [] };
    const badgeBilled: Record<Side, number[]> = { blocked: [], unblocked: [] };
    for (let i = 0; i < SAMPLES; i++) {
      for (const [side, users] of [["blocked", blocked], ["unblocked", plain]] as const) {
        // A read first, unmeasured: what a read writes after its answer once a minute (the active
        // record) is then written, so the measured call is the read alone, as most reads are.
        await ok(as(users[i % READERS]!, "GET", "/v1/me/badges"), "badges");
        await quiet(bench.stack); // each sampled call alone on the bridges: what earlier calls left to run has landed
        const stats = await redisCommandStats(bench.stack);
        badgeRounds[side].push(await roundsOf(bench.stack, () => as(users[i % READERS]!, "GET", "/v1/me/badges"), (json) => json.feed !== undefined || "no feed badge", (text) => benchLog(`badges of ${users[i % READERS]}: ${text}`)));
        await quiet(bench.stack); // what the read writes after its answer is its cost too
        badgeBilled[side].push(billedCommandsBetween(stats, await redisCommandStats(bench.stack)).total);
      }
    }

    phase("rounds and billed");
    // ── Leaks on the pages: every blocked reader's chronological walk and ranked first page ──
    let mutedSeenByPlain = 0;
    for (let r = 0; r < READERS; r++) {
      const hidden = hiddenOf(r);
      const walk = async (u: string) => {
        const items: { post: { authorId: string } }[] = [];
        let cursor: string | null = null;
        for (let p = 0; p < WALK_PAGES; p++) {
          const page = await ok(as(u, "GET", `/v1/me/feed?limit=20${cursor ? `&cursor=${cursor}` : ""}`), "page walk");
          items.push(...page.json.items);
          cursor = page.json.nextCursor;
          if (!cursor) break;
        }
        return items;
      };
      const items = await walk(blocked[r]!);
      leaks.check("blocks/mutes: posts on the blocked readers' chronological pages (5 pages each)", items.filter((i) => hidden.has(i.post.authorId)).length, items.length);
      const ranked = (await ok(as(blocked[r]!, "GET", "/v1/me/feed?order=ranked&limit=50"), "ranked page")).json.items as { post: { authorId: string } }[];
      leaks.check("blocks/mutes: posts on their ranked first pages (50 each)", ranked.filter((i) => hidden.has(i.post.authorId)).length, ranked.length);
      mutedSeenByPlain += (await walk(plain[r]!)).filter((i) => hidden.has(i.post.authorId)).length;
    }

    phase("page walks");
    // ── Block apply: 4 blocked readers side by side, each blocking BLOCK_TRIALS / 4 authors in turn ──
    const applyMs: number[] = [];
    const blockMs: number[] = [];
    let readsAfterFirst = 0;
    let tokenAnswered = 0;
    const chains = 4;
    const trialAuthor = (chain: number, t: number) => String(TRIAL_AUTHOR_BASE + chain * 1_000 + t);
    const perChain = Math.ceil(BLOCK_TRIALS / chains);
    for (let c = 0; c < chains; c++) for (let t = 0; t < perChain; t++) await ok(as(blocked[c]!, "PUT", `/v1/me/following/${trialAuthor(c, t)}`), "trial follow");
    await Promise.all(
      range(chains).map(async (c) => {
        const reader = blocked[c]!;
        for (let t = 0; t < perChain; t++) {
          const author = trialAuthor(c, t);
          await ok(as(reader, "GET", "/v1/me/feed?limit=20"), "page before the trial"); // the "N new posts" marker moves to the top
          const { id } = (await ok(as(author, "POST", "/v1/posts", { text: `trial ${c}:${t}` }), "trial post")).json as { id: string };
          const deadline = performance.now() + 30_000;
          while ((await redisOf(reader).zscore(feedKeys.timeline(reader), timelineMember(id, author))) === null) {
            if (performance.now() > deadline) throw new Error("the trial post was not fanned out within 30 s");
            await sleep(20);
          }
          await ok(send(bench.url, "POST", `/v1/dms/${reader}`, service, { from: author, alert: { title: `trial dm ${author}` } }), "trial DM");
          const before = (await ok(as(reader, "GET", "/v1/me/badges"), "badges before")).json;
          const pageBefore = (await ok(as(reader, "GET", "/v1/me/feed?limit=20"), "page before")).json;
          if (before.feed.count < 1 || before.authors.count < 1 || before.dms.count < 1 || !pageBefore.items.some((i: { post: { id: string } }) => i.post.id === id)) {
            throw new Error(`trial ${c}:${t}: the author is not on the reader's page and badges before the block: ${JSON.stringify({ feed: before.feed, authors: before.authors, dms: before.dms })}`);
          }
          const t0 = performance.now();
          const block = await ok(as(reader, "PUT", `/v1/me/blocks/${author}`), "block");
          blockMs.push(performance.now() - t0);
          const consistency = block.headers.get("x-consistency-token");
          if (consistency) tokenAnswered++;
          const carried: Record<string, string> = consistency ? { "X-Consistency-Token": consistency } : {};
          for (let reads = 0; ; reads++) {
            const sentAt = performance.now();
            // Badges first: the page moves the "N new posts" marker, which would hide a `feed` count left over.
            const badges = (await ok(as(reader, "GET", "/v1/me/badges", undefined, carried), "badges after")).json;
            const page = (await ok(as(reader, "GET", "/v1/me/feed?limit=20", undefined, carried), "page after")).json;
            const clean =
              !page.items.some((i: { post: { authorId: string } }) => i.post.authorId === author) &&
              badges.feed.count === before.feed.count - 1 &&
              badges.authors.count === before.authors.count - 1 &&
              badges.dms.count === before.dms.count - 1;
            leaks.check("blocks: the blocked author's post on the next page, or in the next badges' feed, authors, dms", !clean);
            if (clean) {
              applyMs.push(sentAt - t0);
              readsAfterFirst += reads;
              break;
            }
            if (performance.now() - t0 > 10_000) throw new Error(`trial ${c}:${t}: page and badges not clean 10 s after the block`);
            await sleep(20);
          }
          const authors = (await ok(as(reader, "GET", "/v1/me/unread/authors?limit=50"), "unread authors")).json.items as { authorId: string }[];
          leaks.check("blocks/mutes: hidden authors in unread per author", authors.filter((a) => a.authorId === author || hiddenOf(c).has(a.authorId)).length);
          const profile = await as(reader, "GET", `/v1/users/${author}/posts`);
          leaks.check("blocks: the blocked author's profile read by the blocker (403 expected)", profile.status !== 403);
        }
      }),
    );

    phase("block trials");
    // ── Notifications and DMs from hidden users to the witness: suppressed, uncounted, unpushed ──
    await sentinel();
    const witnessBadges = async () => {
      const b = (await ok(as(witness, "GET", "/v1/me/badges"), "witness badges")).json;
      return { notifications: b.notifications.total.count as number, dms: b.dms.count as number };
    };
    const countsBefore = await witnessBadges();
    const senders = [...BLOCKED.slice(0, 5), ...range(5).map((j) => String(MUTED_BASE + 2 * j)), ...range(5).map((t) => trialAuthor(0, t % perChain))];
    for (const from of senders) {
      const n = await ok(send(bench.url, "POST", `/v1/users/${witness}/notifications`, service, { type: "reply", from, alert: { title: `hidden ${from}` } }), "hidden notification");
      leaks.check("blocks/mutes: notifications from blocked or notification-muted users answered applied", n.json.applied !== false || n.json.suppressed === undefined);
      // A DM from a blocked user is refused (403 `blocked`), one from a muted user accepted and suppressed.
      const d = await send(bench.url, "POST", `/v1/dms/${witness}`, service, { from, alert: { title: `hidden dm ${from}` } });
      const refused = d.status === 403 && d.json.error?.code === "blocked";
      const suppressed = d.status === 200 && d.json.applied === false && d.json.suppressed !== undefined;
      if (!refused && !suppressed && d.status !== 200) throw new Error(`hidden DM: ${d.status} ${JSON.stringify(d.json)}`);
      leaks.check("blocks/mutes: DMs from blocked (403) or notification-muted users answered applied", !refused && !suppressed);
    }
    const countsAfter = await witnessBadges();
    leaks.check("blocks/mutes: the witness' notifications and dms counts moved by them", Math.abs(countsAfter.notifications - countsBefore.notifications) + Math.abs(countsAfter.dms - countsBefore.dms));

    phase("hidden notifications");
    // ── Suspension: through one Worker, seen by another ──
    const suspension = await measureSuspension(bench, other, leaks, (user) => ok(send(bench.url, "POST", `/v1/users/${witness}/notifications`, service, { type: "reply", from: user, alert: { title: `suspended ${user}` } }), "notification from a suspended user"));

    phase("suspension");
    // ── Pushes: everything enqueued so far has been sent once the last sentinel arrived ──
    await sentinel();
    leaks.check("blocks/mutes: pushes to the witness from hidden users", pushTitles.filter((t) => t.startsWith("hidden")).length, senders.length * 2);
    leaks.check("suspension: pushes to the witness caused by a suspended user", pushTitles.filter((t) => t.startsWith("suspended")).length, suspension.notified);
    const otherPushes = pushTitles.filter((t) => !t.startsWith("hidden") && !t.startsWith("suspended") && !t.startsWith("sentinel") && !t.startsWith("trial dm"));
    if (otherPushes.length > 0) console.log(`pushes to the witness not sent by the bench: ${JSON.stringify(otherPushes)}`);
    if (!pushTitles.some((t) => t.startsWith("trial dm"))) console.log("(no trial DM was pushed: the push check saw only the sentinels)");

    phase("last sentinel");
    const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));
    const rows = (["blocked", "unblocked"] as Side[]).map((side) => ({
      "feed pages (first, limit 20)": side === "blocked" ? "1,000 blocks + 1,000 mutes" : "none",
      "req/s": pages[side].rps,
      "p50 ms": pages[side].p50Ms,
      "p99 ms": pages[side].p99Ms,
      pages: pages[side].requests,
      errors: pages[side].errors,
      "rounds/page": median(pageRounds[side]),
      "redis requests/page": counted[side].requests / served(side),
      "billed cmds/page": counted[side].billed / served(side),
      "badges rounds": median(badgeRounds[side]),
      "badges billed cmds": median(badgeBilled[side]),
    }));
    printTable(rows);
    console.log(`plain readers' walks held ${mutedSeenByPlain} posts of the authors their blocked twins mute (what the filter takes out)`);
    console.log(`block: ${blockMs.length} trials, latency p50 ${fmt(median(blockMs))} ms p99 ${fmt(percentile(sorted(blockMs), 0.99))} ms; page and badges clean from send p50 ${fmt(median(applyMs))} ms p99 ${fmt(percentile(sorted(applyMs), 0.99))} ms; reads after the first needed: ${readsAfterFirst}; consistency token answered by ${tokenAnswered} blocks`);
    printTable(leaks.rows());
    console.log(`pass at N = ${databases}: ${((performance.now() - passStarted) / 1000).toFixed(0)} s (${phasesText()})`);
    return {
      feed_page_speedup_ratio_blocked: speedup.toFixed(3),
      feed_page_round_trips_blocked: fmt(median(pageRounds.blocked)),
      badges_round_trips_blocked: fmt(median(badgeRounds.blocked)),
      badges_billed_commands_blocked: fmt(median(badgeBilled.blocked)),
      block_apply_ms_p50: median(applyMs).toFixed(0),
      block_apply_ms_p99: percentile(sorted(applyMs), 0.99).toFixed(0),
      suspension_visible_ms_p99: suspension.visibleP99.toFixed(0),
      ...(filterCpu === undefined ? {} : { filter_cpu_ms_per_post_1000_terms: filterCpu.toFixed(4) }),
      leaks: leaks.total,
      feed_page_round_trips_unblocked: fmt(median(pageRounds.unblocked)),
      feed_page_requests_blocked: fmt(counted.blocked.requests / served("blocked")),
      feed_page_requests_unblocked: fmt(counted.unblocked.requests / served("unblocked")),
      feed_page_billed_commands_blocked: fmt(counted.blocked.billed / served("blocked")),
      feed_page_billed_commands_unblocked: fmt(counted.unblocked.billed / served("unblocked")),
      badges_round_trips_unblocked: fmt(median(badgeRounds.unblocked)),
      badges_billed_commands_unblocked: fmt(median(badgeBilled.unblocked)),
      block_latency_ms_p50: median(blockMs).toFixed(0),
      block_latency_ms_p99: percentile(sorted(blockMs), 0.99).toFixed(0),
      block_apply_reads_after_first: readsAfterFirst,
      suspension_visible_ms_p50: suspension.visibleP50.toFixed(0),
      suspension_lift_ms_p99: suspension.liftP99.toFixed(0),
    };
  } finally {
    for (const client of clients.slice(1)) client.disconnect();
    await other.stop();
    await close();
  }
}

/**
 * SUSPENSION_TRIALS suspensions in 4 chains side by side, each of a user who posted once: made
 * through `bench`, timed until `other` refuses the user's token; then the leak checks (both
 * Workers refuse the token, hide the profile and the post) and a notification `from` the user
 * (`notify`, whose push the caller looks for), then the lift, timed until `other` lets them in.
 */
async function measureSuspension(bench: BenchWorker, other: BenchWorker, leaks: Leaks, notify: (user: string) => Promise<unknown>) {
  const admin = await bench.token("1", "admin");
  const visible: number[] = [];
  const lifted: number[] = [];
  let notified = 0;
  let restored = 0;
  const status = async (worker: BenchWorker, token: string) => (await send(worker.url, "GET", "/v1/me/blocks?limit=1", token)).status;
  const until = async (token: string, wanted: number, from: number) => {
    for (;;) {
      if ((await status(other, token)) === wanted) return performance.now() - from;
      if (performance.now() - from > 30_000) throw new Error(`no ${wanted} within 30 s`);
      await sleep(20);
    }
  };
  const chains = 4;
  await Promise.all(
    range(chains).map(async (chain) => {
      for (let trial = chain; trial < SUSPENSION_TRIALS; trial += chains) {
        const user = String(SUSPENDED_BASE + trial);
        const [token, tokenHere] = [await other.token(user), await bench.token(user)];
        if ((await status(other, token)) !== 200) throw new Error("the user's first request was not 200");
        // A follower whose home timeline shows the post before the suspension (the fan-out ran).
        const watcher = String(WATCHER_BASE + trial);
        const watcherTokens = [[bench, await bench.token(watcher)], [other, await other.token(watcher)]] as const;
        await ok(send(bench.url, "PUT", `/v1/me/following/${user}`, watcherTokens[0][1]), "the watcher's follow");
        await ok(send(bench.url, "GET", "/v1/me/feed?limit=5", watcherTokens[0][1]), "the watcher's timeline built");
        const { id } = (await ok(send(bench.url, "POST", "/v1/posts", tokenHere, { text: `suspended ${trial}` }), "suspended user's post")).json as { id: string };
        const onTimeline = async (worker: BenchWorker, t: string) =>
          ((await ok(send(worker.url, "GET", "/v1/me/feed?limit=20", t), "the watcher's page")).json as { items: { post: { id: string } }[] }).items.some((i) => i.post.id === id);
        const inTrending = async (worker: BenchWorker) =>
          ((await ok(send(worker.url, "GET", "/v1/posts/trending?window=1h&limit=100"), "trending")).json as { items: { post: { id: string } }[] }).items.some((i) => i.post.id === id);
        await ok(send(bench.url, "PUT", `/v1/posts/${id}/likes/me`, watcherTokens[0][1]), "the watcher's like"); // so it may trend
        for (const started = performance.now(); !(await onTimeline(bench, watcherTokens[0][1])); await sleep(50)) {
          if (performance.now() - started > 30_000) throw new Error("the suspended user's post never reached the watcher's timeline");
        }
        // The other Worker's copy is at a random age when the suspension lands, as in production.
        await sleep(Math.random() * 2_500);
        await ok(send(bench.url, "PUT", `/v1/admin/users/${user}/suspension`, admin, { reason: "bench" }), "suspension");
        visible.push(await until(token, 403, performance.now()));
        for (const [worker, t] of [[bench, tokenHere], [other, token]] as const) {
          leaks.check("suspension: a request with the suspended user's token answered other than 403", (await status(worker, t)) !== 403);
          const profile = await send(worker.url, "GET", `/v1/users/${user}/posts`);
          leaks.check("suspension: the profile read showing their post", profile.status !== 200 || profile.json.items.length !== 0);
          leaks.check("suspension: the post read answered other than 404", (await send(worker.url, "GET", `/v1/posts/${id}`)).status !== 404);
          leaks.check("suspension: the post in trending", await inTrending(worker));
        }
        for (const [worker, t] of watcherTokens) leaks.check("suspension: the post on a follower's home timeline", await onTimeline(worker, t));
        await notify(user);
        notified++;
        await ok(send(bench.url, "DELETE", `/v1/admin/users/${user}/suspension`, admin), "lift");
        lifted.push(await until(token, 200, performance.now()));
        if ((await send(other.url, "GET", `/v1/posts/${id}`)).status === 200 && (await onTimeline(other, watcherTokens[1][1]))) restored++;
      }
    }),
  );
  console.log(
    `suspension seen by another Worker (${SUSPENSION_TRIALS} trials): p50 ${median(visible).toFixed(0)} ms, p99 ${percentile(sorted(visible), 0.99).toFixed(0)} ms; lift p99 ${percentile(sorted(lifted), 0.99).toFixed(0)} ms; post readable and on the follower's timeline again after the lift: ${restored}/${SUSPENSION_TRIALS}`,
  );
  return { visibleP50: median(visible), visibleP99: percentile(sorted(visible), 0.99), liftP99: percentile(sorted(lifted), 0.99), notified };
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
