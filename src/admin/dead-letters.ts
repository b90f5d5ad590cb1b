import type { Env } from "../env";
import { queryRows } from "../lib/db";
import { ApiError } from "../lib/errors";
import { decodeCursor, toPage } from "../lib/pagination";
import type { Services } from "../lib/services";
import { FEED_QUEUES, SEND_BATCH_LIMIT } from "../feed/messages";
import { NOTIFY_QUEUES } from "../notify/sends";

/**
 * Dead letters: queue messages that failed every retry, kept in Postgres (`dead_letters`, by
 * src/lib/ops/dead-letters.ts) until an operator sends them back to their queue or discards them.
 * Every message of the feed's queues is idempotent (a page delivered twice ends in the same
 * timelines), so a replay is always safe. A push's dead letter names the one device it failed for;
 * replayed, it is sent to that device again (with the unread total of the moment).
 */

/** The queues whose dead letters are kept, by the name operators see and filter on. */
export const DEAD_LETTER_SOURCES: (FeedQueueName | typeof NOTIFY_QUEUES.send)[] = [...Object.values(FEED_QUEUES), NOTIFY_QUEUES.send];
type FeedQueueName = (typeof FEED_QUEUES)[keyof typeof FEED_QUEUES];
export type DeadLetterQueue = (typeof DEAD_LETTER_SOURCES)[number];

/** The binding that sends to a queue. */
function producer(env: Pick<Env, "FEED_QUEUE" | "FEED_SYNC_QUEUE" | "NOTIFY_QUEUE">, queue: DeadLetterQueue): Queue<unknown> {
  if (queue === NOTIFY_QUEUES.send) return env.NOTIFY_QUEUE as Queue<unknown>;
  return (queue === FEED_QUEUES.fanout ? env.FEED_QUEUE : env.FEED_SYNC_QUEUE) as Queue<unknown>;
}

/** Dead letters one replay sends at most (the answer says when more wait). */
export const MAX_REPLAY = 100;
/** A replay that died after claiming rows releases them after this; another replay may take them then. */
const CLAIM_SECONDS = 60;

export type DeadLetter = { id: string; queue: string; body: unknown; diedAt: string; lastError: string | null };

type Row = { id: string; queue: string; body: unknown; died_at: string; last_error: string | null };
const toDeadLetter = (r: Row): DeadLetter => ({ id: r.id, queue: r.queue, body: r.body, diedAt: new Date(r.died_at).toISOString(), lastError: r.last_error });
const COLUMNS = `id::text AS id, queue, body, died_at, last_error`;

/** Dead letters newest first (keyset on id), optionally of one queue. One statement. */
export async function listDeadLetters(db: Services["db"], options: { queue?: DeadLetterQueue; limit: number; cursor?: string }) {
  const before = options.cursor ? decodeCursor(options.cursor, 1)[0]! : null;
  if (before !== null && !/^[1-9][0-9]{0,18}$/.test(before)) {
    throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  }
  const rows = await queryRows<Row>(
    db,
    `SELECT ${COLUMNS} FROM dead_letters
     WHERE ($1::text IS NULL OR queue = $1) AND ($2::bigint IS NULL OR id < $2::bigint)
     ORDER BY id DESC LIMIT $3`,
    [options.queue ?? null, before, options.limit + 1],
  );
  return toPage(rows, options.limit, toDeadLetter, (r) => [r.id]);
}

export type ReplayResult = { replayed: number; ids: string[]; more: boolean };

/**
 * Sends dead letters back to their queues: the given ids, or the oldest MAX_REPLAY of a queue. The
 * rows are claimed first (a replay running at the same time skips them), sent, and deleted only
 * once every send succeeded; a failed send releases them and answers 503, so nothing is lost.
 * Three statements, whatever the number.
 */
export async function replayDeadLetters(services: Pick<Services, "db" | "env">, target: { ids: string[] } | { queue: DeadLetterQueue }): Promise<ReplayResult> {
  const { db } = services;
  const claimed = await queryRows<Row & { more: boolean }>(
    db,
    `WITH picked AS (
       SELECT id FROM dead_letters
       WHERE (CASE WHEN $1::bigint[] IS NULL THEN queue = $2 ELSE id = ANY($1::bigint[]) END)
         AND (replaying_at IS NULL OR replaying_at < now() - make_interval(secs => $4))
       ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED
     )
     UPDATE dead_letters d SET replaying_at = now() FROM picked WHERE d.id = picked.id
     RETURNING d.id::text AS id, d.queue, d.body, d.died_at, d.last_error`,
    ["ids" in target ? target.ids : null, "queue" in target ? target.queue : null, MAX_REPLAY, CLAIM_SECONDS],
  );
  claimed.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  const byQueue = new Map<DeadLetterQueue, Row[]>();
  for (const row of claimed) {
    const queue = DEAD_LETTER_SOURCES.find((q) => q === row.queue);
    if (!queue) continue; // a queue this Worker no longer has: left claimed, listed, discardable
    byQueue.set(queue, [...(byQueue.get(queue) ?? []), row]);
  }
  const sent: string[] = [];
  try {
    for (const [queue, rows] of byQueue) {
      for (let i = 0; i < rows.length; i += SEND_BATCH_LIMIT) {
        const chunk = rows.slice(i, i + SEND_BATCH_LIMIT);
        await producer(services.env, queue).sendBatch(chunk.map((r) => ({ body: r.body })));
        sent.push(...chunk.map((r) => r.id));
      }
    }
  } catch (err) {
    // What was sent is removed; the rest is released for the next replay.
    await settle(db, sent, claimed.map((r) => r.id).filter((id) => !sent.includes(id)));
    throw new ApiError("unavailable", `Replay stopped after ${sent.length} of ${claimed.length} dead letters: ${err instanceof Error ? err.message : String(err)}`);
  }
  await settle(db, sent, claimed.map((r) => r.id).filter((id) => !sent.includes(id)));
  const more =
    "queue" in target
      ? (await queryRows<{ more: boolean }>(db, `SELECT EXISTS (SELECT 1 FROM dead_letters WHERE queue = $1 AND replaying_at IS NULL) AS more`, [target.queue]))[0]?.more ?? false
      : false;
  return { replayed: sent.length, ids: sent, more };
}

/** Deletes the sent rows and releases the others, in one statement. */
async function settle(db: Services["db"], sent: string[], release: string[]) {
  if (sent.length === 0 && release.length === 0) return;
  await queryRows(
    db,
    `WITH gone AS (DELETE FROM dead_letters WHERE id = ANY($1::bigint[]))
     UPDATE dead_letters SET replaying_at = NULL WHERE id = ANY($2::bigint[])`,
    [sent, release],
  );
}

/** Discards one dead letter; 404 when there is none with this id. */
export async function discardDeadLetter(db: Services["db"], id: string): Promise<{ id: string; discarded: true }> {
  const rows = await queryRows<{ id: string }>(db, `DELETE FROM dead_letters WHERE id = $1::bigint RETURNING id::text AS id`, [id]);
  if (rows.length === 0) throw new ApiError("not_found", `No dead letter ${id}`);
  return { id, discarded: true };
}
