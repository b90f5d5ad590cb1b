import type { CronTask } from "../scheduled";
import { flushOnce } from "./flush";
import { reconcileCounters } from "./reconcile";

/** Every minute: cut pending deltas and apply unapplied batches, bounded per run. */
export const flushCountersTask: CronTask = { name: "counters.flush", run: (services) => flushOnce(services) };

/** Daily: recompute relation-derived counters and repair drift (bounded; the report says where it stopped). */
export const reconcileCountersTask: CronTask = { name: "counters.reconcile", run: (services) => reconcileCounters(services) };
