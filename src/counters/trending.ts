import type { CounterDelta } from "./registry";

/**
 * "What is hot": posts ranked by the engagement their counters moved, in hourly buckets that the
 * increment script bumps in the same call (one ZINCRBY per post touched: +1 billed command).
 */

/** Weight of a unit of each post counter in a post's trending score; fields not listed do not count. */
export const TRENDING_WEIGHTS: Readonly<Record<string, number>> = { likes: 1, comments: 2, forwards: 3, views: 0.1 };
/** Posts a bucket keeps after each per-minute trim. */
export const TRENDING_BUCKET_TOP = 1000;
/** A bucket outlives the longest window by an hour. */
export const TRENDING_BUCKET_TTL_SECONDS = 8 * 24 * 3600;

export const TRENDING_WINDOWS = { "1h": 1, "24h": 24, "7d": 168 } as const;
export type TrendingWindow = keyof typeof TRENDING_WINDOWS;

/** The UTC hour a moment falls in (the bucket number). */
export const hourOf = (ms: number) => Math.floor(ms / 3_600_000);

/**
 * The buckets a window reads: the current hour and the `hours` before it, so a window always covers
 * at least its length (1h reads 60–120 minutes of movements, 24h 24–25 hours, 7d 168–169 hours).
 */
export function windowHours(window: TrendingWindow, now: number): number[] {
  const current = hourOf(now);
  return Array.from({ length: TRENDING_WINDOWS[window] + 1 }, (_, i) => current - i);
}

/** The weighted trending move of one entity's deltas (0 for anything but posts or for unweighted fields). */
export function trendingWeight(deltas: readonly Pick<CounterDelta, "entity" | "field" | "delta">[]): number {
  let w = 0;
  for (const d of deltas) if (d.entity === "post") w += (TRENDING_WEIGHTS[d.field] ?? 0) * d.delta;
  return Math.round(w * 1000) / 1000;
}
