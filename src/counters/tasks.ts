import type { CronTask } from "../scheduled";
import { flushOnce } from "./flush";
import { counterKeys } from "./keys";
import { continueReconcilePass, startReconcilePass } from "./reconcile";
import { hourOf, TRENDING_BUCKET_TOP, TRENDING_BUCKET_TTL_SECONDS } from "./trending";
import { TRIM_TRENDING } from "./trending.lua";

/** Every minute: cut pending deltas and apply unapplied batches, bounded per run. */
export const flushCountersTask: CronTask = { name: "counters.flush", run: (services) => flushOnce(services) };

/** Daily: start a pass that recomputes relation-derived counters and repairs drift. */
export const reconcileCountersTask: CronTask = { name: "counters.reconcile", run: (services) => startReconcilePass(services) };

/** Every minute: the next bounded slice of a running reconcile pass (nothing when none runs). */
export const reconcileSliceTask: CronTask = { name: "counters.reconcile-slice", run: (services) => continueReconcilePass(services) };

/**
 * Every minute: trims this hour's and the previous hour's trending buckets to their top posts and
 * sets their TTL (the increment path only ZINCRBYs, to stay at +1 billed command).
 */
export const trimTrendingTask: CronTask = {
  name: "counters.trending-trim",
  async run(services) {
    const hour = hourOf(Date.now());
    const keys = [counterKeys.trendingBucket(hour), counterKeys.trendingBucket(hour - 1)];
    await services.redis.createScript(TRIM_TRENDING).exec(keys, [String(TRENDING_BUCKET_TOP), String(TRENDING_BUCKET_TTL_SECONDS)]);
    return { buckets: keys.length };
  },
};
