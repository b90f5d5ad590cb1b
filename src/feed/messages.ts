/**
 * Messages of the `feed-fanout` queue. Each is small (≤ 1 KB, far under the 128 KB limit) and
 * idempotent: delivering it twice, or after a later one, ends in the same timelines.
 */
export type FeedMessage =
  /**
   * One page of a post's fan-out: add the post to (or remove it from) the timelines of the
   * author's followers after `after` (keyset on follow time, follower id; null = first page). The
   * consumer sends the next page as its own message.
   */
  | { kind: "fanout"; op: "add" | "remove"; postId: string; authorId: string; after: { createdAt: string; followerId: string } | null }
  /** Make a follower's timeline agree with the latest follow intent for one followee. */
  | { kind: "sync"; followerId: string; followeeId: string }
  /**
   * One page of an account crossing the big-account threshold (`to: "big"`: its followers pull it
   * from now on; `"normal"`: its posts are pushed again). The first page (`after: null`) starts the
   * transition, the last one ends it.
   */
  | { kind: "transition"; authorId: string; to: "big" | "normal"; after: { createdAt: string; followerId: string } | null };

/** The name of the dead-letter queue in wrangler.toml; its consumer records what lands there. */
export const FEED_DEAD_LETTER_QUEUE = "feed-fanout-dlq";

/** Followers per fan-out message: one Postgres page and one Redis round trip each. */
export const FANOUT_PAGE_SIZE = 1000;
