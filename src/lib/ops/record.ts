import type { Redis } from "../redis";
import { BROADCAST_FIELDS, BROADCAST_PROGRESS_KEPT, BROADCAST_PROGRESS_TTL_SECONDS, FANOUT_SAMPLES, HISTORY_POINTS, HISTORY_STEP_MS, HISTORY_TTL_SECONDS, opsKeys } from "./keys";
import { errorText, log } from "../log";

/**
 * What background jobs record for the operations view: ONE Redis round trip each, best effort (a
 * record that fails is logged and dropped: it must never fail or retry the work it describes).
 */

/** A cron job's run as the status shows it. */
export type CronRunRecord = {
  startedAt: string;
  durationMs: number;
  outcome: "ok" | "error";
  tasks: { name: string; ok: boolean; durationMs: number; error?: string }[];
};

/** A point of the status history: its minute and the figures sampled then (null: not known then). */
export type HistoryPoint = { at: string } & Record<string, string | number | null>;

/**
 * Writes a cron run's record and whatever its tasks asked to be kept (the flush's figures, the
 * reconcile pass) in one HSET of fixed fields; with `figures` (what the run sampled for the
 * history), also the run's point of the status history, in the same round trip (MULTI/EXEC).
 */
export async function recordRun(redis: Pick<Redis, "multi">, fields: Record<string, unknown>, figures?: { at: number; values: Record<string, number | null> }): Promise<void> {
  const values = Object.fromEntries(Object.entries(fields).map(([field, value]) => [field, JSON.stringify(value)]));
  if (Object.keys(values).length === 0 && !figures) return;
  try {
    const tx = redis.multi();
    if (Object.keys(values).length > 0) tx.hset(opsKeys.runs(), values);
    if (figures) addHistoryPoint(tx, figures.at, figures.values);
    await tx.exec();
  } catch (err) {
    log.error({ message: "operations record failed", what: [...Object.keys(values), ...(figures ? [opsKeys.history()] : [])], error: errorText(err) });
  }
}

/**
 * Queues the commands that add one point to the status history and keep it bounded: the point
 * replaces any other of its minute (a cron run fired twice), and whatever is older than
 * HISTORY_POINTS minutes or past the newest HISTORY_POINTS points goes. Five commands, one key.
 */
function addHistoryPoint(tx: ReturnType<Redis["multi"]>, at: number, values: Record<string, number | null>) {
  const minute = Math.floor(at / HISTORY_STEP_MS) * HISTORY_STEP_MS;
  const point: HistoryPoint = { at: new Date(minute).toISOString(), ...values };
  const key = opsKeys.history();
  tx.zremrangebyscore(key, minute, minute);
  tx.zadd(key, { score: minute, member: JSON.stringify(point) });
  tx.zremrangebyscore(key, "-inf", minute - HISTORY_POINTS * HISTORY_STEP_MS);
  tx.zremrangebyrank(key, 0, -HISTORY_POINTS - 1);
  tx.expire(key, HISTORY_TTL_SECONDS);
}

/**
 * A fan-out's last page was delivered: publish → now, in one XADD that also trims the stream to
 * the last FANOUT_SAMPLES entries.
 */
export async function recordFanoutCompletion(redis: Pick<Redis, "xadd">, postId: string, publishedAt: number): Promise<void> {
  try {
    await redis.xadd(
      opsKeys.fanouts(),
      "*",
      { post: postId, ms: Math.max(0, Date.now() - publishedAt) },
      { trim: { type: "MAXLEN", threshold: FANOUT_SAMPLES, comparison: "=" } },
    );
  } catch (err) {
    log.error({ message: "fan-out completion record failed", postId, error: errorText(err) });
  }
}

/** What one write adds to a push broadcast's progress: counts to add, fields to set, and (its first page) when it started. */
export type BroadcastProgress = {
  id: string;
  startedAt?: number;
  add?: Partial<Record<keyof typeof BROADCAST_FIELDS, number>>;
  set?: Partial<Record<keyof typeof BROADCAST_FIELDS, string | number>>;
};

/**
 * Adds to push broadcasts' progress (`ops:broadcast:{id}`) in one round trip (MULTI/EXEC): HINCRBY
 * per count, one HSET of the fields set and `lastAt`, EXPIRE; for a broadcast starting, its entry
 * in `ops:broadcasts` (ZADD, then all but the newest BROADCAST_PROGRESS_KEPT removed, EXPIRE).
 * Best effort, as every record here: a failure is logged, the pushes go on.
 */
export async function recordBroadcastProgress(redis: Pick<Redis, "multi">, updates: readonly BroadcastProgress[], now: number = Date.now()): Promise<void> {
  if (updates.length === 0) return;
  try {
    const tx = redis.multi();
    for (const { id, startedAt, add = {}, set = {} } of updates) {
      const key = opsKeys.broadcast(id);
      if (startedAt !== undefined) {
        tx.zadd(opsKeys.broadcasts(), { score: startedAt, member: id });
        tx.zremrangebyrank(opsKeys.broadcasts(), 0, -BROADCAST_PROGRESS_KEPT - 1);
        tx.expire(opsKeys.broadcasts(), BROADCAST_PROGRESS_TTL_SECONDS);
      }
      for (const [field, n] of Object.entries(add)) if (n) tx.hincrby(key, BROADCAST_FIELDS[field as keyof typeof BROADCAST_FIELDS], n);
      const fields: Record<string, string | number> = { [BROADCAST_FIELDS.lastAt]: now };
      if (startedAt !== undefined) fields[BROADCAST_FIELDS.startedAt] = startedAt;
      for (const [field, value] of Object.entries(set)) if (value !== undefined) fields[BROADCAST_FIELDS[field as keyof typeof BROADCAST_FIELDS]] = value;
      tx.hset(key, fields);
      tx.expire(key, BROADCAST_PROGRESS_TTL_SECONDS);
    }
    await tx.exec();
  } catch (err) {
    log.error({ message: "broadcast progress record failed", broadcasts: updates.map((u) => u.id), error: errorText(err) });
  }
}
