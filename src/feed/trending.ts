import { completeForRead, completeFromSnapshot, decodeCachedCounters } from "../counters/counters";
import { counterKeys } from "../counters/keys";
import { fieldsOf } from "../counters/registry";
import { TRENDING_WINDOWS, type TrendingWindow, windowHours } from "../counters/trending";
import { isoTimestamp } from "../db/columns";
import { readRegionsOn } from "../lib/consistency";
import { isDependencyFailure, isRedisCommandError } from "../lib/errors";
import { hiddenAmong } from "../safety/cache";
import { isSuspended, moderationCopy } from "../safety/copy";
import { runReadOnly } from "../lib/read-only-scripts";
import { isRedisRateLimited } from "../lib/redis";
import { commandFailure, isRedisOutage } from "../lib/redis-failures";
import { settleEveryDatabase } from "../lib/redis-topology";
import type { ScriptRunner } from "../lib/script-batch";
import type { Services } from "../lib/services";
import { feedKeys, TOMBSTONE } from "./keys";
import { readPosts } from "./store";
import { encodeCachedPost, type Post, type PostCounts, postCounts } from "./timeline";
import { DROP_TRENDING_POSTS, NEAR_TRENDING_CANDIDATES, READ_TRENDING, READ_TRENDING_COPY, STORE_TRENDING, TRENDING_CANDIDATES } from "./trending.lua";

export type TrendingItem = { post: Post; counts: PostCounts; score: number };
export type TrendingPage = { window: TrendingWindow; items: TrendingItem[]; degraded: boolean };

/** Most items a trending list holds (and `limit` may ask for). */
export const MAX_TRENDING = 100;
/** Candidates read per recompute: room for deleted posts among the top. */
const CANDIDATES = 150;
/** A computed list is shared through Redis by every isolate for this long: one recompute per window per 5 s. */
const FRESH_MS = 5_000;
/** The last computed list, served while a recompute is under way, lives this long. */
const LAST_COPY_SECONDS = 10 * 60;
/** The recompute lock's life if its holder dies (a recompute is a few Redis calls and at most two statements). */
const LOCK_MS = 10_000;
/** Each isolate keeps the list this long without asking Redis: the most a deleted post can outlive its delete. */
const ISOLATE_MS = 2_000;
/** A delete is remembered this long, far beyond a recompute (which gives up with its lock). */
const GONE_MS = 60_000;
/**
 * With read regions, a stored copy at most this old is the answer: the per-minute cron stores every
 * window's list (`refreshTrending`), and this leaves 30 s for the cron's start and the tasks before
 * it. A reader finding none that young computes the list itself, read-only, without storing it.
 */
export const NEAR_COPY_MAX_AGE_MS = 90_000;
/** A reader that finds a recompute under way and no list at all asks again after these pauses (ms). */
const WAIT_MS = [20, 40, 80, 160, 250];
const WAIT_ATTEMPTS = 60;

const POST_FIELDS = fieldsOf("post");
const WINDOWS = Object.keys(TRENDING_WINDOWS) as TrendingWindow[];
/** Per isolate: the last list of each window and when it was read. */
const isolateCache = new Map<TrendingWindow, { at: number; items: TrendingItem[] }>();

/** One database's top posts of a window, with their post cache entries and cached counters. */
type Candidates = { ids?: string[]; scores?: string[]; posts?: (string | false)[]; counts?: unknown[] };
type ReadAnswer = Candidates & { items?: TrendingItem[]; wait?: boolean; computed?: boolean };

/**
 * The posts with the most engagement in the window, from the hourly buckets the counters' increment
 * script bumps (never a Postgres scan). Each isolate keeps a list 2 s; Redis keeps it 5 s, and when
 * it expires ONE reader recomputes it (a lock) while every other reader, in any isolate, gets the
 * last list. A deleted post leaves the stored lists when its delete returns (`dropTrendingPosts`),
 * so it is gone from every answer within the 2 s of an isolate's copy. Redis down: an empty list,
 * `degraded: true`.
 *
 * Over N databases the lock and the stored lists live on database 0 (one recompute per window in
 * all, and a fresh read is still one call), while each database keeps the buckets of its own posts:
 * the recompute takes database 0's top posts from the lock's own call and every other database's
 * in parallel (one round more), and merges them. A post lives on one database, so its whole score
 * is in that database's buckets and the merge of the per-database top lists is the exact top list.
 * A database that does not answer leaves its posts out of that reader's answer (`degraded: true`),
 * which is not stored: other readers keep the last copy until the lock expires.
 *
 * With read regions (`REDIS_READ_REGIONS` on) nothing of a read reaches the primary: the per-minute
 * cron recomputes and stores every window's list (`refreshTrending`), and a read asks the nearest
 * region for the stored list (`readStoredNear`); a reader that finds no copy younger than
 * NEAR_COPY_MAX_AGE_MS computes the list from the region itself (`computeNear`) and keeps it in its
 * isolate only.
 */
export async function readTrending(services: Services, window: TrendingWindow, limit: number, now = Date.now()): Promise<TrendingPage> {
  const hit = isolateCache.get(window);
  // A copy stamped later than this read's clock (callers that pass their own, as tests do) is not this read's to serve.
  if (hit && now >= hit.at && now - hit.at < ISOLATE_MS) return { window, items: hit.items.slice(0, limit), degraded: false };
  const hours = windowHours(window, now);
  let items: TrendingItem[] | undefined;
  try {
    if (readRegionsOn(services.env)) {
      items = await readStoredNear(services, window);
      if (!items) {
        const computed = await computeNear(services, window, hours);
        if (!computed.complete) return { window, items: computed.items.slice(0, limit), degraded: true };
        items = computed.items;
      }
    }
    for (let attempt = 0; !items; attempt++) {
      const turn = await takeTurn(services, window, hours);
      if (turn !== "wait") {
        items = turn.items;
        if (!turn.complete) return { window, items: items.slice(0, limit), degraded: true };
      } else if (attempt >= WAIT_ATTEMPTS) return { window, items: [], degraded: true };
      // A recompute is under way and no list was ever stored: ask again shortly.
      else await new Promise((r) => setTimeout(r, WAIT_MS[Math.min(attempt, WAIT_MS.length - 1)]));
    }
  } catch (err) {
    if (isRedisCommandError(err)) throw commandFailure("Trending script", err);
    if (isRedisOutage(err)) return { window, items: [], degraded: true };
    throw err;
  }
  isolateCache.set(window, { at: now, items });
  return { window, items: items.slice(0, limit), degraded: false };
}

/**
 * The trending list as everyone sees it: the shared list (`readTrending`, the whole list, not cut
 * to `limit`) without the posts of suspended users (src/safety's copy in this isolate: no round
 * trip; a lift shows them again as they rank), then cut to `limit`, so a page stays full while the
 * list holds enough.
 */
export async function readTrendingShown(services: Services, window: TrendingWindow, limit: number, now = Date.now()): Promise<TrendingPage> {
  const [page, copy] = await Promise.all([readTrending(services, window, MAX_TRENDING, now), moderationCopy(services)]);
  return { ...page, items: page.items.filter((i) => !isSuspended(copy, i.post.authorId)).slice(0, limit) };
}

/**
 * The trending list as `readerId` sees it: the shown list (`readTrendingShown`, uncut) without the
 * posts of authors the reader's blocks and mutes hide (src/safety's `hiddenAmong`: one read-only
 * call on the reader's database for the list's distinct authors), then cut to `limit`, so a page
 * stays full while the list holds enough. Redis down: the list's own degraded answer.
 */
export async function readTrendingFor(services: Services, readerId: string, window: TrendingWindow, limit: number, now = Date.now()): Promise<TrendingPage> {
  const page = await readTrendingShown(services, window, MAX_TRENDING, now);
  if (page.items.length === 0) return page;
  let hidden: Set<string>;
  try {
    hidden = await hiddenAmong(services, readerId, page.items.map((i) => i.post.authorId));
  } catch (err) {
    if (!isDependencyFailure(err) && !isRedisOutage(err)) throw err;
    return { window, items: [], degraded: true };
  }
  return { ...page, items: page.items.filter((i) => !hidden.has(i.post.authorId)).slice(0, limit) };
}

/**
 * With read regions: the stored list as the nearest region has it (one read-only call): the fresh
 * copy, else the last copy if it is at most NEAR_COPY_MAX_AGE_MS old; undefined when the region has
 * neither (the caller computes the list itself).
 */
async function readStoredNear(services: Services, window: TrendingWindow): Promise<TrendingItem[] | undefined> {
  const copy = await runReadOnly<string | ReadAnswer>(
    services.redis,
    READ_TRENDING_COPY,
    [counterKeys.trendingResult(window), counterKeys.trendingLast(window)],
    [String(NEAR_COPY_MAX_AGE_MS), String(LAST_COPY_SECONDS * 1000)],
  );
  return ((typeof copy === "string" ? JSON.parse(copy) : copy) as ReadAnswer).items;
}

/**
 * With read regions, when no stored copy is young enough (the cron has not run, or failed): the
 * list computed as a recompute does, from every database's nearest region, read-only
 * (NEAR_TRENDING_CANDIDATES, in parallel), merged and hydrated (post misses from Postgres, counter
 * misses completed near and cached after the answer), without the lock and without storing it (a
 * read region cannot write): the caller keeps it in its isolate. Posts deleted in the last minute
 * (`gone`, database 0) are left out with the tombstoned ones. Database 0 failing fails the read;
 * another database failing leaves its posts out (`complete` false), as in a recompute.
 */
async function computeNear(services: Services, window: TrendingWindow, hours: number[]): Promise<{ items: TrendingItem[]; complete: boolean }> {
  const keys = [counterKeys.trendingGone(), ...hours.map((h) => counterKeys.trendingBucket(h))];
  const args = (index: number) => [String(CANDIDATES), feedKeys.postPrefix(), counterKeys.cache("post", ""), index === 0 ? "1" : "0", ...POST_FIELDS];
  const settled = await settleEveryDatabase(services.databases, (index) =>
    runReadOnly<string | (Candidates & { gone?: unknown })>(services.redisAt(index), NEAR_TRENDING_CANDIDATES, keys, args(index)).then(
      (raw) => (typeof raw === "string" ? JSON.parse(raw) : raw) as Candidates & { gone?: unknown },
    ),
  );
  const first = settled.get(0);
  if (first?.status === "rejected") throw first.reason;
  const { parts, complete } = answeredParts(settled);
  const gone = new Set(Array.isArray(parts[0]?.gone) ? parts[0].gone.map(String) : []);
  const items = await computeItems(services, mergeParts(parts), "near");
  return { items: gone.size > 0 ? items.filter((i) => !gone.has(i.post.id)) : items, complete };
}

/**
 * The per-minute cron's part with read regions on (`feed.trending-refresh`): one turn per window on
 * the primary, as a reader without read regions takes it (the lock keeps it to one recompute per
 * window however many runs overlap; a fresh copy is kept). Reads then find a copy at most a minute
 * and the cron's start old. Off, reads recompute as they always did and this does nothing.
 */
export async function refreshTrending(services: Services, now = Date.now()): Promise<{ recomputed: TrendingWindow[]; kept: TrendingWindow[]; incomplete: TrendingWindow[] } | { skipped: string }> {
  if (!readRegionsOn(services.env)) return { skipped: "read regions off: readers recompute" };
  const report = { recomputed: [] as TrendingWindow[], kept: [] as TrendingWindow[], incomplete: [] as TrendingWindow[] };
  for (const window of WINDOWS) {
    const turn = await takeTurn(services, window, windowHours(window, now));
    if (turn === "wait" || !turn.computed) report.kept.push(window);
    else (turn.complete ? report.recomputed : report.incomplete).push(window);
  }
  return report;
}

/**
 * One READ_TRENDING call on database 0 (the primary): the fresh list; or this caller took the lock
 * and recomputes (merged from every database at N > 1, `complete` false when one did not answer:
 * then nothing was stored); or the last list while another caller recomputes; or "wait" when a
 * recompute is under way and no list was ever stored.
 */
async function takeTurn(services: Services, window: TrendingWindow, hours: number[]): Promise<{ items: TrendingItem[]; complete: boolean; computed: boolean } | "wait"> {
  const keys = [
    counterKeys.trendingResult(window),
    counterKeys.trendingLast(window),
    counterKeys.trendingLock(window),
    counterKeys.trendingScratch(window),
    ...hours.map((h) => counterKeys.trendingBucket(h)),
  ];
  const token = crypto.randomUUID();
  const args = [String(CANDIDATES), feedKeys.postPrefix(), counterKeys.cache("post", ""), token, String(LOCK_MS), ...POST_FIELDS];
  const answer = await runScript<ReadAnswer>(services.redis, READ_TRENDING, keys, args);
  if (answer.items) return { items: answer.items, complete: true, computed: false };
  if (!answer.computed) return "wait";
  const merged = await mergeCandidates(services, window, hours, answer);
  const items = await computeItems(services, merged.candidates, "warm");
  return { items: await storeRecomputed(services, window, token, items, merged.complete), complete: merged.complete, computed: true };
}

async function runScript<T>(redis: ScriptRunner, source: string, keys: string[], args: string[]): Promise<T> {
  const raw = await redis.createScript(source).exec(keys, args);
  return (typeof raw === "string" ? JSON.parse(raw) : raw) as T;
}

/**
 * Stores a recomputed list for every isolate (fresh and last copies) and releases the lock; what
 * was deleted since the candidates were read is left out of the stored and the returned list.
 */
async function storeRecomputed(services: Services, window: TrendingWindow, token: string, items: TrendingItem[], store: boolean): Promise<TrendingItem[]> {
  const pairs = items.flatMap((i) => [i.post.id, JSON.stringify(i)]);
  const dropped = await runScript<unknown[]>(
    services.redis,
    STORE_TRENDING,
    [counterKeys.trendingResult(window), counterKeys.trendingLast(window), counterKeys.trendingLock(window), counterKeys.trendingGone()],
    [token, String(FRESH_MS), String(LAST_COPY_SECONDS), store ? "1" : "0", ...pairs],
  );
  const gone = new Set((Array.isArray(dropped) ? dropped : []).map(String));
  return gone.size > 0 ? items.filter((i) => !gone.has(i.post.id)) : items;
}

/**
 * Takes deleted posts out of every window's stored lists (one script, joining the caller's
 * pipeline) and out of this isolate's copies; other isolates' copies expire within ISOLATE_MS.
 */
export function dropTrendingPosts(redis: ScriptRunner, postIds: readonly string[], now = Date.now()): Promise<unknown> {
  for (const [window, cached] of isolateCache) {
    if (cached.items.some((i) => postIds.includes(i.post.id))) isolateCache.set(window, { ...cached, items: cached.items.filter((i) => !postIds.includes(i.post.id)) });
  }
  const copies = WINDOWS.flatMap((w) => [counterKeys.trendingResult(w), counterKeys.trendingLast(w)]);
  return redis.createScript(DROP_TRENDING_POSTS).exec([...copies, counterKeys.trendingGone()], [String(now), String(GONE_MS), ...postIds]);
}

/**
 * The window's candidates over every database: database 0's (from the lock's call) and, at N > 1,
 * every other database's top CANDIDATES (TRENDING_CANDIDATES, ≤ 6 at once), merged by score (ties
 * as ZREVRANGE orders them: member descending) and cut to CANDIDATES. Exact: each post's score is
 * whole in its own database, so the top CANDIDATES of all are among the per-database tops.
 * `complete` is false when a database did not answer or was past its command budget (its posts
 * are missing); any other failure is thrown.
 */
async function mergeCandidates(services: Services, window: TrendingWindow, hours: number[], first: Candidates): Promise<{ candidates: Candidates; complete: boolean }> {
  const n = services.databases;
  if (n === 1) return { candidates: first, complete: true };
  const keys = [counterKeys.trendingScratch(window), ...hours.map((h) => counterKeys.trendingBucket(h))];
  const args = [String(CANDIDATES), feedKeys.postPrefix(), counterKeys.cache("post", ""), ...POST_FIELDS];
  const settled = await settleEveryDatabase(n, (index) => runScript<Candidates>(services.redisAt(index), TRENDING_CANDIDATES, keys, args), 0);
  const { parts, complete } = answeredParts(settled);
  return { candidates: mergeParts([first, ...parts]), complete };
}

/**
 * The databases' answers, in index order; `complete` false when one did not answer or was past its
 * command budget (its posts are missing). Any other failure is thrown.
 */
function answeredParts<T>(settled: Map<number, PromiseSettledResult<T>>): { parts: T[]; complete: boolean } {
  const parts: T[] = [];
  let complete = true;
  for (const r of settled.values()) {
    if (r.status === "fulfilled") parts.push(r.value);
    else if (isRedisOutage(r.reason) || isRedisRateLimited(r.reason)) complete = false;
    else throw r.reason;
  }
  return { parts, complete };
}

/** The databases' candidates as one list: by score (ties as ZREVRANGE orders them: member descending), cut to CANDIDATES. */
function mergeParts(parts: readonly Candidates[]): Candidates {
  if (parts.length === 1) return parts[0]!;
  type Row = { id: string; score: string; post: string | false | undefined; counts: unknown };
  const rows: Row[] = [];
  for (const part of parts) {
    const ids = Array.isArray(part.ids) ? part.ids.map(String) : [];
    ids.forEach((id, i) => rows.push({ id, score: String(part.scores?.[i] ?? 0), post: part.posts?.[i], counts: part.counts?.[i] }));
  }
  rows.sort((a, b) => Number(b.score) - Number(a.score) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const top = rows.slice(0, CANDIDATES);
  return { ids: top.map((r) => r.id), scores: top.map((r) => r.score), posts: top.map((r) => r.post ?? false), counts: top.map((r) => r.counts) };
}

/**
 * Hydrates a top list: cached posts and counters, misses from Postgres; deleted or unknown posts
 * dropped. Counter misses are warmed on the primary first for a list that is stored ("warm"), and
 * completed near (cached after the answer) for a list a reader computed itself ("near").
 */
async function computeItems(services: Services, answer: Candidates, counters: "warm" | "near") {
  const ids = (Array.isArray(answer.ids) ? answer.ids : []).map(String);
  if (ids.length === 0) return [];
  const posts = new Map<string, string>();
  const counts = new Map<string, number[]>();
  ids.forEach((id, i) => {
    const p = answer.posts?.[i];
    if (typeof p === "string") posts.set(id, p);
    const row = decodeCachedCounters(answer.counts?.[i], POST_FIELDS.length);
    if (row) counts.set(id, row);
  });
  const postMisses = ids.filter((id) => !posts.has(id));
  for (const r of postMisses.length > 0 ? await readPosts(services.db, postMisses) : []) {
    posts.set(r.id, r.deleted ? TOMBSTONE : encodeCachedPost({ authorId: r.author_id, text: r.text, createdAt: isoTimestamp(r.created_at) }));
  }
  const countMisses = ids.filter((id) => !counts.has(id) && posts.has(id) && posts.get(id) !== TOMBSTONE);
  if (countMisses.length > 0) {
    const completed = counters === "near" ? await completeForRead(services, "post", countMisses) : await completeFromSnapshot(services, "post", countMisses, "warm");
    for (const [id, row] of completed) counts.set(id, row);
  }
  const items: TrendingItem[] = [];
  ids.forEach((id, i) => {
    const cached = posts.get(id);
    const row = counts.get(id);
    if (!cached || cached === TOMBSTONE || !row || items.length >= MAX_TRENDING) return;
    const [authorId, text, createdAt] = JSON.parse(cached) as [string, string, string];
    items.push({
      post: { id, authorId, text, createdAt },
      counts: postCounts(row),
      score: Number(answer.scores?.[i] ?? 0),
    });
  });
  return items;
}

export { TRENDING_WINDOWS };
