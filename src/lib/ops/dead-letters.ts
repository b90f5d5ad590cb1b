import type { Database } from "../db";
import { queryRows } from "../db";

/**
 * Keeping dead letters: queue messages that failed every retry, written to Postgres
 * (`dead_letters`, ./schema.ts) by the queue consumers that own them, for the operations console
 * to list, replay or discard (src/admin/dead-letters.ts).
 */

/** Characters of an error kept per dead letter. */
const MAX_ERROR_CHARS = 2000;

/** A message to keep: the queue it came from (and is replayed to), its body, its last error. */
export type NewDeadLetter = { queue: string; body: unknown; lastError: string | null };

/** Keeps a batch of dead letters: ONE statement whatever their number. */
export async function recordDeadLetters(db: Database, letters: readonly NewDeadLetter[]): Promise<string[]> {
  if (letters.length === 0) return [];
  const rows = await queryRows<{ id: string }>(
    db,
    `INSERT INTO dead_letters (queue, body, last_error)
     SELECT q, b, e FROM unnest($1::text[], $2::jsonb[], $3::text[]) AS t(q, b, e)
     RETURNING id::text AS id`,
    [
      letters.map((l) => l.queue),
      letters.map((l) => JSON.stringify(l.body ?? null)),
      letters.map((l) => (l.lastError === null ? null : l.lastError.slice(0, MAX_ERROR_CHARS))),
    ],
  );
  return rows.map((r) => r.id);
}
