/**
 * Redis keys of the operations view: what background jobs record for `GET /v1/admin/status` and
 * its history. Owner: `src/lib/ops` (written through ./record.ts, read by the console in
 * `src/admin`). Each record is ONE round trip in the job that writes it, nothing on a request path
 * writes here, and every key lives on database 0 whatever the number of databases.
 */

/** Fan-outs whose publish → last-page latency the status summarises (p50, p99, max). */
export const FANOUT_SAMPLES = 100;

/** Points the status history keeps: one a minute (the flush cron) for 24 hours. */
export const HISTORY_POINTS = 24 * 60;
/** One point's span: a cron run's point replaces another of the same minute. */
export const HISTORY_STEP_MS = 60_000;
/** The history expires a day after its last point, when every point in it would be too old anyway. */
export const HISTORY_TTL_SECONDS = 24 * 60 * 60;

export const opsKeys = {
  /**
   * Hash of the latest run of each recurring job, one JSON value per fixed field (bounded by the
   * fields, so no TTL): `cron:{job}` (each cron job's last run: start, duration, outcome, per task),
   * `counters:flush` (the last flush), `counters:reconcile` (the last reconcile pass: running or
   * done, position, counters corrected), `live:rooms` (the live rooms' largest audiences, as the
   * last cron run asked them). Written by the scheduled handler, one HSET per cron run.
   */
  runs: () => "ops:runs",
  /**
   * Stream of the last FANOUT_SAMPLES fan-out completions (`post`, `ms` = publish → last page
   * delivered), trimmed by its own XADD (MAXLEN =), one command per completed fan-out.
   */
  fanouts: () => "ops:fanouts",
  /**
   * Sorted set of the status history: member = one point's JSON (`at` and the figures the flush
   * cron sampled), score = its minute (ms). Bounded three ways by the write that adds a point
   * (./record.ts): the same minute's older point is removed, points older than HISTORY_POINTS
   * minutes are removed, then all but the newest HISTORY_POINTS; and HISTORY_TTL_SECONDS.
   */
  history: () => "ops:history",
} as const;

/** Fields of `opsKeys.runs()`. */
export const RUN_FIELDS = {
  cron: (job: string) => `cron:${job}`,
  flush: "counters:flush",
  reconcile: "counters:reconcile",
  liveRooms: "live:rooms",
} as const;
