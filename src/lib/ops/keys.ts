/**
 * Redis keys of the operations view: what background jobs record for `GET /v1/admin/status`. Each
 * record is ONE command in the job that writes it, and nothing on a request path writes here.
 */

/** Fan-outs whose publish → last-page latency the status summarises (p50, p99, max). */
export const FANOUT_SAMPLES = 100;

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
} as const;

/** Fields of `opsKeys.runs()`. */
export const RUN_FIELDS = {
  cron: (job: string) => `cron:${job}`,
  flush: "counters:flush",
  reconcile: "counters:reconcile",
  liveRooms: "live:rooms",
} as const;
