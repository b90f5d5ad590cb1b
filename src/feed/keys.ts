/**
 * Every Redis key the feed capability owns, with its shape and bound. Nobody else writes them.
 *
 * Timelines are CACHES of what Postgres says (`follows` ⋈ `posts`): any of them may vanish (TTL,
 * eviction, a Redis restart) and is rebuilt on the next read. Post ids are scores, so they must
 * stay below 2^53 (Lua and zset scores are doubles); identity ids start at 1 and grow by one.
 *
 * OWNERS (where a key lives at N > 1, `src/lib/redis-topology.ts`): the READER's database for
 * `timeline`, `flags`, `unfollowEpoch`, `intent` (the follower's), `bigFollows` and `seen`; the POST's database for a live `post` cache entry; EVERY database for
 * `outbox`, `bigStates`, `activity` (read on every page and badges call, written rarely) and a
 * `post` tombstone (`d`: every reader's first round and every fan-out page sees it on its own
 * database). At N = 1 all of them are on the one database.
 */

/** Newest posts a timeline keeps (oldest dropped on push); `FEED_TIMELINE_CAP` overrides it. */
export const DEFAULT_TIMELINE_CAP = 1000;
/** A timeline nobody read for a week expires, and nothing is pushed to it any more. */
export const TIMELINE_TTL_SECONDS = 7 * 24 * 3600;
/**
 * A read renews a timeline's TTL (and its pulled set's, flags') once this much of it has passed: a
 * page is read-only (a read region answers it), so the renewal is a write of its own, sent at most
 * once a day per reader rather than on every page. A timeline thus lives 6 to 7 days after its
 * last read.
 */
export const TIMELINE_RENEW_AFTER_SECONDS = 24 * 3600;
/** An empty timeline (nobody followed, nothing posted) is remembered this long, then re-read. */
export const EMPTY_TIMELINE_TTL_SECONDS = 5 * 60;
/** Cached posts live three days; a miss reads Postgres (one statement per page). */
export const POST_CACHE_TTL_SECONDS = 3 * 24 * 3600;
/**
 * A deleted post's tombstone outlives any queued delivery of it (queue retention is 4 days), so a
 * late "add" never resurrects it; after that a miss reads Postgres, which says deleted.
 */
export const TOMBSTONE_TTL_SECONDS = 7 * 24 * 3600;
/** Tombstone value of `post`: not JSON, so no live post can be mistaken for it. */
export const TOMBSTONE = "d";
/** Fields a reaction-flag hash may hold before it is marked overflowed and ignored until it expires. */
export const FLAGS_CAP = 4000;
/** A follow/unfollow intent outlives any queued sync of it (retries finish within hours). */
export const INTENT_TTL_SECONDS = 24 * 3600;
/** Posts a follow copies into the follower's timeline. */
export const FOLLOW_COPY = 100;
/** The `feed` badge counts at most this far (the largest badge cap is 999: one more says "capped"); the timeline's ZCOUNT is clamped to it. */
export const FEED_UNSEEN_CAP = 1000;

/** An author with at least this many followers is big: pulled by readers, not pushed (`BIG_ACCOUNT_FOLLOWERS`). */
export const DEFAULT_BIG_ACCOUNT_FOLLOWERS = 10_000;
/** Hysteresis: a big account becomes normal again only below this share of the threshold. */
export const BIG_ACCOUNT_EXIT_RATIO = 0.9;
/** Big accounts merged into one page, the most recently active first (`MAX_PULLED_ACCOUNTS`). */
export const DEFAULT_MAX_PULLED_ACCOUNTS = 200;
/** Big accounts merged into one page (`MAX_PULLED_ACCOUNTS`, default 200); the `feed` badge merges as many. */
export function maxPulledAccounts(env: { MAX_PULLED_ACCOUNTS?: string }): number {
  const n = Number(env.MAX_PULLED_ACCOUNTS);
  return Number.isInteger(n) && n >= 0 ? n : DEFAULT_MAX_PULLED_ACCOUNTS;
}
/** Newest posts an outbox keeps (a reader pulls a page at a time from it). */
export const OUTBOX_CAP = 1000;
/** An outbox left behind when its account became normal again expires after this. */
export const OUTBOX_TTL_SECONDS = 7 * 24 * 3600;
/** The ranked feed scores this many newest items of the merged timeline. */
export const RANKED_CANDIDATES = 300;
/**
 * A ranking's cursor (which carries the ranking: ranked-cursor.ts) is refused this long after the
 * ranking was made (400, start again): a walk shows counts as they are, in an order that was.
 */
export const RANKING_TTL_MS = 15 * 60 * 1000;

/** Sentinel members of a timeline (score 0, below every post id). */
export const BUILT = "0";
export const BUILDING = "b";

/** A timeline member: `postId:authorId`, so an unfollow can drop an author's posts without Postgres. */
export const timelineMember = (postId: string, authorId: string) => `${postId}:${authorId}`;

export const feedKeys = {
  /**
   * CACHE sorted set: score = post id, member = `postId:authorId`, newest `cap` posts of the user's
   * followees and the user. Sentinel `0` (score 0) = built from Postgres (alone = empty timeline,
   * TTL 5 min); sentinel `b` = a build is in flight (pushes land, reads still rebuild; TTL 5 min).
   * TTL 7 days, renewed by a read once a day has passed (TIMELINE_RENEW_AFTER_SECONDS).
   */
  timeline: (userId: string) => `feed:tl:${userId}`,
  /**
   * CACHE string: JSON `[authorId, text, createdAt]` of a post (TTL 3 days), or `d` once deleted
   * (TTL 7 days). Written at publish and delete, filled on misses. Owner: the post (a tombstone:
   * every database).
   */
  post: (postId: string) => `feed:post:${postId}`,
  /** Prefix the page script appends post ids to (it learns the ids from the timeline). */
  postPrefix: () => "feed:post:",
  /**
   * CACHE hash of the user's reaction flags: `l{postId}`/`v{postId}` = "1"|"0" (liked/favourited),
   * `f` = floor: complete for every post id ≥ floor; `x` = overflowed (more than FLAGS_CAP fields):
   * ignored until it expires. Like/favourite events always write their field (so a build racing
   * them, which only adds missing fields, cannot undo them). TTL 7 days, renewed by reads.
   */
  flags: (userId: string) => `feed:rx:${userId}`,
  /**
   * HOT-ONLY string: INCR'd by each unfollow. A timeline build reads it before Postgres and writes
   * only if it is unchanged, so posts of an account unfollowed meanwhile are never written back.
   * TTL 7 days (a build takes milliseconds).
   */
  unfollowEpoch: (userId: string) => `feed:ep:${userId}`,
  /**
   * HOT-ONLY string "1" (follows) | "0" (unfollowed): the latest intent for the pair, written on the
   * request path. Queued syncs act on it, not on their own age, so any delivery order ends right;
   * fan-out and transition pages skip a follower whose intent is "0" (unfollowed after the page of
   * followers was read). TTL 1 day (a page's read and write are seconds apart).
   */
  intent: (followerId: string, followeeId: string) => `feed:fi:${followerId}:${followeeId}`,
  /**
   * Sorted set: the newest OUTBOX_CAP posts of a big (or transitioning) account, same members and
   * scores as timelines. No TTL while the account is big (it is the only copy readers pull); 7 days
   * once it is normal again. Rebuilt from Postgres when a transition to big starts. On EVERY
   * database (each write goes to all of them; readers merge their own database's copy).
   */
  outbox: (authorId: string) => `feed:ob:${authorId}`,
  /** Prefix the page script appends author ids to. */
  outboxPrefix: () => "feed:ob:",
  /**
   * CACHE set of the big (or to-big) accounts the user follows: the outboxes a page merges. Written
   * with the timeline (build, follow syncs, transitions); same TTL, renewed by reads; at most
   * MAX_FOLLOWEES members.
   */
  bigFollows: (userId: string) => `feed:bf:${userId}`,
  /**
   * CACHE hash author → `to-big` | `big` | `to-normal` (Postgres `feed_big_accounts`, re-synced by the
   * per-minute cron): the publish path reads it to pull instead of push. One field per big account.
   * On EVERY database (the author's copy is the one a publish reads; a follower's, a sync's).
   */
  bigStates: () => "feed:big",
  /** Sorted set author → newest post id, for big and transitioning accounts ("most recently active first"). On EVERY database. */
  activity: () => "feed:act",
  // (`feed:rk:{user}:{snapshot}`, a ranked first page's stored ranking up to this version, is
  // written by nothing any more: the cursor carries the ranking. Its keys expire within 15 minutes.)
  /**
   * HOT-ONLY string: the newest post id (score) of the user's timeline when they last read its
   * first page — the `feed` badge is the timeline's posts above it (`ZCOUNT (marker +inf`, read
   * diffusion: a fan-out writes nothing for it, so an offline follower costs no more than the
   * timeline's own ZADD). Written by that read (`unseen.ts`); deleted by it when the timeline is
   * missing, and then set (NX) by the build to the built timeline's top, so what a build copies
   * in is not new. No marker on a timeline that exists (it outlived the marker): every post counts.
   * TTL TIMELINE_TTL_SECONDS, set on write. (The earlier per-follower counter `feed:new:{user}`,
   * INCR'd by every delivery, is read by nothing any more: its keys expire within their 7 days.)
   */
  seen: (userId: string) => `feed:seen:${userId}`,
  // (`feed:dead`, the list of dead letters up to this version, is written by nothing any more: dead
  // letters are kept in Postgres, `dead_letters`. Its ≤ 1,000 entries can be replayed by hand or
  // deleted: docs/operations.md.)
} as const;
