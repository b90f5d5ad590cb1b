import type { CounterEntity } from "./registry";

/**
 * Every Redis key the counters capability owns. Nobody else writes them.
 *
 * Eviction must be off for this database (Upstash default "noeviction"): pending deltas and batches
 * are the only copy of not-yet-flushed increments. Cached values may be dropped at any time.
 */

/** Absolute values start a 12 h life when warmed; increments do not extend it (SET … KEEPTTL). */
export const CACHE_TTL_SECONDS = 12 * 60 * 60;
/** A retried idempotent increment within 24 h is answered from `idempotency` (the API-wide window). */
export { IDEMPOTENCY_TTL_SECONDS } from "../lib/idempotency";
/**
 * An event's part applied on a database is remembered this long: longer than the event's retries
 * last (the emitting invocation's, which ends at most 30 s after its answer), and short, as there
 * is one such key per follow, like and favourite and database in the window.
 */
export const EVENT_APPLIED_TTL_SECONDS = 60;
/**
 * An increment call's own id is remembered this long: far longer than the call's retries of its
 * script (a few seconds: `counters.ts`), and short, as there is one such key per increment without
 * an Idempotency-Key or event in the window.
 */
export const CALL_APPLIED_TTL_SECONDS = 60;

export const counterKeys = {
  /**
   * String: the absolute values (pg value + unapplied batches + pending) of one entity, packed as
   * decimals joined by commas in registry field order (`post`: "views,comments,likes,favorites,
   * forwards", e.g. "120,4,31,2,0"). One key per entity, so each expires on its own (TTL 12 h), and
   * a read of n entities is one MGET. A value with another number of fields (packed before the
   * registry grew) reads as a miss and is re-warmed. Packing and unpacking: `read.lua.ts`.
   * (`ctr:v:*` was the earlier layout, one hash per entity; such keys expire within 12 h of deploy.)
   */
  cache: (entity: CounterEntity, id: string) => `ctr:c:${entity}:${id}`,
  /**
   * Hash `entity:id:field` → summed delta since the last cut. No TTL: the flush renames it into a
   * batch every minute, so it holds at most one minute of distinct touched counters.
   */
  pending: () => "ctr:pending",
  /** Field name of one counter inside the pending hash and inside a batch hash. */
  pendingField: (entity: CounterEntity, id: string, field: string) => `${entity}:${id}:${field}`,
  /** String: INCR sequence of batch numbers. Never expires (a reset is repaired from Postgres' watermark at the next cut). */
  batchSeq: () => "ctr:batch:seq",
  /** Hash like `pending`, frozen by a cut under number n. Deleted once Postgres holds batch n. */
  batch: (n: number) => `ctr:batch:${n}`,
  /** Prefix the cut script appends the batch number to (the script builds the name atomically). */
  batchPrefix: () => "ctr:batch:",
  /** Sorted set of unapplied batch numbers (score = number). Bounded by the flush draining it. */
  unappliedBatches: () => "ctr:batches",
  /**
   * String: JSON `{entity, after}` where the running reconcile pass continues. Set by the daily
   * trigger, advanced by each per-minute slice, deleted when the pass has covered every id.
   * TTL 2 days, so a pass that keeps failing does not run forever.
   */
  reconcileCursor: () => "ctr:reconcile:cursor",
  /**
   * Sorted set post id → weighted engagement moved in one UTC hour (`trending.ts`), bumped by the
   * increment script. Trimmed to the top TRENDING_BUCKET_TOP by the per-minute cron (between two
   * trims it holds at most a minute of distinct posts more); TTL 8 days, set by that cron. Per
   * database at N > 1: each holds its own posts' scores (a read merges their top lists).
   */
  trendingBucket: (hour: number) => `ctr:trend:h:${hour}`,
  /**
   * Hash: one window's computed top list, shared by every isolate while it is fresh — field `o` =
   * the post ids in rank order joined by commas, field {postId} = that item's JSON (so a delete
   * removes one post with one HDEL; an id of `o` without its field is skipped). TTL 5 s: its expiry
   * is what lets the next recompute happen (`src/feed/trending.ts`). (`ctr:trend:r:*` held the
   * list as one JSON string for 5 s; a new name, so old and new isolates never read each other's
   * type during a deploy.)
   */
  trendingResult: (window: string) => `ctr:trend:f:${window}`,
  /**
   * Hash like `trendingResult`: the last computed list, served while another reader recomputes (so
   * nobody waits or gets an empty list). Rewritten with each recompute; TTL 10 minutes.
   */
  trendingLast: (window: string) => `ctr:trend:l:${window}`,
  /**
   * String: the token of the one reader recomputing the window (SET NX PX): one recompute per
   * window at a time, however many isolates find the result expired. Deleted by the recompute's
   * store; TTL 10 s if that reader dies.
   */
  trendingLock: (window: string) => `ctr:trend:lock:${window}`,
  /**
   * Sorted set post id → delete time (ms) of posts deleted in the last minute: a recompute that
   * read its candidates before a delete does not store the deleted post. Trimmed to the last
   * minute by each delete; TTL 1 minute.
   */
  trendingGone: () => "ctr:trend:gone",
  /**
   * Sorted set: scratch of the union of a window's buckets, deleted by the script that makes it (on
   * each database whose buckets a recompute reads). The lists, lock and gone above are database 0's.
   */
  trendingScratch: (window: string) => `ctr:trend:tmp:${window}`,
  /**
   * String: fingerprint + "\n" + first answer of an idempotent increment + "\n" + the id of the call
   * that stored it (so that call's own retry is told from a replay; absent in keys stored before).
   * TTL 24 h. Key ≤ 64 chars.
   */
  idempotency: (callerId: string, key: string) => `ctr:idem:${callerId}:${key}`,
  /**
   * String "1": this database applied its part of event `id` (a follow, like or favourite moving
   * entities on several databases), claimed by the increment that applies it. TTL 60 s.
   */
  eventApplied: (eventId: string) => `ctr:ev:${eventId}`,
  /**
   * String "1": this database applied increment call `callId` (a random id per call without an
   * Idempotency-Key or event), claimed by the script that applies it, so a retry of a call whose
   * answer was lost (the server or the link died after running it) is not applied twice. TTL 60 s.
   */
  callApplied: (callId: string) => `ctr:once:${callId}`,
} as const;
