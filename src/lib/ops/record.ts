import type { Redis } from "../redis";
import { FANOUT_SAMPLES, opsKeys } from "./keys";
import { errorText, log } from "../log";

/**
 * What background jobs record for the operations view: ONE Redis command each, best effort (a
 * record that fails is logged and dropped: it must never fail or retry the work it describes).
 */

/** A cron job's run as the status shows it. */
export type CronRunRecord = {
  startedAt: string;
  durationMs: number;
  outcome: "ok" | "error";
  tasks: { name: string; ok: boolean; durationMs: number; error?: string }[];
};

/**
 * Writes a cron run's record and whatever its tasks asked to be kept (the flush's figures, the
 * reconcile pass) in one HSET of fixed fields.
 */
export async function recordRun(redis: Pick<Redis, "hset">, fields: Record<string, unknown>): Promise<void> {
  const values = Object.fromEntries(Object.entries(fields).map(([field, value]) => [field, JSON.stringify(value)]));
  if (Object.keys(values).length === 0) return;
  try {
    await redis.hset(opsKeys.runs(), values);
  } catch (err) {
    log.error({ message: "operations record failed", what: Object.keys(values), error: errorText(err) });
  }
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
