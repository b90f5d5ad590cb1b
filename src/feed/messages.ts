import type { Deferrable } from "../lib/deferral";

/**
 * Messages of the feed's two queues (wrangler.toml): `feed-fanout` carries what readers wait for —
 * post fan-outs (publish and delete), big accounts' posts to announce and big-account transitions; `feed-follow-sync` carries follow
 * syncs, a backfill that can wait, so a burst of follows never queues ahead of a post. Each message
 * is small (≤ 1 KB, far under the 128 KB limit) and idempotent: delivering it twice, or after a
 * later one, ends in the same timelines.
 */
export type FeedMessage =
  /**
   * One page of a post's fan-out: add the post to (or remove it from) the timelines of the
   * author's followers after `after` (keyset on follow time, follower id; null = first page). The
   * first page's consumer enqueues every other page at once (`split: true`), so pages are delivered
   * in parallel, not one queue hop after another.
   */
  | {
      kind: "fanout";
      op: "add" | "remove";
      postId: string;
      authorId: string;
      after: FollowerKeyset | null;
      split?: true;
      /**
       * When the post was published (ms, the `post.created` event's time), copied to every page:
       * the page holding the author's oldest followers (the last in keyset order) records publish →
       * its delivery for the operations view, and each page hands it to the badge hubs (a read
       * since then may count the post already). Absent on older messages and removals.
       */
      publishedAt?: number;
    }
  /**
   * A big account's post (`add`) or delete (`remove`), never fanned out: its consumer announces it
   * (`feed.big-posted`) for live badges, unless an `add`'s post was deleted while the message
   * waited in the queue (an `add` is sent BIG_POST_WINDOW_SECONDS late: a post deleted in that
   * window is never announced, so never counted by 64 hubs and then read back by them).
   */
  | { kind: "big-post"; op: "add" | "remove"; postId: string; authorId: string; /** As a fan-out page's; `add` only. */ publishedAt?: number }
  /** Make a follower's timeline agree with the latest follow intent for one followee (`feed-follow-sync`). */
  | FollowSyncMessage
  /**
   * One page of an account crossing the big-account threshold (`to: "big"`: its followers pull it
   * from now on; `"normal"`: its posts are pushed again). The first page (`after: null`) starts the
   * transition, the last one ends it.
   */
  | { kind: "transition"; authorId: string; to: "big" | "normal"; after: FollowerKeyset | null };

/** A feed message as the queues carry it: the message, and its budget deferrals if any (`src/lib/deferral.ts`). */
export type QueuedFeedMessage = Deferrable<FeedMessage>;

/** A follow's sync, the only message of the `feed-follow-sync` queue. */
export type FollowSyncMessage = { kind: "sync"; followerId: string; followeeId: string };

/** Where a page of followers starts: after this (follow time, follower id), newest first. */
export type FollowerKeyset = { createdAt: string; followerId: string };

/** The feed's queues as wrangler.toml names them (a test checks it); their consumer is `deliver`. */
export const FEED_QUEUES = { fanout: "feed-fanout", followSync: "feed-follow-sync" } as const;
/** Their dead-letter queues (one each, wrangler.toml); their consumer records what lands there. */
export const FEED_DEAD_LETTER_QUEUES = { fanout: "feed-fanout-dlq", followSync: "feed-follow-sync-dlq" } as const;

/** The dead-letter queue → the queue its messages came from (and are replayed to). */
const SOURCE_OF: ReadonlyMap<string, string> = new Map(
  (Object.keys(FEED_QUEUES) as (keyof typeof FEED_QUEUES)[]).map((k) => [FEED_DEAD_LETTER_QUEUES[k], FEED_QUEUES[k]]),
);

export function sourceQueueOf(deadLetterQueue: string): string | undefined {
  return SOURCE_OF.get(deadLetterQueue);
}

/** Followers per fan-out message: one Postgres page and one Redis round trip each. */
export const FANOUT_PAGE_SIZE = 1000;
/** Messages per `sendBatch` (the Queues limit). */
export const SEND_BATCH_LIMIT = 100;
/** Pages one fan-out enqueues at most (10,000,000 followers; big accounts are never fanned out). */
export const MAX_FANOUT_PAGES = 10_000;

/**
 * Seconds a big account's post waits before it is announced (the `big-post` `add`'s delivery
 * delay): the window in which its delete costs no announcement. The fan-out queue itself has no
 * batch window (wrangler.toml), so this delay is the announcement's only wait.
 */
export const BIG_POST_WINDOW_SECONDS = 1;
