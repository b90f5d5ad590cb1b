import type { CronTask } from "../scheduled";
import { flushOnce } from "./flush";
import { continueReconcilePass, startReconcilePass } from "./reconcile";

/** Every minute: cut pending deltas and apply unapplied batches, bounded per run. */
export const flushCountersTask: CronTask = { name: "counters.flush", run: (services) => flushOnce(services) };

/** Daily: start a pass that recomputes relation-derived counters and repairs drift. */
export const reconcileCountersTask: CronTask = { name: "counters.reconcile", run: (services) => startReconcilePass(services) };

/** Every minute: the next bounded slice of a running reconcile pass (nothing when none runs). */
export const reconcileSliceTask: CronTask = { name: "counters.reconcile-slice", run: (services) => continueReconcilePass(services) };
