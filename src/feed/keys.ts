/**
 * Every Redis key the feed capability owns, with its shape and bound. Nobody else writes them.
 *
 * Timelines are CACHES of what Postgres says (`follows` ⋈ `posts`): any of them may vanish (TTL,
 * eviction, a Redis restart) and is rebuilt on the next read. Post ids are scores, so they must
 * stay below 2^53 (Lua and zset scores are doubles); identity ids start at 1 and grow by one.
 */

/** Newest posts a timeline keeps (oldest dropped on push); `FEED_TIMELINE_CAP` overrides it. */
export const DEFAULT_TIMELINE_CAP = 1000;
/** A timeline nobody read for a week expires, and nothing is pushed to it any more. */
export const TIMELINE_TTL_SECONDS = 7 * 24 * 3600;
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
/** Dead letters kept for operators to read (newest first). */
export const DEAD_LETTERS_CAP = 1000;

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
   * TTL 7 days, renewed by reads.
   */
  timeline: (userId: string) => `feed:tl:${userId}`,
  /**
   * CACHE string: JSON `[authorId, text, createdAt]` of a post (TTL 3 days), or `d` once deleted
   * (TTL 7 days). Written at publish and delete, filled on misses.
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
   * request path. Queued syncs act on it, not on their own age, so any delivery order ends right.
   * TTL 1 day.
   */
  intent: (followerId: string, followeeId: string) => `feed:fi:${followerId}:${followeeId}`,
  /** HOT-ONLY list of dead-lettered queue messages (JSON), newest first, capped at DEAD_LETTERS_CAP. */
  deadLetters: () => "feed:dead",
} as const;
