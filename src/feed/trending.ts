import { completeFromSnapshot, decodeCachedCounters } from "../counters/counters";
import { counterKeys } from "../counters/keys";
import { fieldsOf } from "../counters/registry";
import { TRENDING_WINDOWS, type TrendingWindow, windowHours } from "../counters/trending";
import { isoTimestamp } from "../db/columns";
import { isRedisCommandError } from "../lib/errors";
import { commandFailure, isRedisOutage } from "../lib/redis-failures";
import type { ScriptRunner } from "../lib/script-batch";
import type { Services } from "../lib/services";
import { feedKeys, TOMBSTONE } from "./keys";
import { readPosts } from "./store";
import { encodeCachedPost, type Post, type PostCounts, postCounts } from "./timeline";
import { DROP_TRENDING_POSTS, READ_TRENDING, STORE_TRENDING } from "./trending.lua";

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
/** A reader that finds a recompute under way and no list at all asks again after these pauses (ms). */
const WAIT_MS = [20, 40, 80, 160, 250];
const WAIT_ATTEMPTS = 60;

const POST_FIELDS = fieldsOf("post");
const WINDOWS = Object.keys(TRENDING_WINDOWS) as TrendingWindow[];
/** Per isolate: the last list of each window and when it was read. */
const isolateCache = new Map<TrendingWindow, { at: number; items: TrendingItem[] }>();

type ReadAnswer = { items?: TrendingItem[]; wait?: boolean; computed?: boolean; ids?: string[]; scores?: string[]; posts?: (string | false)[]; counts?: unknown[] };

/**
 * The posts with the most engagement in the window, from the hourly buckets the counters' increment
 * script bumps (never a Postgres scan). Each isolate keeps a list 2 s; Redis keeps it 5 s, and when
 * it expires ONE reader recomputes it (a lock) while every other reader, in any isolate, gets the
 * last list. A deleted post leaves the stored lists when its delete returns (`dropTrendingPosts`),
 * so it is gone from every answer within the 2 s of an isolate's copy. Redis down: an empty list,
 * `degraded: true`.
 */
export async function readTrending(services: Services, window: TrendingWindow, limit: number, now = Date.now()): Promise<TrendingPage> {
  const hit = isolateCache.get(window);
  if (hit && now - hit.at < ISOLATE_MS) return { window, items: hit.items.slice(0, limit), degraded: false };
  const hours = windowHours(window, now);
  const keys = [
    counterKeys.trendingResult(window),
    counterKeys.trendingLast(window),
    counterKeys.trendingLock(window),
    counterKeys.trendingScratch(window),
    ...hours.map((h) => counterKeys.trendingBucket(h)),
  ];
  const token = crypto.randomUUID();
  const args = [String(CANDIDATES), feedKeys.postPrefix(), counterKeys.cache("post", ""), token, String(LOCK_MS), ...POST_FIELDS];
  let items: TrendingItem[] | undefined;
  try {
    for (let attempt = 0; !items; attempt++) {
      const answer = await runScript<ReadAnswer>(services.redis, READ_TRENDING, keys, args);
      if (answer.items) items = answer.items;
      else if (answer.computed) items = await storeRecomputed(services, window, token, await computeItems(services, answer));
      else if (attempt >= WAIT_ATTEMPTS) return { window, items: [], degraded: true };
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

async function runScript<T>(redis: ScriptRunner, source: string, keys: string[], args: string[]): Promise<T> {
  const raw = await redis.createScript(source).exec(keys, args);
  return (typeof raw === "string" ? JSON.parse(raw) : raw) as T;
}

/**
 * Stores a recomputed list for every isolate (fresh and last copies) and releases the lock; what
 * was deleted since the candidates were read is left out of the stored and the returned list.
 */
async function storeRecomputed(services: Services, window: TrendingWindow, token: string, items: TrendingItem[]): Promise<TrendingItem[]> {
  const pairs = items.flatMap((i) => [i.post.id, JSON.stringify(i)]);
  const dropped = await runScript<unknown[]>(
    services.redis,
    STORE_TRENDING,
    [counterKeys.trendingResult(window), counterKeys.trendingLast(window), counterKeys.trendingLock(window), counterKeys.trendingGone()],
    [token, String(FRESH_MS), String(LAST_COPY_SECONDS), ...pairs],
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

/** Hydrates a recomputed top list: cached posts and counters, misses from Postgres; deleted or unknown posts dropped. */
async function computeItems(services: Services, answer: { ids?: string[]; scores?: string[]; posts?: (string | false)[]; counts?: unknown[] }) {
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
  if (countMisses.length > 0) for (const [id, row] of await completeFromSnapshot(services, "post", countMisses, "warm")) counts.set(id, row);
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
