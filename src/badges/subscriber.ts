import type { Subscriber } from "../lib/events";
import { followAuthor, publishPost, unfollowAuthor, unpublishPost, warmAuthorSeen } from "./authors";
import { addNotifications } from "./notifications";

/**
 * Relation changes that move badges: a follow bumps the followee's `follow` notifications and
 * starts the follower at the followee's current post count; posts move their author's count.
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
    },
    "follow.deleted": async (e, s) => {
      await unfollowAuthor(s.redis, e.followerId, e.followeeId);
    },
    "post.created": async (e, s) => {
      await publishPost(s.redis, e.authorId);
    },
    "post.deleted": async (e, s) => {
      await unpublishPost(s.redis, e.authorId);
    },
  },
};
