/**
 * Every Redis key the social capability owns, with its shape and bound. Nobody else writes them.
 *
 * They are CACHES of Postgres (`posts`, `follows`): any of them may vanish (TTL, eviction, a Redis
 * restart, a reshard) and is rebuilt from Postgres by the next read that misses it, after that
 * read's answer. OWNER (where a key lives at N > 1, `src/lib/redis-topology.ts`): the user named in
 * the key.
 */

// ── Profiles: an author's recent posts ───────────────────────────────────────

/** Newest posts (live, held included) an author's profile cache keeps; `PROFILE_CACHE_CAP` overrides it. */
export const PROFILE_CAP = 1000;
/**
 * Text a build copies into one profile cache (UTF-16 units, ≈ bytes for most text): a build of an
 * author whose newest PROFILE_CAP posts are longer stops there and marks the cache partial, so one
 * build's script call stays far below Upstash's 10 MB request (PROFILE_CAP posts of
 * MAX_POST_LENGTH characters would not).
 */
export const PROFILE_BUILD_TEXT_BUDGET = 1_000_000;
/** A profile cache nobody read for a week expires (writes keep it exact but do not keep it alive). */
export const PROFILE_TTL_SECONDS = 7 * 24 * 3600;
/**
 * A read renews the cache once this much of its TTL has passed: the read is read-only (a read
 * region answers it), so the renewal is a write of its own, sent after the answer at most once a
 * day per profile (as the feed's TIMELINE_RENEW_AFTER_SECONDS). The renewal is a build from
 * Postgres (one statement, one script), not an EXPIRE: so a change whose cache write was lost to a
 * Redis outage (longer than its drops' retries) is in the cache again within a day of it. A
 * cache lives 6 to 7 days after its last read.
 */
export const PROFILE_RENEW_AFTER_SECONDS = 24 * 3600;
/** The epoch outlives any build in flight (a build is one Postgres read and one script call). */
export const PROFILE_EPOCH_TTL_SECONDS = 24 * 3600;
/**
 * Sentinel members of a profile cache, at score 0 (below every post id): `c` = built and complete
 * (the author has no live post older than the oldest entry), `p` = partial (older posts may exist:
 * a page past the oldest entry reads Postgres). Exactly one of them is in a built cache; alone it
 * is an author with no posts (or none left in the cached range), one read.
 */
export const PROFILE_COMPLETE = "c";
export const PROFILE_PARTIAL = "p";
/** First character of an entry: `h` held (shown to its author only), `v` visible to everyone. */
export const PROFILE_HELD = "h";
export const PROFILE_VISIBLE = "v";

export const profileKeys = {
  /**
   * CACHE sorted set of the author's newest live posts: score = post id, member = `h` (held) or `v`
   * followed by JSON `[id, text, createdAt]` (what a page item shows; the author id is the key's);
   * + one sentinel at score 0 (PROFILE_COMPLETE or PROFILE_PARTIAL). ≤ PROFILE_CAP + 1 members,
   * each ≤ MAX_POST_LENGTH characters of text. Exact for every post id ≥ its oldest entry: post,
   * publish and delete write it (`profile.lua.ts` WRITE_PROFILE), only while it exists. Built by
   * a read that missed it, after that read's answer. TTL PROFILE_TTL_SECONDS, renewed (built
   * again) after a read once PROFILE_RENEW_AFTER_SECONDS have passed. Owner: the author.
   */
  posts: (authorId: string) => `soc:pf:${authorId}`,
  /**
   * HOT-ONLY string: INCR'd by every write of the author's profile (post, publish, delete), cache
   * or no cache. A read that misses the cache answers it; the build after the answer writes only if
   * it is unchanged, so a post or delete racing the build is never undone by the build's older
   * Postgres read. TTL PROFILE_EPOCH_TTL_SECONDS, refreshed on write. Owner: the author.
   */
  epoch: (authorId: string) => `soc:pfe:${authorId}`,
} as const;

// ── Follower and following lists ─────────────────────────────────────────────

/** Newest edges a follower or following list cache keeps (10 × the largest page); `SOCIAL_FOLLOW_LIST_CAP` overrides it. */
export const FOLLOW_LIST_CAP = 1000;
/**
 * A list cache lives a day from its build, read or not (reads are read-only and do not renew it;
 * writes keep it exact but do not keep it alive): a list missing a write that failed past the bus's
 * retries (its database unreachable meanwhile) is rebuilt from Postgres within a day. A list read
 * all day costs one Postgres read a day.
 */
export const FOLLOW_LIST_TTL_SECONDS = 24 * 3600;
/** The epoch outlives any build in flight (a build is one Postgres read and one script call). */
export const FOLLOW_LIST_EPOCH_TTL_SECONDS = 24 * 3600;
/**
 * An unfollow's record outlives every event of the same edge still in flight: the events of one
 * follow are applied by the request that emits them, or by the bus's retries within seconds.
 */
export const UNFOLLOWED_TTL_SECONDS = 3600;
/** Unfollow records kept per list: the newest edges' (a late event is of a recent edge). */
export const UNFOLLOWED_CAP = 1000;
/**
 * Sentinel members of a list cache, at score -1 (below every follow time): `#all` = the cache holds
 * the whole list, `#top` = only its newest edges (older ones are in Postgres: a page past the
 * oldest entry reads Postgres). Exactly one of them is in a built cache; alone it is a user with no
 * edges (or none left in the cached range): one read.
 */
export const FOLLOW_LIST_ALL = "#all";
export const FOLLOW_LIST_TOP = "#top";
/** Digits of a list member: an id zero-padded to the longest 64-bit id, so equal follow times order by id as Postgres does. */
export const FOLLOW_MEMBER_DIGITS = 19;

export type FollowDirection = "followers" | "following";

export const followListKeys = {
  /**
   * CACHE sorted set of one side of the owner's follow graph (`followers`: who follows the owner;
   * `following`: whom the owner follows): member = the other user's id zero-padded to
   * FOLLOW_MEMBER_DIGITS, score = the follow's `created_at` in microseconds since the epoch (exact
   * in a double until the year 2255), so ZREVRANGE's (score desc, member desc) is Postgres'
   * (created_at desc, other id desc); + one sentinel at score -1 (FOLLOW_LIST_ALL or
   * FOLLOW_LIST_TOP). Always exactly the owner's newest M edges, M ≤ cap (FOLLOW_LIST_CAP): follow
   * and unfollow write it (`follow-lists.lua.ts` WRITE_FOLLOW_EDGE), only while it exists,
   * trimming the oldest past the cap. Suspended users stay in it (a read skips them). Built by a
   * read that missed it, after that read's answer. ≤ cap + 1 members. TTL FOLLOW_LIST_TTL_SECONDS
   * from the build. Owner: the list's user.
   */
  list: (direction: FollowDirection, userId: string) => `soc:${direction === "followers" ? "fl" : "fg"}:${userId}`,
  /**
   * HOT-ONLY sorted set of edges of the list that were unfollowed: member = the other user's padded
   * id, score = the removed edge's follow time (µs). A follow's event arriving after its unfollow's
   * (two requests, or a retry) finds it and adds nothing, so the writes commute. Newest
   * UNFOLLOWED_CAP edges; TTL UNFOLLOWED_TTL_SECONDS, refreshed on write. Owner: the list's user.
   */
  unfollowed: (direction: FollowDirection, userId: string) => `soc:${direction === "followers" ? "flx" : "fgx"}:${userId}`,
  /**
   * HOT-ONLY string: INCR'd by every write of the list (follow, unfollow), cache or no cache. A read
   * that misses the cache answers it; the build after the answer writes only if it is unchanged, so
   * a follow or unfollow racing the build is never undone by the build's older Postgres read. TTL
   * FOLLOW_LIST_EPOCH_TTL_SECONDS, refreshed on write. Owner: the list's user.
   */
  epoch: (direction: FollowDirection, userId: string) => `soc:${direction === "followers" ? "fle" : "fge"}:${userId}`,
} as const;
