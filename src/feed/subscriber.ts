import { purgeAuthorsBetween } from "./purge";
import type { EventServices, Subscriber } from "../lib/events";
import { databaseOf } from "../lib/redis-topology";
import type { ScriptRunner } from "../lib/script-batch";
import { copyToOutboxes, tombstoneElsewhere } from "./everywhere";
import { postCopies } from "./post-copies";
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
import { BIG_POST_WINDOW_SECONDS, type FeedMessage } from "./messages";
import { CACHE_POST, PUBLISH_POST, UNPUBLISH_POST } from "./publish.lua";
import { SET_REACTION_FLAG } from "./reaction.lua";
import { encodeCachedPost, timelineCap } from "./timeline";
import { dropTrendingPosts } from "./trending";
import { errorText, log } from "../lib/log";

const script = (redis: ScriptRunner, source: string, keys: string[], args: (string | number)[]) =>
  redis.createScript(source).exec(keys, args.map(String));

const send = (s: EventServices, message: FeedMessage) => s.env.FEED_QUEUE.send(message);

/** A like/favourite event writes the reader's flag for that post (`l`/`v` + post id). */
const flagging = (prefix: "l" | "v", on: boolean) => async (e: { userId: string; postId: string }, s: EventServices) => {
  await script(s.redisFor(e.userId), SET_REACTION_FLAG, [feedKeys.flags(e.userId)], [`${prefix}${e.postId}`, on ? "1" : "0", TIMELINE_TTL_SECONDS, FLAGS_CAP]);
};

/**
 * The feed's reactions to relation changes. On the request path each is ONE script (joining the
 * event's single pipeline) plus, where followers are concerned, one queue message (`feed-fanout`
 * for posts; `feed-follow-sync` for follows):
 * - post.created: cache the post, put it on the author's own timeline; queue the fan-out (a big
 *   account's: queue its announcement).
 * - post.deleted: tombstone (hidden from every page at once), off the author's timeline and out of
 *   the stored trending lists; queue the removal (none for an account deletion's: `followersPurged`).
 * - follow.created: record the intent; queue the sync that copies the followee's newest posts.
 * - follow.deleted: drop the followee's posts from the timeline now (no queue needed).
 * - like/favourite: the reader's flag.
 * A script runs before the message is sent, so a consumer always finds the post cached or tombstoned
 * and the intent recorded.
 *
 * At N > 1 each script runs on its keys' database (`keys.ts`), the scripts of one event in one
 * round (one pipeline per database, in parallel): the author's timeline and the post's cache may be
 * on two databases; a delete's tombstone goes to every database (a reader's first round and every
 * fan-out page see it on their own); a big account's post is copied into every database's outbox in
 * one more round (rare: big accounts post little next to their readers' pages), its queued
 * announcement copies it again (a database down meanwhile gets it on the retry).
 */
export const feedSubscriber: Subscriber = {
  name: "feed",
  on: {
    // A block: each one's posts leave the other's timeline (a late fan-out is skipped by the follower's safety sets).
    "block.created": async (e, s) => {
      await purgeAuthorsBetween(s.emitter, e.blockerId, e.blockedId);
    },
    "post.created": async (e, s) => {
      const authorDb = databaseOf(e.authorId, s.databases);
      const cachedElsewhere = databaseOf(e.postId, s.databases) !== authorDb;
      const value = encodeCachedPost(e);
      const [state] = await Promise.all([
        script(
          s.redisFor(e.authorId),
          PUBLISH_POST,
          [feedKeys.post(e.postId), feedKeys.timeline(e.authorId), feedKeys.bigStates(), feedKeys.outbox(e.authorId), feedKeys.activity()],
          [value, POST_CACHE_TTL_SECONDS, timelineMember(e.postId, e.authorId), e.postId, timelineCap(s.env), OUTBOX_CAP, e.authorId, cachedElsewhere ? "0" : "1"],
        ),
        // A cache: its database being down must not hold the fan-out back (a page's miss reads Postgres).
        cachedElsewhere ? script(s.redisFor(e.postId), CACHE_POST, [feedKeys.post(e.postId)], [value, POST_CACHE_TTL_SECONDS]).catch(logCopyFailure("post cache", e.postId)) : null,
      ]);
      // N > 1: the outbox every reader merges is on every database (written while the message goes out).
      const copied = state !== "normal" && s.databases > 1 ? copyToOutboxes(s, e.postId, e.authorId, authorDb) : null;
      // A big account's followers pull its outbox: no fan-out (millions of writes) for its posts,
      // one message that announces it (live badges) once its window has passed.
      // publishedAt: the event's time, taken before this pipeline moved the published counts, so a
      // badge read that already counts the post ended after it (the hub's test in `posted`).
      if (state !== "big") await send(s, { kind: "fanout", op: "add", postId: e.postId, authorId: e.authorId, after: null, publishedAt: e.at });
      else await s.env.FEED_QUEUE.send({ kind: "big-post", op: "add", postId: e.postId, authorId: e.authorId, publishedAt: e.at }, { delaySeconds: BIG_POST_WINDOW_SECONDS });
      await copied;
    },
    "post.deleted": async (e, s) => {
      // This isolate's copy goes at once (other isolates' pages drop the post by its tombstone, in round 1).
      postCopies.forget(e.postId);
      // Every script starts now, so they share the event's one round trip (one pipeline per database).
      const authorDb = databaseOf(e.authorId, s.databases);
      const [state] = await Promise.all([
        script(
          s.redisFor(e.authorId),
          UNPUBLISH_POST,
          [feedKeys.post(e.postId), feedKeys.timeline(e.authorId), feedKeys.bigStates(), feedKeys.outbox(e.authorId)],
          [TOMBSTONE, TOMBSTONE_TTL_SECONDS, timelineMember(e.postId, e.authorId), e.authorId],
        ),
        dropTrendingPosts(s.redis, [e.postId]),
        // N > 1: the tombstone on every other database (a failed one is written again by the per-minute cron).
        s.databases > 1 ? tombstoneElsewhere(s, e.postId, e.authorId, authorDb).catch(logCopyFailure("tombstone", e.postId)) : null,
      ]);
      // An account deletion's post sends neither: its followers' timelines are purged of the author
      // at once (feed.timelines), and each follower's unfollow after has their open apps re-read
      // the badges, once per follower where an announcement per post would re-read every online
      // follower of a big account once per post.
      if (e.followersPurged) return;
      if (state !== "big") await send(s, { kind: "fanout", op: "remove", postId: e.postId, authorId: e.authorId, after: null });
      else await send(s, { kind: "big-post", op: "remove", postId: e.postId, authorId: e.authorId });
    },
    "follow.created": async (e, s) => {
      await script(s.redisFor(e.followerId), MARK_FOLLOW, [feedKeys.intent(e.followerId, e.followeeId)], [INTENT_TTL_SECONDS]);
      // Its own queue: a burst of follows queues syncs behind each other, never ahead of a post.
      await s.env.FEED_SYNC_QUEUE.send({ kind: "sync", followerId: e.followerId, followeeId: e.followeeId });
    },
    "follow.deleted": async (e, s) => {
      await script(
        s.redisFor(e.followerId),
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

const logCopyFailure = (what: string, postId: string) => (err: unknown) =>
  log.error({ message: `feed ${what} copy failed on a database`, postId, error: errorText(err) });
