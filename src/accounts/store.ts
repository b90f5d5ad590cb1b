import { type Database, queryRows } from "../lib/db";
import type { DeletionStatus } from "./schema";

/** The SQL of account deletions (`account_deletions`); each function is one statement. */

export type CapabilityProgress = { removed: number; done: boolean };

export type DeletionRow = {
  id: string;
  userId: string;
  status: DeletionStatus;
  askedAt: string;
  finishedAt: string | null;
  progress: Record<string, CapabilityProgress>;
  eraser: number;
  cursor: string | null;
  step: number;
  steppedAt: string;
};

type Raw = {
  id: string;
  user_id: string;
  status: DeletionStatus;
  asked_at: string | Date;
  finished_at: string | Date | null;
  progress: Record<string, CapabilityProgress> | string;
  eraser: number;
  cursor: string | null;
  step: number;
  stepped_at: string | Date;
};

const COLUMNS = "id::text AS id, user_id::text AS user_id, status, asked_at, finished_at, progress, eraser, cursor, step, stepped_at";
const iso = (v: string | Date) => new Date(v).toISOString();

function toRow(r: Raw): DeletionRow {
  return {
    id: r.id,
    userId: r.user_id,
    status: r.status,
    askedAt: iso(r.asked_at),
    finishedAt: r.finished_at === null ? null : iso(r.finished_at),
    progress: typeof r.progress === "string" ? JSON.parse(r.progress) : r.progress,
    eraser: r.eraser,
    cursor: r.cursor,
    step: r.step,
    steppedAt: iso(r.stepped_at),
  };
}

/**
 * The user's running deletion, started now if there is none (`created`). The partial unique index
 * on running deletions makes two concurrent requests one deletion: the insert that loses the race
 * inserts nothing, and the select after it reads the winner's row.
 */
export async function startDeletion(db: Database, userId: string, capabilities: readonly string[]): Promise<{ row: DeletionRow; created: boolean }> {
  const progress = Object.fromEntries(capabilities.map((name) => [name, { removed: 0, done: false }]));
  const [inserted] = await queryRows<Raw>(
    db,
    `INSERT INTO account_deletions (user_id, progress) VALUES ($1, $2::jsonb)
     ON CONFLICT (user_id) WHERE status = 'running' DO NOTHING RETURNING ${COLUMNS}`,
    [userId, JSON.stringify(progress)],
  );
  if (inserted) return { row: toRow(inserted), created: true };
  const [running] = await queryRows<Raw>(db, `SELECT ${COLUMNS} FROM account_deletions WHERE user_id = $1 AND status = 'running'`, [userId]);
  if (running) return { row: toRow(running), created: false };
  // Finished between the two statements: a new request starts a new deletion.
  return startDeletion(db, userId, capabilities);
}

/**
 * The console's list: every running deletion (newest first), then the most recent finished ones,
 * `limit` in all. Two index walks (the partial index on running deletions, the primary key).
 */
export async function recentDeletions(db: Database, limit: number): Promise<DeletionRow[]> {
  const rows = await queryRows<Raw>(
    db,
    `(SELECT ${COLUMNS} FROM account_deletions WHERE status = 'running' ORDER BY account_deletions.id DESC LIMIT $1)
     UNION ALL
     (SELECT ${COLUMNS} FROM account_deletions WHERE status = 'finished' ORDER BY account_deletions.id DESC LIMIT $1)`,
    [limit],
  );
  return rows.map(toRow).sort((a, b) => (a.status === b.status ? Number(BigInt(b.id) - BigInt(a.id)) : a.status === "running" ? -1 : 1)).slice(0, limit);
}

export async function loadDeletion(db: Database, id: string): Promise<DeletionRow | undefined> {
  const [row] = await queryRows<Raw>(db, `SELECT ${COLUMNS} FROM account_deletions WHERE id = $1`, [id]);
  return row && toRow(row);
}

/**
 * Records step `step` of a deletion: the capability's removed count grows by `removed`, the next
 * step starts at (`eraser`, `cursor`), and with `finished` the deletion ends. Guarded on the step
 * number, so a step delivered twice is recorded once: false when another delivery recorded it.
 */
export async function recordStep(
  db: Database,
  id: string,
  step: number,
  update: { capability: string; removed: number; done: boolean; eraser: number; cursor: string | null; finished: boolean },
): Promise<boolean> {
  const rows = await queryRows(
    db,
    `UPDATE account_deletions SET
       progress = jsonb_set(progress, ARRAY[$3::text], jsonb_build_object(
         'removed', COALESCE((progress -> $3::text ->> 'removed')::bigint, 0) + $4::bigint, 'done', $5::boolean)),
       eraser = $6, cursor = $7, step = step + 1, stepped_at = now(),
       status = CASE WHEN $8::boolean THEN 'finished' ELSE status END,
       finished_at = CASE WHEN $8::boolean THEN now() ELSE finished_at END
     WHERE id = $1 AND step = $2 AND status = 'running' RETURNING 1`,
    [id, step, update.capability, update.removed, update.done, update.eraser, update.cursor, update.finished],
  );
  return rows.length > 0;
}
