import { completeFromSnapshot, decodeCachedCounters } from "../counters/counters";
import { counterKeys } from "../counters/keys";
import { fieldsOf } from "../counters/registry";
import { TRENDING_WINDOWS, type TrendingWindow, windowHours } from "../counters/trending";
import { isoTimestamp } from "../db/columns";
import { isRedisCommandError } from "../lib/errors";
import { commandFailure, isRedisOutage } from "../lib/redis-failures";
import type { Services } from "../lib/services";
import { feedKeys, TOMBSTONE } from "./keys";
import { readPosts } from "./store";
import { encodeCachedPost, type Post, type PostCounts, postCounts } from "./timeline";
import { READ_TRENDING } from "./trending.lua";

export type TrendingItem = { post: Post; counts: PostCounts; score: number };
export type TrendingPage = { window: TrendingWindow; items: TrendingItem[]; degraded: boolean };

/** Most items a trending list holds (and `limit` may ask for). */
export const MAX_TRENDING = 100;
/** Candidates read per recompute: room for deleted posts among the top. */
const CANDIDATES = 150;
/** A computed list is shared through Redis by every isolate for this long. */
const RESULT_TTL_SECONDS = 5;
/** Each isolate keeps the list this long without asking Redis. */
const ISOLATE_MS = 2_000;

const POST_FIELDS = fieldsOf("post");
/** Per isolate: the last list of each window and when it was read. */
const isolateCache = new Map<TrendingWindow, { at: number; items: TrendingItem[] }>();

/**
 * The posts with the most engagement in the window, from the hourly buckets the counters' increment
 * script bumps (never a Postgres scan). A million readers cost each isolate one Redis call per two
 * seconds and Redis one recompute per five. A deleted post is dropped when a list is computed; a
 * list already computed may show it for at most those seconds. Redis down: an empty list,
 * `degraded: true`.
 */
export async function readTrending(services: Services, window: TrendingWindow, limit: number, now = Date.now()): Promise<TrendingPage> {
  const hit = isolateCache.get(window);
  if (hit && now - hit.at < ISOLATE_MS) return { window, items: hit.items.slice(0, limit), degraded: false };
  let answer: { items?: TrendingItem[]; computed?: boolean; ids?: string[]; scores?: string[]; posts?: (string | false)[]; counts?: unknown[] };
  const hours = windowHours(window, now);
  try {
    const raw = await services.redis
      .createScript(READ_TRENDING)
      .exec(
        [counterKeys.trendingResult(window), counterKeys.trendingScratch(window), ...hours.map((h) => counterKeys.trendingBucket(h))],
        [String(CANDIDATES), feedKeys.postPrefix(), counterKeys.cache("post", ""), ...POST_FIELDS],
      );
    answer = (typeof raw === "string" ? JSON.parse(raw) : raw) as typeof answer;
  } catch (err) {
    if (isRedisCommandError(err)) throw commandFailure("Trending script", err);
    if (isRedisOutage(err)) return { window, items: [], degraded: true };
    throw err;
  }
  const items = answer.items ?? (await computeItems(services, answer));
  if (!answer.items) {
    await services.redis.set(counterKeys.trendingResult(window), JSON.stringify({ items }), { ex: RESULT_TTL_SECONDS }).catch(() => undefined);
  }
  isolateCache.set(window, { at: now, items });
  return { window, items: items.slice(0, limit), degraded: false };
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
