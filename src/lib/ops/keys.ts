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
  /**
   * Sorted set of the push broadcasts whose progress is kept: member = broadcast id, score = when
   * its push started (ms). The write that adds one keeps the newest BROADCAST_PROGRESS_KEPT and
   * sets BROADCAST_PROGRESS_TTL_SECONDS.
   */
  broadcasts: () => "ops:broadcasts",
  /**
   * Hash of one push broadcast's progress (BROADCAST_FIELDS), written by the `notify-send`
   * consumer: one round trip per page and one per queue batch that sent some of its pushes. Its
   * TTL (BROADCAST_PROGRESS_TTL_SECONDS) is set again by every write, so a finished broadcast's
   * figures go a week after its last push; a hash whose id left the sorted set only waits out its TTL.
   */
  broadcast: (id: string) => `ops:broadcast:${id}`,
} as const;

/** Push broadcasts the status shows (the newest first) and keeps progress of. */
export const BROADCAST_PROGRESS_SHOWN = 5;
export const BROADCAST_PROGRESS_KEPT = 20;
/** A broadcast's progress outlives its last push by a week. */
export const BROADCAST_PROGRESS_TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * Fields of `opsKeys.broadcast(id)`: counts only grow (HINCRBY), times and the cursor are set.
 * Devices are counted as the queue sees them: `queued` when a page queued a user's push (their
 * devices of the paged kinds then), `sent`/`failed`/`dropped` when the consumer carried out a
 * device's last verdict (delivered; a dead letter; gone, deleted). `retried` counts retries, not
 * devices: a device retried then delivered is also `sent`.
 */
export const BROADCAST_FIELDS = {
  startedAt: "startedAt",
  /** Users with a device when the first page ran: the pages to come, roughly. */
  usersTotal: "usersTotal",
  pages: "pages",
  usersPaged: "usersPaged",
  usersQueued: "usersQueued",
  queued: "queued",
  sent: "sent",
  failed: "failed",
  dropped: "dropped",
  retried: "retried",
  /** The last page's last user id (the keyset cursor). */
  cursor: "cursor",
  /** When the last page ran: every push is queued. */
  pagedAt: "pagedAt",
  /** The FCM topic send: its topic, when it was delivered, or why it failed. */
  topic: "topic",
  topicSentAt: "topicSentAt",
  topicError: "topicError",
  /** The last write (ms): with `startedAt`, the rate so far. */
  lastAt: "lastAt",
} as const;

/** Fields of `opsKeys.runs()`. */
export const RUN_FIELDS = {
  cron: (job: string) => `cron:${job}`,
  flush: "counters:flush",
  reconcile: "counters:reconcile",
  liveRooms: "live:rooms",
} as const;
