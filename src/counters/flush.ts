import { groupByDatabase, settleEach, settleEveryDatabase, UNAVAILABLE_DATABASE } from "../lib/redis-topology";
import type { Services } from "../lib/services";
import { CUT_PENDING } from "./cut.lua";
import { counterKeys } from "./keys";
import { type CounterDelta, type CounterEntity, isCounterEntity } from "./registry";
import { applyBatch, clearStaleMarks, KEEP_APPLIED_BATCHES, readStaleMarks, readWatermark, type StaleMark } from "./store";

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
  /** `database` is left out for database 0 (the only one at N = 1). */
  applied: { batch: number; deltas: number; database?: number }[];
  skipped: number[];
  remaining: number;
  /** Postgres statements the run issued (one per batch, plus the watermark and stale-mark reads it needed). */
  statements: number;
  stoppedAfter?: FlushStep;
};

const DEFAULT_MAX_BATCHES = 20;
const DEFAULT_BUDGET_MS = 20_000;

/**
 * One flush run: every Redis database is flushed on its own (its own pending hash, batch numbers
 * and cut; Postgres records each applied `(database, batch)` pair), up to 6 at a time, then the
 * stale-cache marks are handled. At N = 1 this is exactly the one database's flush. A database
 * (or Postgres) failing does not stop the others'; the run then throws the first failure after
 * the others finished, and the next run retries.
 */
export async function flushOnce(services: Pick<Services, "redisAt" | "databases" | "db">, options: FlushOptions = {}): Promise<FlushReport> {
  const n = services.databases;
  const settled = await settleEveryDatabase(n, (index) => flushDatabase(services, index, options));
  const reports: (FlushReport & { stale?: StaleMark[] })[] = [];
  let failure: unknown;
  for (const outcome of settled.values()) {
    if (outcome.status === "fulfilled") reports.push(outcome.value);
    else failure ??= outcome.reason;
  }
  const report: FlushReport = {
    invalidated: 0,
    cut: n === 1 ? (reports[0]?.cut ?? null) : reports.find((r) => r.cut !== null)?.cut ?? null,
    applied: reports.flatMap((r) => r.applied),
    skipped: reports.flatMap((r) => r.skipped),
    remaining: reports.reduce((sum, r) => sum + r.remaining, 0),
    statements: reports.reduce((sum, r) => sum + r.statements, 0),
    stoppedAfter: reports.find((r) => r.stoppedAfter)?.stoppedAfter,
  };
  if (failure !== undefined) throw failure;
  if (report.stoppedAfter && report.stoppedAfter !== "invalidate") return report;

  const applied = reports.find((r) => r.stale)?.stale;
  if (!applied) report.statements += 1;
  const stale = applied ?? (await readStaleMarks(services.db));
  if (stale.length > 0) {
    // Each entity's cache entry is on its own database; a mark is forgotten only once its DEL ran.
    const byDatabase = groupByDatabase(stale, (m) => m.id, n);
    // A slot being moved by a reshard has no database for now: its marks wait (the reshard deletes them where they land).
    byDatabase.delete(UNAVAILABLE_DATABASE);
    const dels = await settleEach(byDatabase, (index, marks) => services.redisAt(index).del(...marks.map((m) => counterKeys.cache(m.entity, m.id))));
    const done = [...byDatabase].flatMap(([index, marks]) => (dels.get(index)!.status === "fulfilled" ? marks : []));
    await clearStaleMarks(services.db, done);
    report.statements += 1;
    report.invalidated = done.length;
    const failed = [...dels.values()].find((d) => d.status === "rejected");
    if (failed) throw failed.reason;
  }
  return options.stopAfter === "invalidate" ? { ...report, stoppedAfter: "invalidate" } : report;
}

/**
 * The flush of one database:
 *  1. cut its pending into batch n (atomic in Redis) and list its unapplied batches, oldest first;
 *  2. per batch, in order: read it, apply it to Postgres exactly once as (database, n) (ONE
 *     statement, which also returns the stale-cache marks), drop it from Redis.
 * Dying anywhere is safe: an uncut pending hash is cut next time; a cut batch stays listed until
 * dropped; a committed-but-not-dropped batch is recognised by its number and only dropped. Batches
 * are applied in ascending order and a failure stops the run, so the database's watermark (its
 * max applied batch) never passes an unapplied batch — which the cache warm relies on. A run that
 * applies one batch costs one Postgres statement, whatever the number of increments merged into it.
 */
export async function flushDatabase(
  services: Pick<Services, "redisAt" | "db">,
  index: number,
  options: FlushOptions,
): Promise<FlushReport & { stale?: StaleMark[] }> {
  const { stopAfter, maxBatches = DEFAULT_MAX_BATCHES, budgetMs = DEFAULT_BUDGET_MS } = options;
  const started = Date.now();
  const redis = services.redisAt(index);
  const { db } = services;
  const report: FlushReport & { stale?: StaleMark[] } = { invalidated: 0, cut: null, applied: [], skipped: [], remaining: 0, statements: 0 };

  const cutScript = redis.createScript<[number, unknown[]]>(CUT_PENDING);
  const cutKeys = [counterKeys.pending(), counterKeys.batchSeq(), counterKeys.unappliedBatches()];
  const cutAt = String(Date.now());
  let [cut, unapplied] = await cutScript.exec(cutKeys, ["", counterKeys.batchPrefix(), String(maxBatches), cutAt]);
  if (cut === -1) {
    // Redis lost the batch sequence: continue it from Postgres' watermark of this database.
    report.statements += 1;
    [cut, unapplied] = await cutScript.exec(cutKeys, [String(await readWatermark(db, index)), counterKeys.batchPrefix(), String(maxBatches), cutAt]);
  }
  report.cut = cut > 0 ? cut : null;
  const batches = unapplied.map(Number);
  report.remaining = batches.length;
  if (stopAfter === "cut") return { ...report, stoppedAfter: stopAfter };

  for (const batch of batches) {
    if (Date.now() - started > budgetMs) break;
    const deltas = parseBatch(await redis.hgetall<Record<string, unknown>>(counterKeys.batch(batch)));
    const result = await applyBatch(db, batch, deltas, KEEP_APPLIED_BATCHES, index);
    report.statements += 1;
    report.stale ??= result.stale;
    if (result.applied) report.applied.push({ batch, deltas: deltas.length, ...(index > 0 ? { database: index } : {}) });
    else report.skipped.push(batch);
    if (stopAfter === "commit") return { ...report, stoppedAfter: stopAfter };
    // Unlist first, then delete: a warm that sees the number gone (with seq past it) re-reads Postgres.
    await redis.multi().zrem(counterKeys.unappliedBatches(), batch).del(counterKeys.batch(batch)).exec();
    report.remaining -= 1;
    if (stopAfter === "drop") return { ...report, stoppedAfter: stopAfter };
  }
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
export async function flushAll(services: Pick<Services, "redisAt" | "databases" | "db">): Promise<FlushReport[]> {
  const reports: (FlushReport & { stale?: StaleMark[] })[] = [];
  for (let i = 0; i < 100; i++) {
    const report = await flushOnce(services, { maxBatches: 100 });
    reports.push(report);
    if (report.remaining === 0) break;
  }
  return reports;
}
