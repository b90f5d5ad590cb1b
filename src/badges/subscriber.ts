import type { Subscriber } from "../lib/events";
import { followAuthor, publishPost, unfollowAuthor, unpublishPost, warmAuthorSeen } from "./authors";
import { addNotifications } from "./notifications";
import { pushChanged } from "./push";

/**
 * Relation changes that move badges: a follow bumps the followee's `follow` notifications and
 * starts the follower at the followee's current post count; posts move their author's count.
 * Live sockets of the users concerned are told once the event's scripts are in Redis.
 */
export const badgesSubscriber: Subscriber = {
  name: "badges",
  on: {
    "follow.created": async (e, s) => {
      const [, { added, epoch }] = await Promise.all([
        addNotifications(s.redis, e.followeeId, "follow", 1),
        followAuthor(s.redis, e.followerId, e.followeeId),
      ]);
      // No cache yet: build it now from Postgres (the new follow is committed), so posts published
      // between this follow and the first read are counted instead of absorbed by a later rebuild.
      // The epoch this follow moved to is the one the build must still see when it writes.
      if (!added) await warmAuthorSeen(s, e.followerId, epoch);
      s.waitUntil(pushChanged(s.env, [e.followeeId, e.followerId]));
    },
    "follow.deleted": async (e, s) => {
      await unfollowAuthor(s.redis, e.followerId, e.followeeId);
      s.waitUntil(pushChanged(s.env, [e.followerId]));
    },
    // Followers hear of a post through the feed's fan-out pages (src/feed/fanout.ts); the author's
    // own `feed` badge moved in this event's pipeline (the feed's publish script put the post on
    // their timeline, which the badge counts).
    "post.created": async (e, s) => {
      await publishPost(s.redis, e.authorId);
      s.waitUntil(pushChanged(s.env, [e.authorId]));
    },
    "post.deleted": async (e, s) => {
      await unpublishPost(s.redis, e.authorId);
      // The post left the author's own timeline: their `feed` badge counts one fewer if it was new.
      s.waitUntil(pushChanged(s.env, [e.authorId], ["feed"]));
    },
  },
};
