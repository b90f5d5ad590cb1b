import type { Services } from "../lib/services";
import { noteDeletingHere } from "./deleting";
import type { Eraser } from "../lib/erasers";
import { accountKeys } from "./keys";
import type { EraseMessage } from "./messages";
import { type DeletionRow, loadDeletion, recordStep, startDeletion } from "./store";

/**
 * How a deletion runs. The request that asks for it inserts the `account_deletions` row (or finds
 * the running one: a repeated request is the same deletion), adds the user to `acct:deleting` (from
 * then on their token is refused with 409 in every isolate within MAX_SNAPSHOT_AGE_MS) and enqueues
 * step 0 on `account-erase`, delayed past that bound. Each step runs one bounded step of the
 * current eraser, records it in the row (guarded on the step number) and enqueues the next; the
 * last one marks the row finished and removes the user from `acct:deleting`, after which the id
 * is a new, empty user.
 */

/** Past the deleting-users snapshot's bound (deleting.ts: 5 s), so no write is let in after the erasers start. */
export const ERASE_START_DELAY_SECONDS = 6;
/** A running deletion with no step recorded for this long is resumed by a repeated request (its message was lost). */
export const STALLED_AFTER_SECONDS = 5 * 60;

export type DeletionAnswer = { deletionId: string; status: "running" };

type StartServices = Pick<Services, "db" | "redis" | "env">;

async function enqueue(env: Services["env"], message: EraseMessage, delaySeconds = 0): Promise<void> {
  await env.ERASE_QUEUE.send(message, delaySeconds > 0 ? { delaySeconds } : undefined);
}

/** Starts (or finds) the user's deletion: `DELETE /v1/me` and `DELETE /v1/users/{id}`. */
export async function startAccountDeletion(services: StartServices, erasers: readonly Eraser[], userId: string): Promise<DeletionAnswer> {
  const { row, created } = await startDeletion(services.db, userId, erasers.map((e) => e.name));
  // Before the first step is enqueued: the refusals start before any eraser does.
  await services.redis.hset(accountKeys.deleting(), { [userId]: row.id });
  noteDeletingHere(userId, true);
  const stalled = Date.now() - Date.parse(row.steppedAt) > STALLED_AFTER_SECONDS * 1000;
  if (created || stalled) await enqueue(services.env, { kind: "erase-step", deletionId: row.id, step: row.step }, created ? ERASE_START_DELAY_SECONDS : 0);
  return { deletionId: row.id, status: "running" };
}

async function finished(services: Services, row: Pick<DeletionRow, "userId" | "id">): Promise<void> {
  // Only this deletion's field: a later deletion of the same id (a new account) keeps its own.
  await services.redis.eval("if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0", [accountKeys.deleting()], [row.userId, row.id]);
  noteDeletingHere(row.userId, false);
}

export type StepOutcome = "stepped" | "finished" | "stale" | "early" | "missing";

/**
 * Runs step `message.step` of its deletion. A delivery of a step already recorded re-sends the
 * next one (the delivery that recorded it may have crashed before sending it) or, for the last,
 * removes the user from `acct:deleting` again; an older one is dropped. A step whose record
 * another delivery won sends nothing (the winner does).
 */
export async function runEraseStep(services: Services, erasers: readonly Eraser[], message: EraseMessage): Promise<StepOutcome> {
  const row = await loadDeletion(services.db, message.deletionId);
  if (!row) return "missing";
  if (message.step > row.step) return "early";
  if (message.step < row.step) {
    if (message.step < row.step - 1) return "stale";
    if (row.status === "finished") await finished(services, row);
    else await enqueue(services.env, { kind: "erase-step", deletionId: row.id, step: row.step });
    return "stale";
  }
  if (row.status === "finished") {
    await finished(services, row);
    return "finished";
  }
  const eraser = erasers[row.eraser];
  const result = eraser ? await eraser.step(services, row.userId, row.cursor) : ({ removed: 0, done: true } as const);
  const done = "done" in result;
  const next = done ? row.eraser + 1 : row.eraser;
  const last = next >= erasers.length;
  const recorded = await recordStep(services.db, row.id, row.step, {
    capability: eraser?.name ?? "accounts",
    removed: result.removed,
    done,
    eraser: next,
    cursor: done ? null : result.cursor,
    finished: last,
  });
  if (!recorded) return "stale";
  if (last) {
    await finished(services, row);
    return "finished";
  }
  await enqueue(services.env, { kind: "erase-step", deletionId: row.id, step: row.step + 1 });
  return "stepped";
}
