/**
 * Every Redis key the safety capability owns, with its shape and bound. Nobody else writes them;
 * other capabilities' scripts receive their names (`safetyKeysOf`) and read them with the Lua of
 * `verdict.lua.ts` (the badges' tally of notifications and DMs, the feed's page scripts).
 *
 * The sets are CACHES of Postgres (`safety_blocks`, `safety_mutes`): any of them may vanish (TTL,
 * a Redis restart, a reshard) and is rebuilt from Postgres by the next read that needs it.
 *
 * OWNER: the user named in the key — every key on that user's database (`src/lib/redis-topology.ts`),
 * so a reader's own sets are read inside the round trip its read already makes there. A block of
 * B by A writes A's `blocked` set on A's database and B's `blockedMe` set on B's database.
 */

/** Blocks per user, and mutes per user (`SAFETY_MAX_ENTRIES` overrides it; 409 past it). */
export const DEFAULT_MAX_ENTRIES = 10_000;
/** Newest "who blocked me" entries a cached set keeps (Postgres has no bound on blocks received). */
export const BLOCKED_ME_CAP = 10_000;
/** A cached set lives a week after its last write or rebuild, then the next read rebuilds it. */
export const SETS_TTL_SECONDS = 7 * 24 * 3600;
/** The epoch outlives any rebuild in flight (a rebuild takes one Postgres read). */
export const EPOCH_TTL_SECONDS = 24 * 3600;
/**
 * Sentinel member of every cached set (score 0): the set was built from Postgres. Alone it is the
 * empty marker of a user with nothing there, so a reader with no blocks pays one EXISTS.
 */
export const BUILT = "0";
/** Score of a mute without an end (zset scores are doubles; 2^53 ms is far past any clock). */
export const NEVER = 9_007_199_254_740_991;
/** Prefix of the second member of a mute that silences notifications too (`n:{mutedId}`). */
export const NOTIFY_MUTE_PREFIX = "n:";

export const safetyKeys = {
  /** CACHE sorted set: member = a user the owner blocked, score = block time (ms); + BUILT. ≤ DEFAULT_MAX_ENTRIES + 1. TTL SETS_TTL_SECONDS. */
  blocked: (userId: string) => `sfy:bl:${userId}`,
  /** CACHE sorted set: member = a user who blocked the owner, score = block time (ms); + BUILT. Newest BLOCKED_ME_CAP + 1. TTL SETS_TTL_SECONDS. */
  blockedMe: (userId: string) => `sfy:bm:${userId}`,
  /**
   * CACHE sorted set of the owner's mutes: member `{mutedId}`, score = the mute's end (ms, NEVER
   * without one), and member `n:{mutedId}`, same score, when it silences notifications too; + BUILT.
   * A reader compares the score with now: an ended mute is ignored without a write, and dropped by
   * the next rebuild. ≤ 2 × DEFAULT_MAX_ENTRIES + 1. TTL SETS_TTL_SECONDS.
   */
  mutes: (userId: string) => `sfy:mu:${userId}`,
  /**
   * HOT-ONLY string: INCR'd by every write to the owner's sets. A rebuild reads it before Postgres
   * and writes only if it is unchanged, so a block or unblock racing the rebuild is never undone by
   * the rebuild's older read. TTL EPOCH_TTL_SECONDS, refreshed on write.
   */
  epoch: (userId: string) => `sfy:ep:${userId}`,
} as const;

/** The moderation keys: on DATABASE 0, owned by no user (every isolate reads them, whoever the caller). */
export const moderationKeys = {
  /**
   * CACHE sorted set on DATABASE 0 (not owned by a user): every user suspended now → suspension
   * time (ms), plus member `v` (score: the set's version, bumped by every change) and member `t`
   * (score: the term list's version, `safety_moderation_terms.version`). Every isolate keeps a
   * copy, refreshed by one script call that returns the members only when `v` moved
   * (`copy.ts`). ≤ MAX_SUSPENDED + 2 members; no TTL (rebuilt from Postgres when missing).
   */
  suspended: () => "sfy:sus",
  /** CACHE string on DATABASE 0: the term filter's list as JSON (≤ MAX_TERMS terms of ≤ MAX_TERM_LENGTH); no TTL (rebuilt from Postgres). */
  terms: () => "sfy:terms",
} as const;

/** Users suspended at once (409 past it): bounds the suspended set every isolate copies. */
export const MAX_SUSPENDED = 10_000;
/** Terms the filter holds, and the length of one (400 past them). */
export const MAX_TERMS = 1_000;
export const MAX_TERM_LENGTH = 100;
/** Members of the suspended set that are not user ids: its version and the terms' version. */
export const SUSPENDED_VERSION = "v";
export const TERMS_VERSION = "t";

/** The four keys a script reading the owner's sets receives, in the order `verdict.lua.ts` expects. */
export function safetyKeysOf(userId: string): [blocked: string, blockedMe: string, mutes: string, epoch: string] {
  return [safetyKeys.blocked(userId), safetyKeys.blockedMe(userId), safetyKeys.mutes(userId), safetyKeys.epoch(userId)];
}
