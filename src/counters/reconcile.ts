import type { Services } from "../lib/services";
import { completeFromSnapshot, incrementCounters } from "./counters";
import { type CounterDelta, type CounterEntity, fieldsOf } from "./registry";
import { groupByDatabase } from "../lib/redis-topology";
import { counterKeys } from "./keys";
import { queryRows } from "./store";

/**
 * Counters that are pure functions of relation tables, and how to recompute them. Each source
 * lists the ids that may carry the counter (keyset-paged, DISTINCT over an index) and counts per id.
 */
const DERIVED: Partial<Record<CounterEntity, { fields: string[]; ids: string[]; counts: string[] }>> = {
  user: {
    fields: ["followers", "following", "posts"],
    ids: [
      "SELECT DISTINCT followee_id AS id FROM follows WHERE followee_id > $1 ORDER BY 1 LIMIT $2",
      "SELECT DISTINCT follower_id AS id FROM follows WHERE follower_id > $1 ORDER BY 1 LIMIT $2",
      "SELECT DISTINCT author_id AS id FROM posts WHERE deleted_at IS NULL AND author_id > $1 ORDER BY 1 LIMIT $2",
    ],
    counts: [
      "(SELECT count(*) FROM follows WHERE followee_id = ids.id)",
      "(SELECT count(*) FROM follows WHERE follower_id = ids.id)",
      "(SELECT count(*) FROM posts WHERE author_id = ids.id AND deleted_at IS NULL)",
    ],
  },
  post: {
    fields: ["likes", "favorites"],
    ids: [
      "SELECT DISTINCT post_id AS id FROM post_likes WHERE post_id > $1 ORDER BY 1 LIMIT $2",
      "SELECT DISTINCT post_id AS id FROM post_favorites WHERE post_id > $1 ORDER BY 1 LIMIT $2",
    ],
    counts: ["(SELECT count(*) FROM post_likes WHERE post_id = ids.id)", "(SELECT count(*) FROM post_favorites WHERE post_id = ids.id)"],
  },
};

export const RECONCILE_BATCH = 1_000;
const DEFAULT_BUDGET_MS = 20_000;
/** Time one per-minute slice of a pass may take: leaves the flush its share of the cron's 30 s. */
export const RECONCILE_SLICE_MS = 5_000;
const CURSOR_TTL_SECONDS = 2 * 24 * 60 * 60;
/** Drift entries listed in a report (the count covers all). */
const MAX_REPORTED_DRIFT = 100;

export type Drift = { entity: CounterEntity; id: string; field: string; counted: number; expected: number };
export type ReconcileReport = {
  scanned: number;
  drifted: number;
  drift: Drift[];
  /** Where to continue when the budget ran out; null when every entity was covered. */
  next: { entity: CounterEntity; after: string } | null;
};

/**
 * Recomputes relation-derived counters from Postgres in keyset batches of 1,000 ids (one statement
 * per batch: the ids and their counts), compares with the counter's true value (Postgres + unflushed
 * batches + pending, read consistently) and applies the DIFFERENCE as an ordinary increment — so it
 * flows through pending → flush exactly once and keeps cached values right.
 *
 * Live traffic: a follow committed between the count and the counter read is seen by one side only,
 * so that id is off by the race; the next reconcile sees it settled and corrects it. No drift lasts.
 * Counters of ids with no relation rows left (and no flushed counter row) are not revisited.
 */
export async function reconcileCounters(
  services: Pick<Services, "redis" | "redisAt" | "databases" | "db">,
  options: { start?: { entity: CounterEntity; after: string }; budgetMs?: number; batchSize?: number; maxBatches?: number; entities?: CounterEntity[] } = {},
): Promise<ReconcileReport> {
  const { budgetMs = DEFAULT_BUDGET_MS, batchSize = RECONCILE_BATCH, maxBatches = Infinity } = options;
  let batches = 0;
  const started = Date.now();
  const entities = (options.entities ?? (Object.keys(DERIVED) as CounterEntity[])).filter((e) => DERIVED[e]);
  const report: ReconcileReport = { scanned: 0, drifted: 0, drift: [], next: null };
  let index = options.start ? Math.max(0, entities.indexOf(options.start.entity)) : 0;
  let after = options.start?.after ?? "0";
  while (index < entities.length) {
    if (Date.now() - started > budgetMs || batches >= maxBatches) {
      report.next = { entity: entities[index]!, after };
      return report;
    }
    const entity = entities[index]!;
    const { ids, expected } = await countBatch(services, entity, { after, batchSize });
    if (ids.length === 0) {
      index += 1;
      after = "0";
      continue;
    }
    await repair(services, entity, ids, expected, report);
    batches += 1;
    after = ids[ids.length - 1]!;
  }
  return report;
}

/** Where the pass continues, when it started and how many counters it corrected so far. */
type PassCursor = { entity: CounterEntity; after: string; startedAt?: string; corrected?: number };
/** What a pass's slice reports: the slice, and the pass's totals so far. */
export type PassSlice = (ReconcileReport & { pass: "running" | "done"; startedAt: string | null; corrected: number }) | { pass: "idle" };
/** Bounds of one slice: time, and (for tests) batches of `batchSize` ids. */
type SliceOptions = { sliceMs?: number; batchSize?: number; maxBatches?: number };

/**
 * Starts a reconcile pass over every id (the daily trigger) and runs its first slice. A pass over
 * millions of users does not fit one cron run: it continues in per-minute slices from a cursor in
 * Redis until every id has been covered. Starting again restarts from the first id.
 */
export async function startReconcilePass(services: Pick<Services, "redis" | "redisAt" | "databases" | "db">, options: SliceOptions = {}) {
  const first = (Object.keys(DERIVED) as CounterEntity[])[0]!;
  const cursor: PassCursor = { entity: first, after: "0", startedAt: new Date().toISOString(), corrected: 0 };
  await services.redis.set(counterKeys.reconcileCursor(), JSON.stringify(cursor), { ex: CURSOR_TTL_SECONDS });
  return continueReconcilePass(services, options);
}

/** Runs the next slice of the running pass, if any, and moves its cursor (deleted when done). */
export async function continueReconcilePass(
  services: Pick<Services, "redis" | "redisAt" | "databases" | "db">,
  { sliceMs = RECONCILE_SLICE_MS, batchSize, maxBatches }: SliceOptions = {},
): Promise<PassSlice> {
  const cursor = await services.redis.get<PassCursor>(counterKeys.reconcileCursor());
  if (!cursor) return { pass: "idle" };
  const report = await reconcileCounters(services, { start: { entity: cursor.entity, after: cursor.after }, budgetMs: sliceMs, batchSize, maxBatches });
  const totals = { startedAt: cursor.startedAt ?? null, corrected: (cursor.corrected ?? 0) + report.drifted };
  if (report.next) {
    const next: PassCursor = { ...report.next, ...(totals.startedAt ? { startedAt: totals.startedAt } : {}), corrected: totals.corrected };
    await services.redis.set(counterKeys.reconcileCursor(), JSON.stringify(next), { ex: CURSOR_TTL_SECONDS });
    return { ...report, pass: "running", ...totals };
  }
  await services.redis.del(counterKeys.reconcileCursor());
  return { ...report, pass: "done", ...totals };
}

/** Reconciles the given ids only (an operator repairing known entities; tests). */
export async function reconcileIds(services: Pick<Services, "redis" | "redisAt" | "databases" | "db">, entity: CounterEntity, ids: readonly string[]): Promise<ReconcileReport> {
  const report: ReconcileReport = { scanned: 0, drifted: 0, drift: [], next: null };
  if (!DERIVED[entity] || ids.length === 0) return report;
  const counted = await countBatch(services, entity, { ids });
  await repair(services, entity, counted.ids, counted.expected, report);
  return report;
}

/**
 * Compares recomputed counts with the counters' true values and applies the differences as
 * increments. The drifted entities' cache entries are then deleted: a cache that disagreed with
 * Postgres (a hand edit) must not be shifted by the difference; the next read re-warms it from
 * Postgres + batches + pending, which now hold the repaired value.
 */
async function repair(
  services: Pick<Services, "redis" | "redisAt" | "databases" | "db">,
  entity: CounterEntity,
  ids: readonly string[],
  expected: number[][],
  report: ReconcileReport,
) {
  const derived = DERIVED[entity]!;
  const fields = fieldsOf(entity);
  const current = await completeFromSnapshot(services, entity, ids, "peek");
  const deltas: CounterDelta[] = [];
  const drifted = new Set<string>();
  ids.forEach((id, i) => {
    const values = current.get(id) ?? [];
    derived.fields.forEach((field, f) => {
      const counted = values[fields.indexOf(field)] ?? 0;
      const want = expected[i]![f]!;
      if (counted === want) return;
      deltas.push({ entity, id, field, delta: want - counted });
      drifted.add(id);
      report.drifted += 1;
      if (report.drift.length < MAX_REPORTED_DRIFT) report.drift.push({ entity, id, field, counted, expected: want });
    });
  });
  if (deltas.length > 0) {
    // A repair is not engagement: it does not move trending.
    await incrementCounters(services, deltas, undefined, { trending: false });
    for (const [index, list] of groupByDatabase([...drifted], (id) => id, services.databases)) {
      await services.redisAt(index).del(...list.map((id) => counterKeys.cache(entity, id)));
    }
  }
  report.scanned += ids.length;
}

/** The next ≤ batchSize ids above `after` that carry derived counters, with their true counts. One statement. */
async function countBatch(
  services: Pick<Services, "db">,
  entity: CounterEntity,
  scope: { after: string; batchSize: number } | { ids: readonly string[] },
) {
  const derived = DERIVED[entity]!;
  const sources = [
    ...derived.ids.map((q) => `(${q})`),
    `(SELECT DISTINCT entity_id AS id FROM counters WHERE entity = $3 AND field = ANY($4::text[]) AND entity_id > $1 ORDER BY 1 LIMIT $2)`,
  ];
  const idsQuery = "ids" in scope ? "SELECT DISTINCT unnest($1::bigint[]) AS id" : `SELECT id FROM (${sources.join(" UNION ")}) AS u ORDER BY id LIMIT $2`;
  const rows = await queryRows<{ id: string; counts: string[] }>(
    services.db,
    `WITH ids AS (${idsQuery})
     SELECT id::text AS id, ARRAY[${derived.counts.join(", ")}]::text[] AS counts FROM ids ORDER BY id`,
    "ids" in scope ? [scope.ids] : [scope.after, scope.batchSize, entity, derived.fields],
  );
  return { ids: rows.map((r) => r.id), expected: rows.map((r) => r.counts.map(Number)) };
}
