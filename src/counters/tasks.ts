import { settleEach } from "../lib/redis-topology";
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
 * sets their TTL (the increment path only ZINCRBYs, to stay at +1 billed command) — on every
 * database, since each keeps the buckets of its own posts.
 */
export const trimTrendingTask: CronTask = {
  name: "counters.trending-trim",
  async run(services) {
    const hour = hourOf(Date.now());
    const keys = [counterKeys.trendingBucket(hour), counterKeys.trendingBucket(hour - 1)];
    const all = Array.from({ length: services.databases }, (_, i) => [i, i] as [number, number]);
    const settled = await settleEach(all, (index) =>
      services.redisAt(index).createScript(TRIM_TRENDING).exec(keys, [String(TRENDING_BUCKET_TOP), String(TRENDING_BUCKET_TTL_SECONDS)]),
    );
    const failed = [...settled.values()].find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    return { buckets: keys.length * all.length };
  },
};
