import type { Database } from "../db";
import { queryRows } from "../db";

/**
 * Keeping dead letters: queue messages that failed every retry, written to Postgres
 * (`dead_letters`, ./schema.ts) by the queue consumers that own them, for the operations console
 * to list, replay or discard (src/admin/dead-letters.ts).
 */

/** Characters of an error kept per dead letter. */
const MAX_ERROR_CHARS = 2000;

/**
 * What one queue keeps at most: past either bound its oldest dead letters go first. A source
 * that fails steadily (a push service refusing, a bug in one message kind) keeps the newest
 * failures to read and replay, never an ever-growing table.
 */
export const MAX_DEAD_LETTERS_PER_QUEUE = 10_000;
/** Bytes of bodies and errors (as Postgres stores them) one queue keeps at most. */
export const MAX_DEAD_LETTER_BYTES_PER_QUEUE = 32 * 1024 * 1024;

export type DeadLetterCaps = { count: number; bytes: number };
const DEFAULT_CAPS: DeadLetterCaps = { count: MAX_DEAD_LETTERS_PER_QUEUE, bytes: MAX_DEAD_LETTER_BYTES_PER_QUEUE };

/** A message to keep: the queue it came from (and is replayed to), its body, its last error. */
export type NewDeadLetter = { queue: string; body: unknown; lastError: string | null };

/**
 * Keeps a batch of dead letters and trims each queue it wrote to within `caps` (count and bytes,
 * the newest kept): ONE statement whatever their number. The trim ranks the queue's rows newest
 * first with the new ones counted in (a statement's parts share one snapshot, so the new rows are
 * ranked from what the INSERT returned); it deletes only older rows, so a new row always stays.
 */
export async function recordDeadLetters(db: Database, letters: readonly NewDeadLetter[], caps: DeadLetterCaps = DEFAULT_CAPS): Promise<string[]> {
  if (letters.length === 0) return [];
  const rows = await queryRows<{ id: string }>(
    db,
    `WITH added AS (
       INSERT INTO dead_letters (queue, body, last_error)
       SELECT q, b, e FROM unnest($1::text[], $2::jsonb[], $3::text[]) AS t(q, b, e)
       RETURNING id, queue, pg_column_size(body) + coalesce(octet_length(last_error), 0) AS size
     ),
     ranked AS (
       SELECT id, queue, row_number() OVER newest AS n, sum(size) OVER newest AS bytes
       FROM (
         SELECT id, queue, pg_column_size(body) + coalesce(octet_length(last_error), 0) AS size
         FROM dead_letters WHERE queue IN (SELECT DISTINCT queue FROM added)
         UNION ALL SELECT id, queue, size FROM added
       ) AS all_rows
       WINDOW newest AS (PARTITION BY queue ORDER BY id DESC)
     ),
     trimmed AS (
       DELETE FROM dead_letters d USING ranked r
       WHERE d.id = r.id AND (r.n > $4 OR r.bytes > $5)
     )
     SELECT id::text AS id FROM added ORDER BY id`,
    [
      letters.map((l) => l.queue),
      letters.map((l) => JSON.stringify(l.body ?? null)),
      letters.map((l) => (l.lastError === null ? null : l.lastError.slice(0, MAX_ERROR_CHARS))),
      caps.count,
      caps.bytes,
    ],
  );
  return rows.map((r) => r.id);
}
