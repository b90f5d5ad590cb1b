import type { EventServices, Subscriber } from "../lib/events";
import { MARK_FOLLOW, UNFOLLOW } from "./follow.lua";
import {
  feedKeys,
  FLAGS_CAP,
  INTENT_TTL_SECONDS,
  OUTBOX_CAP,
  POST_CACHE_TTL_SECONDS,
  TIMELINE_TTL_SECONDS,
  timelineMember,
  TOMBSTONE,
  TOMBSTONE_TTL_SECONDS,
} from "./keys";
import type { FeedMessage } from "./messages";
import { PUBLISH_POST, UNPUBLISH_POST } from "./publish.lua";
import { SET_REACTION_FLAG } from "./reaction.lua";
import { encodeCachedPost, timelineCap } from "./timeline";
import { dropTrendingPosts } from "./trending";

const script = (s: EventServices, source: string, keys: string[], args: (string | number)[]) =>
  s.redis.createScript(source).exec(keys, args.map(String));

const send = (s: EventServices, message: FeedMessage) => s.env.FEED_QUEUE.send(message);

/** A like/favourite event writes the reader's flag for that post (`l`/`v` + post id). */
const flagging = (prefix: "l" | "v", on: boolean) => async (e: { userId: string; postId: string }, s: EventServices) => {
  await script(s, SET_REACTION_FLAG, [feedKeys.flags(e.userId)], [`${prefix}${e.postId}`, on ? "1" : "0", TIMELINE_TTL_SECONDS, FLAGS_CAP]);
};

/**
 * The feed's reactions to relation changes. On the request path each is ONE script (joining the
 * event's single pipeline) plus, where followers are concerned, one queue message (`feed-fanout`
 * for posts; `feed-follow-sync` for follows):
 * - post.created: cache the post, put it on the author's own timeline; queue the fan-out (a big
 *   account's: queue its announcement).
 * - post.deleted: tombstone (hidden from every page at once), off the author's timeline and out of
 *   the stored trending lists; queue the removal.
 * - follow.created: record the intent; queue the sync that copies the followee's newest posts.
 * - follow.deleted: drop the followee's posts from the timeline now (no queue needed).
 * - like/favourite: the reader's flag.
 * A script runs before the message is sent, so a consumer always finds the post cached or tombstoned
 * and the intent recorded.
 */
export const feedSubscriber: Subscriber = {
  name: "feed",
  on: {
    "post.created": async (e, s) => {
      const state = await script(
        s,
        PUBLISH_POST,
        [feedKeys.post(e.postId), feedKeys.timeline(e.authorId), feedKeys.bigStates(), feedKeys.outbox(e.authorId), feedKeys.activity()],
        [encodeCachedPost(e), POST_CACHE_TTL_SECONDS, timelineMember(e.postId, e.authorId), e.postId, timelineCap(s.env), OUTBOX_CAP, e.authorId],
      );
      // A big account's followers pull its outbox: no fan-out (millions of writes) for its posts,
      // one message that announces it (live badges) once its queue window has passed.
      if (state !== "big") await send(s, { kind: "fanout", op: "add", postId: e.postId, authorId: e.authorId, after: null, publishedAt: Date.now() });
      else await send(s, { kind: "big-post", op: "add", postId: e.postId, authorId: e.authorId });
    },
    "post.deleted": async (e, s) => {
      // Both scripts start now, so they share the event's one round trip.
      const [state] = await Promise.all([
        script(
          s,
          UNPUBLISH_POST,
          [feedKeys.post(e.postId), feedKeys.timeline(e.authorId), feedKeys.bigStates(), feedKeys.outbox(e.authorId)],
          [TOMBSTONE, TOMBSTONE_TTL_SECONDS, timelineMember(e.postId, e.authorId), e.authorId],
        ),
        dropTrendingPosts(s.redis, [e.postId]),
      ]);
      if (state !== "big") await send(s, { kind: "fanout", op: "remove", postId: e.postId, authorId: e.authorId, after: null });
      else await send(s, { kind: "big-post", op: "remove", postId: e.postId, authorId: e.authorId });
    },
    "follow.created": async (e, s) => {
      await script(s, MARK_FOLLOW, [feedKeys.intent(e.followerId, e.followeeId)], [INTENT_TTL_SECONDS]);
      // Its own queue: a burst of follows queues syncs behind each other, never ahead of a post.
      await s.env.FEED_SYNC_QUEUE.send({ kind: "sync", followerId: e.followerId, followeeId: e.followeeId });
    },
    "follow.deleted": async (e, s) => {
      await script(
        s,
        UNFOLLOW,
        [feedKeys.timeline(e.followerId), feedKeys.intent(e.followerId, e.followeeId), feedKeys.unfollowEpoch(e.followerId), feedKeys.bigFollows(e.followerId)],
        [e.followeeId, INTENT_TTL_SECONDS, TIMELINE_TTL_SECONDS],
      );
    },
    "like.created": flagging("l", true),
    "like.deleted": flagging("l", false),
    "favorite.created": flagging("v", true),
    "favorite.deleted": flagging("v", false),
  },
};
