import { HISTORY_POINTS, HISTORY_STEP_MS, opsKeys } from "../lib/ops/keys";
import type { HistoryPoint } from "../lib/ops/record";
import type { Redis } from "../lib/redis";
import type { CronTask } from "../scheduled";
import { sampleStatus, type StatusSample } from "./status";

/**
 * The status history: a point a minute for the last 24 hours, so the console draws what happened
 * before it was opened. The flush cron samples the figures (`statusHistoryTask`, its last task)
 * and writes the point with its run record (`recordRun`, src/lib/ops/record.ts: one round trip,
 * bounded to HISTORY_POINTS points and a TTL); `GET /v1/admin/status/history` reads them.
 */

/** Every minute, after the flush cron's other tasks: the figures of its history point. */
export const statusHistoryTask: CronTask = {
  name: "ops.status-history",
  run: (services) => sampleStatus(services),
  sample: (o) => (o.ok ? (o.result as StatusSample) : {}),
};

/** A point as the history answers it: its minute and every sampled figure (null when not known then). */
export type StatusHistoryPoint = { at: string } & { [K in keyof StatusSample]: number | null };

const FIGURES = ["flushLagMs", "pendingFields", "unappliedBatches", "fanoutP99Ms", "deadLetters"] as const satisfies readonly (keyof StatusSample)[];

/** A stored point, whatever figures it was written with (an older point lacks a newer figure: null). */
function toPoint(raw: unknown): StatusHistoryPoint | null {
  let value: unknown = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  const point = value as Partial<HistoryPoint> | null;
  if (!point || typeof point.at !== "string") return null;
  const figure = (name: string) => (typeof point[name] === "number" ? (point[name] as number) : null);
  return { at: point.at, ...(Object.fromEntries(FIGURES.map((name) => [name, figure(name)])) as Record<(typeof FIGURES)[number], number | null>) };
}

/** The points of the last `minutes` minutes (1 … HISTORY_POINTS), oldest first: ONE ZRANGE … BYSCORE on database 0. */
export async function readStatusHistory(redis: Pick<Redis, "zrange">, minutes: number, now = Date.now()) {
  const since = Math.floor(now / HISTORY_STEP_MS) * HISTORY_STEP_MS - (Math.min(minutes, HISTORY_POINTS) - 1) * HISTORY_STEP_MS;
  const raw = await redis.zrange<unknown[]>(opsKeys.history(), since, "+inf", { byScore: true });
  const points = raw.map(toPoint).filter((p): p is StatusHistoryPoint => p !== null);
  return { minutes, stepMs: HISTORY_STEP_MS, points };
}
