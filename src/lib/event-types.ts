import type { Alert } from "./wire/alert";

/**
 * Domain events: every relation change emits one after its Postgres commit. Capabilities
 * (counters, badges, feeds) subscribe here instead of being called from the routes, so the
 * routes never change when a new capability plugs in. A capability also announces here what it
 * did that others react to (the feed: a post reached these followers, a first page was read; the
 * badges: a notification was counted, a badge was read), so the one that reacts (live badges,
 * notify's pushes) depends on the event, not on the announcer's code, and the announcer depends on
 * no subscriber.
 */
export type DomainEvent = RelationEvent | FeedEvent | BadgesEvent;

/** A follower a fan-out page reached: `landed` when the post was new to their timeline. */
export type FeedReach = { userId: string; landed: boolean };

/**
 * What the feed announces (after the Redis write it reports):
 * - feed.delivered: one fan-out page of a post reached these followers (`add`: the ones still
 *   following; `remove`: the page's followers, whose timelines dropped the post);
 * - feed.first-page-read: a read of the user's first page moved the `feed` badge's marker (or
 *   built the timeline);
 * - feed.big-posted: a big account posted (`add`; not announced when the post was deleted while
 *   its message waited in the queue) or deleted a post (`remove`); its followers are never walked;
 * - feed.timelines-changed: these users' timelines or pulled sets of big accounts changed other
 *   than by a post (a follow's sync, a page of a big-account transition).
 */
export type FeedEvent =
  | { type: "feed.delivered"; op: "add" | "remove"; postId: string; authorId: string; followers: FeedReach[]; publishedAt?: number; at: number }
  | { type: "feed.first-page-read"; userId: string; at: number }
  | { type: "feed.big-posted"; op: "add" | "remove"; postId: string; authorId: string; publishedAt?: number; at: number }
  | { type: "feed.timelines-changed"; userIds: string[]; at: number };

/**
 * What the badges announce for notify's pushes to closed apps, once the write is in Redis and the
 * badge hubs answered who has the app open (`online`: they saw the change on their socket), in the
 * write's `waitUntil` as the push was before:
 * - badges.notified: `notificationType` notifications counted for `userId` (a service's
 *   `POST /v1/users/{id}/notifications`, a follow), caused by `from`;
 * - badges.dm: direct messages from `from` counted for `userId`;
 * - badges.stream-item: an item (by `from`) recorded in a stream whose members' badges moved;
 * - badges.inbox-sent: inbox message `messageId`, titled `title`, sent to `userIds`;
 * - badges.broadcast-sent: a broadcast asked for a push (`push: true`); no hub answer: its pages
 *   ask the hubs themselves;
 * - badges.read: `userId` read something the app's icon counts (its unread total fell).
 * `alert` is the write's own (what a push shows). None has an `id`, so the bus never runs a handler
 * of them twice: a push retried could reach a device twice, and a failed one is logged and dropped
 * as every badge push is.
 */
export type BadgesEvent =
  | { type: "badges.notified"; userId: string; notificationType: string; alert?: Alert; from?: string; online: boolean; at: number }
  | { type: "badges.dm"; userId: string; from: string; alert?: Alert; online: boolean; at: number }
  | { type: "badges.stream-item"; streamKind: string; streamId: string; userIds: string[]; online: string[]; from?: string; alert?: Alert; at: number }
  | { type: "badges.inbox-sent"; messageId: string; title: string; userIds: string[]; online: string[]; alert?: Alert; at: number }
  | { type: "badges.broadcast-sent"; broadcastId: string; title: string; body: string; alert?: Alert; at: number }
  | { type: "badges.read"; userId: string; at: number };

/**
 * A follow, like or favourite touches the databases of two owners or more (the followee's and the
 * follower's; the post's, its author's and the liker's). Its `id` (`newEventId`) names this one
 * change: a subscriber applying it keys each database's part by it, so a retry of the event
 * completes the parts that failed and skips those already applied (src/lib/events.ts).
 */
export type RelationEvent =
  // followeeHasDevices: whether a push to the followee can go anywhere (absent in events from before it: then yes).
  // createdAtUs: the follow row's created_at in µs since the epoch (decimal), from the INSERT's or
  // DELETE's RETURNING: the follow lists' caches order and match edges by it (absent in events from before it).
  | { type: "follow.created"; id: string; followerId: string; followeeId: string; at: number; followeeHasDevices?: boolean; followeeMutesFollower?: boolean; createdAtUs?: string }
  | { type: "follow.deleted"; id: string; followerId: string; followeeId: string; at: number; createdAtUs?: string }
  // A block stored (safety): every capability ends what it holds between the two (social: both
  // follows, through two unfollows). Emitted on every PUT, repeats included, so a retry completes.
  | { type: "block.created"; id: string; blockerId: string; blockedId: string; at: number }
  // A moderator acted on reported posts (safety): social removes them through the post delete
  // path (`remove`) or publishes held ones as if just posted (`publish`). Idempotent per post.
  // A user was suspended (safety): what they hold open closes (badges: their sockets, 4003).
  | { type: "user.suspended"; userId: string; at: number }
  | { type: "moderation.posts"; id: string; op: "remove" | "publish"; postIds: string[]; moderatorId: string; at: number }
  | {
      type: "post.created";
      postId: string;
      authorId: string;
      text: string;
      createdAt: string;
      at: number;
      /** What a push to the users who chose this author shows (`POST /v1/posts`' optional `alert`). */
      alert?: Alert;
      /** Someone chose to be told of this author's posts (`notify_author_choices`), as the post's INSERT saw it. */
      chosen?: boolean;
      /** A held post an operator published (`publishHeldPost`), not a new one: its author's profile cache replaces the held entry, if it still has it. */
      published?: true;
    }
  | {
      type: "post.deleted";
      postId: string;
      authorId: string;
      at: number;
      /**
       * An account deletion's: the feed sends no removal fan-out for it, because the deletion's
       * `feed.timelines` eraser purges all of the author's posts from every follower's timeline
       * in one pass (the tombstone hides the post until then).
       */
      followersPurged?: true;
    }
  | { type: "like.created"; id: string; userId: string; postId: string; authorId: string; at: number }
  | { type: "like.deleted"; id: string; userId: string; postId: string; authorId: string; at: number }
  | { type: "favorite.created"; id: string; userId: string; postId: string; authorId: string; at: number }
  | { type: "favorite.deleted"; id: string; userId: string; postId: string; authorId: string; at: number };

/** A fresh event id: 12 random bytes, hex (unique per change; a retry reuses its event's). */
export function newEventId(): string {
  return [...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export type DomainEventType = DomainEvent["type"];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;
