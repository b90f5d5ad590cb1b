import type { Services } from "../lib/services";
import { CUT_PENDING } from "./cut.lua";
import { counterKeys } from "./keys";
import { type CounterDelta, type CounterEntity, isCounterEntity } from "./registry";
import { applyBatch, clearStaleMarks, readStaleMarks, readWatermark, type StaleMark } from "./store";

/** Steps after which a test may stop a flush, as if the Worker died there. */
export type FlushStep = "invalidate" | "cut" | "commit" | "drop";

export type FlushOptions = {
  /** Stop (return) right after this step, leaving the rest to the next run. */
  stopAfter?: FlushStep;
  /** Batches applied per run at most; the rest wait for the next run. */
  maxBatches?: number;
  /** Wall-clock budget; no new batch starts after it (the cron has 30 s of CPU). */
  budgetMs?: number;
};

export type FlushReport = {
  invalidated: number;
  cut: number | null;
  applied: { batch: number; deltas: number }[];
  skipped: number[];
  remaining: number;
  /** Postgres statements the run issued (one per batch, plus the watermark and stale-mark reads it needed). */
  statements: number;
  stoppedAfter?: FlushStep;
};

const DEFAULT_MAX_BATCHES = 20;
const DEFAULT_BUDGET_MS = 20_000;

/**
 * One flush run:
 *  1. cut pending into batch n (atomic in Redis) and list unapplied batches, oldest first;
 *  2. per batch, in order: read it, apply it to Postgres exactly once (ONE statement, which also
 *     returns the stale-cache marks), drop it from Redis;
 *  3. delete the cache entries of stale marks (increments Postgres took while Redis was down), then the marks.
 * Dying anywhere is safe: an uncut pending hash is cut next time; a cut batch stays listed until
 * dropped; a committed-but-not-dropped batch is recognised by its number and only dropped. Batches
 * are applied in ascending order and a failure stops the run, so the watermark (max applied batch)
 * never passes an unapplied batch — which the cache warm relies on. A run that applies one batch
 * costs one Postgres statement, whatever the number of increments merged into it.
 */
export async function flushOnce(services: Pick<Services, "redis" | "db">, options: FlushOptions = {}): Promise<FlushReport> {
  const { stopAfter, maxBatches = DEFAULT_MAX_BATCHES, budgetMs = DEFAULT_BUDGET_MS } = options;
  const started = Date.now();
  const { redis, db } = services;
  const report: FlushReport = { invalidated: 0, cut: null, applied: [], skipped: [], remaining: 0, statements: 0 };

  const cutScript = redis.createScript<[number, unknown[]]>(CUT_PENDING);
  const cutKeys = [counterKeys.pending(), counterKeys.batchSeq(), counterKeys.unappliedBatches()];
  const cutAt = String(Date.now());
  let [cut, unapplied] = await cutScript.exec(cutKeys, ["", counterKeys.batchPrefix(), String(maxBatches), cutAt]);
  if (cut === -1) {
    // Redis lost the batch sequence: continue it from Postgres' watermark.
    report.statements += 1;
    [cut, unapplied] = await cutScript.exec(cutKeys, [String(await readWatermark(db)), counterKeys.batchPrefix(), String(maxBatches), cutAt]);
  }
  report.cut = cut > 0 ? cut : null;
  const batches = unapplied.map(Number);
  report.remaining = batches.length;
  if (stopAfter === "cut") return { ...report, stoppedAfter: stopAfter };

  let stale: StaleMark[] | undefined;
  for (const batch of batches) {
    if (Date.now() - started > budgetMs) break;
    const deltas = parseBatch(await redis.hgetall<Record<string, unknown>>(counterKeys.batch(batch)));
    const result = await applyBatch(db, batch, deltas);
    report.statements += 1;
    stale ??= result.stale;
    if (result.applied) report.applied.push({ batch, deltas: deltas.length });
    else report.skipped.push(batch);
    if (stopAfter === "commit") return { ...report, stoppedAfter: stopAfter };
    // Unlist first, then delete: a warm that sees the number gone (with seq past it) re-reads Postgres.
    await redis.multi().zrem(counterKeys.unappliedBatches(), batch).del(counterKeys.batch(batch)).exec();
    report.remaining -= 1;
    if (stopAfter === "drop") return { ...report, stoppedAfter: stopAfter };
  }

  if (!stale) report.statements += 1;
  stale ??= await readStaleMarks(db);
  if (stale.length > 0) {
    await redis.del(...stale.map((m) => counterKeys.cache(m.entity, m.id)));
    report.statements += 1;
    await clearStaleMarks(db, stale);
    report.invalidated = stale.length;
  }
  if (stopAfter === "invalidate") return { ...report, stoppedAfter: stopAfter };
  return report;
}

/** Batch hash fields are `entity:id:field`; zero sums (moves that cancelled out) are dropped. */
function parseBatch(hash: Record<string, unknown> | null): CounterDelta[] {
  const deltas: CounterDelta[] = [];
  for (const [name, raw] of Object.entries(hash ?? {})) {
    const [entity, id, field] = name.split(":");
    const delta = Number(raw);
    if (!entity || !id || !field || !isCounterEntity(entity) || !Number.isFinite(delta) || delta === 0) continue;
    deltas.push({ entity: entity as CounterEntity, id, field, delta });
  }
  return deltas;
}

/** Flushes until nothing is left (tests and the bench; the cron runs `flushOnce` with its bounds). */
export async function flushAll(services: Pick<Services, "redis" | "db">): Promise<FlushReport[]> {
  const reports: FlushReport[] = [];
  for (let i = 0; i < 100; i++) {
    const report = await flushOnce(services, { maxBatches: 100 });
    reports.push(report);
    if (report.remaining === 0) break;
  }
  return reports;
}
