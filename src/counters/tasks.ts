import { RUN_FIELDS } from "../lib/ops/keys";
import { settleEveryDatabase } from "../lib/redis-topology";
import type { CronTask } from "../scheduled";
import { flushOnce, type FlushReport } from "./flush";
import { counterKeys } from "./keys";
import { continueReconcilePass, type PassSlice, startReconcilePass } from "./reconcile";
import { hourOf, TRENDING_BUCKET_TOP, TRENDING_BUCKET_TTL_SECONDS } from "./trending";
import { TRIM_TRENDING } from "./trending.lua";

/**
 * Every minute: cut pending deltas and apply unapplied batches, bounded per run. Its run is kept
 * for the status (`counters:flush`): when, how long, deltas, statements, outcome.
 */
export const flushCountersTask: CronTask = {
  name: "counters.flush",
  run: (services) => flushOnce(services),
  record: (o) => {
    const base = { at: o.at, durationMs: o.durationMs };
    if (!o.ok) return { [RUN_FIELDS.flush]: { ...base, outcome: "error", error: o.error.slice(0, 500) } };
    const report = o.result as FlushReport;
    return {
      [RUN_FIELDS.flush]: {
        ...base,
        outcome: "ok",
        cut: report.cut,
        batches: report.applied.length,
        deltas: report.applied.reduce((sum, b) => sum + b.deltas, 0),
        statements: report.statements,
        remaining: report.remaining,
      },
    };
  },
};

/** The last pass's totals, kept for the status (`counters:reconcile`) when a slice finishes it. */
function recordPass(o: Parameters<NonNullable<CronTask["record"]>>[0]) {
  if (!o.ok) return {};
  const slice = o.result as PassSlice;
  if (slice.pass !== "done") return {};
  return { [RUN_FIELDS.reconcile]: { startedAt: slice.startedAt, finishedAt: new Date(Date.parse(o.at) + o.durationMs).toISOString(), corrected: slice.corrected } };
}

/** Daily: start a pass that recomputes relation-derived counters and repairs drift. */
export const reconcileCountersTask: CronTask = { name: "counters.reconcile", run: (services) => startReconcilePass(services), record: recordPass };

/** Every minute: the next bounded slice of a running reconcile pass (nothing when none runs). */
export const reconcileSliceTask: CronTask = { name: "counters.reconcile-slice", run: (services) => continueReconcilePass(services), record: recordPass };

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
    const settled = await settleEveryDatabase(services.databases, (index) =>
      services.redisAt(index).createScript(TRIM_TRENDING).exec(keys, [String(TRENDING_BUCKET_TOP), String(TRENDING_BUCKET_TTL_SECONDS)]),
    );
    const failed = [...settled.values()].find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    return { buckets: keys.length * settled.size };
  },
};
