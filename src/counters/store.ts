import { type Database, queryRows as query } from "../lib/db";
import type { CounterDelta, CounterEntity } from "./registry";

/**
 * The Postgres statements of the counters, as raw SQL over arrays: each is ONE statement whatever
 * the number of counters it touches (drizzle's `sql` would expand a JS array into a parameter list).
 */

/** Merged per (entity, id, field), since one upsert statement may not touch a row twice. */
export function mergeDeltas(deltas: readonly CounterDelta[]): CounterDelta[] {
  const merged = new Map<string, CounterDelta>();
  for (const d of deltas) {
    const key = `${d.entity}:${d.id}:${d.field}`;
    const prev = merged.get(key);
    merged.set(key, prev ? { ...prev, delta: prev.delta + d.delta } : { ...d });
  }
  return [...merged.values()];
}

function columns(deltas: readonly CounterDelta[]) {
  return [deltas.map((d) => d.entity), deltas.map((d) => d.id), deltas.map((d) => d.field), deltas.map((d) => String(d.delta))];
}

const UPSERT_FROM_ARRAYS = `
  INSERT INTO counters (entity, entity_id, field, value)
  SELECT e, i, f, d FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[]) AS t(e, i, f, d)`;
const ADD_ON_CONFLICT = `ON CONFLICT (entity, entity_id, field) DO UPDATE SET value = counters.value + excluded.value`;

/**
 * Applied batch numbers kept in `counter_flush_batches` (~69 days at one batch a minute). Older
 * rows are pruned by the statement that applies a batch. Only recent numbers can come back — a
 * batch committed but not yet dropped from Redis is retried by the very next flush, and batches
 * are applied in order — so the guard never needs an old one; the newest row (the watermark)
 * is always kept.
 */
export const KEEP_APPLIED_BATCHES = 100_000;

/**
 * Applies batch `batch` of Redis database `database` exactly once, in one statement (so one implicit transaction): the batch
 * number is inserted into `counter_flush_batches`, and the deltas are upserted only if that insert
 * happened. A second attempt — after a crash between commit and cleanup, or a concurrent flush,
 * which blocks on the primary key until the first commits — inserts nothing and applies nothing.
 */
export async function applyBatch(
  db: Database,
  batch: number,
  deltas: readonly CounterDelta[],
  keepApplied = KEEP_APPLIED_BATCHES,
  database = 0,
): Promise<{ applied: boolean; stale: StaleMark[] }> {
  const [row] = await query<{ inserted: string; stale: StaleMark[] }>(
    db,
    `WITH b AS (
       INSERT INTO counter_flush_batches (database, batch, deltas) VALUES ($8, $5, $6) ON CONFLICT (database, batch) DO NOTHING RETURNING batch
     ), pruned AS (
       DELETE FROM counter_flush_batches WHERE database = $8 AND batch <= $5::bigint - $7::bigint
     ), u AS (
       ${UPSERT_FROM_ARRAYS} WHERE EXISTS (SELECT 1 FROM b)
       ${ADD_ON_CONFLICT}
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM b) AS inserted, (SELECT count(*) FROM u) AS upserted, ${STALE_MARKS} AS stale`,
    [...columns(deltas), batch, deltas.length, keepApplied, database],
  );
  return { applied: Number(row?.inserted ?? 0) === 1, stale: row?.stale ?? [] };
}

/**
 * Redis unreachable: applies increments straight to Postgres and marks their entities so the next
 * flush deletes their (now stale) cache entries — one statement, so the marks commit with the values.
 */
export async function applyDirect(db: Database, deltas: readonly CounterDelta[]): Promise<void> {
  const merged = mergeDeltas(deltas);
  await query(
    db,
    `WITH u AS (
       ${UPSERT_FROM_ARRAYS}
       ${ADD_ON_CONFLICT}
       RETURNING entity, entity_id
     )
     INSERT INTO counter_stale_cache (entity, entity_id)
     SELECT DISTINCT entity, entity_id FROM u
     ON CONFLICT (entity, entity_id) DO UPDATE SET created_at = now()`,
    columns(merged),
  );
}

/**
 * Postgres values of some entities AND the flush watermark W of each Redis database named (each
 * an index lookup), in one statement (one snapshot): the two must agree for a cache warm to add
 * exactly the batches Postgres does not hold yet. `watermark` is database 0's.
 */
export async function readSnapshot(
  db: Database,
  entity: CounterEntity,
  ids: readonly string[],
  databases: readonly number[] = [0],
): Promise<{ watermark: number; watermarks: Map<number, number>; values: Map<string, Map<string, number>> }> {
  const rows = await query<{ w: Record<string, string | number>; id: string | null; field: string | null; value: string | null }>(
    db,
    `SELECT w.w AS w, c.entity_id::text AS id, c.field, c.value::text AS value
       FROM (SELECT json_object_agg(d, (SELECT coalesce(max(batch), 0) FROM counter_flush_batches WHERE database = d)::text) AS w
               FROM unnest($3::int[]) AS d) AS w
       LEFT JOIN counters AS c ON c.entity = $1 AND c.entity_id = ANY($2::bigint[])`,
    [entity, ids, databases.length > 0 ? databases : [0]],
  );
  const values = new Map<string, Map<string, number>>();
  for (const row of rows) {
    if (row.id === null || row.field === null) continue;
    let fields = values.get(row.id);
    if (!fields) values.set(row.id, (fields = new Map()));
    fields.set(row.field, Number(row.value));
  }
  const watermarks = new Map(Object.entries(rows[0]?.w ?? {}).map(([d, w]) => [Number(d), Number(w)]));
  return { watermark: watermarks.get(0) ?? 0, watermarks, values };
}

/** An entity whose cache entry must be deleted (see `counter_stale_cache`). */
export type StaleMark = { entity: CounterEntity; id: string; markedAt: string };

/** Stale-cache marks handled per flush run (each is one DEL argument). */
export const STALE_MARKS_PER_RUN = 1_000;

/** Up to STALE_MARKS_PER_RUN stale marks as a JSON array: a sub-select the flush piggybacks on its statements. */
const STALE_MARKS = `(SELECT coalesce(json_agg(json_build_object('entity', entity, 'id', entity_id::text, 'markedAt', created_at::text)), '[]'::json)
   FROM (SELECT entity, entity_id, created_at FROM counter_stale_cache ORDER BY created_at LIMIT ${STALE_MARKS_PER_RUN}) AS s)`;

/** Stale marks alone (a flush with no batch to apply). */
export async function readStaleMarks(db: Database): Promise<StaleMark[]> {
  const [row] = await query<{ stale: StaleMark[] }>(db, `SELECT ${STALE_MARKS} AS stale`, []);
  return row?.stale ?? [];
}

/** The flush watermark of one Redis database: the highest of its batch numbers applied. */
export async function readWatermark(db: Database, database = 0): Promise<number> {
  const [row] = await query<{ w: string }>(db, "SELECT coalesce(max(batch), 0)::text AS w FROM counter_flush_batches WHERE database = $1", [database]);
  return Number(row?.w ?? 0);
}

/** Forgets stale-cache marks whose cache entries were deleted; a mark renewed since then survives. */
export async function clearStaleMarks(db: Database, marks: readonly { entity: string; id: string; markedAt: string }[]): Promise<void> {
  if (marks.length === 0) return;
  await query(
    db,
    `DELETE FROM counter_stale_cache AS s
      USING unnest($1::text[], $2::bigint[], $3::timestamptz[]) AS m(e, i, at)
      WHERE s.entity = m.e AND s.entity_id = m.i AND s.created_at = m.at`,
    [marks.map((m) => m.entity), marks.map((m) => m.id), marks.map((m) => m.markedAt)],
  );
}

export { query as queryRows };

/**
 * One page of the likes (or favourites) `userId` gave, in post-id order after `after` (an account's
 * export reads them through this: the reaction tables stay the counters' own).
 */
export async function reactionsGivenPage(db: Database, kind: "like" | "favorite", userId: string, after: string, limit: number) {
  const table = kind === "like" ? "post_likes" : "post_favorites";
  return query<{ post_id: string; created_at: string | Date }>(
    db,
    `SELECT post_id::text AS post_id, created_at FROM ${table} WHERE user_id = $1 AND post_id > $2::bigint ORDER BY ${table}.post_id LIMIT $3`,
    [userId, after, limit],
  );
}
