import type { Subscriber } from "../lib/events";
import { followAuthor, publishPost, unfollowAuthor, unpublishPost, warmAuthorSeen } from "./authors";
import { addNotifications } from "./notifications";
import { hubOf, pushBigPost, pushChanged, pushing, pushPosted } from "./live";
import { announce } from "./announce";
import { dropBlockedPeers } from "./dms";

/**
 * Relation changes that move badges: a follow bumps the followee's `follow` notifications and
 * starts the follower at the followee's current post count; posts move their author's count.
 * Live sockets of the users concerned are told once the event's scripts are in Redis; a followee
 * with no open socket gets the push a `follow` notification would (announced: `badges.notified`).
 * What the feed announces moves live sockets only (the badges read model reads the feed's keys at
 * read time): a fan-out page's followers, a first-page read.
 */
/** What a follow's push shows by default: the type's thread (`notification:follow`) collapses a burst of them. */
const FOLLOW_ALERT = { title: "New follower" } as const;

export const badgesSubscriber: Subscriber = {
  name: "badges",
  on: {
    // A block: each one's unread DMs from the other leave their DM count, and both users' live
    // sockets re-read their badges (the DMs, and the unread per author the block's unfollows moved).
    "block.created": async (e, s) => {
      await dropBlockedPeers(s.emitter, e.blockerId, e.blockedId);
      s.waitUntil(pushChanged(s.env, [e.blockerId, e.blockedId]));
    },
    // A suspended user's badge sockets close at once (4003), on the hub shard holding them; a failure is logged, the upgrade is refused anyway.
    "user.suspended": async (e, s) => {
      await hubOf(s.env, e.userId).closeUser(e.userId);
    },
    "follow.created": async (e, s) => {
      // The followee's `follow` notification is from the follower: a mute of their notifications
      // keeps it away, as it does every notification naming them (a block refused the follow). The
      // follow's own statement answered whether there is one (`followeeMutesFollower`), so this
      // stays in the follow's one round.
      const muted = e.followeeMutesFollower === true;
      const [, { added, epoch }] = await Promise.all([
        muted ? undefined : addNotifications(s.redisFor(e.followeeId), e.followeeId, "follow", 1),
        followAuthor(s.redisFor(e.followerId), e.followerId, e.followeeId),
      ]);
      // No cache yet: build it now from Postgres (the new follow is committed), so posts published
      // between this follow and the first read are counted instead of absorbed by a later rebuild.
      // The epoch this follow moved to is the one the build must still see when it writes.
      if (!added) await warmAuthorSeen(s, e.followerId, epoch);
      // The followee's closed apps hear of it as of any `follow` notification (preferences, the
      // type's batch window, the icon at the unread total), after the response: the hubs' answer
      // says who is online, and only the others get a push.
      // A followee with no device is only told through the hubs, as before.
      if (muted) s.waitUntil(pushChanged(s.env, [e.followerId]));
      else if (e.followeeHasDevices === false) s.waitUntil(pushChanged(s.env, [e.followeeId, e.followerId]));
      else pushing(s, [e.followeeId, e.followerId], undefined, undefined, (online) => announce(s, { type: "badges.notified", userId: e.followeeId, notificationType: "follow", alert: FOLLOW_ALERT, from: e.followerId, online: online.has(e.followeeId) }));
    },
    "follow.deleted": async (e, s) => {
      await unfollowAuthor(s.redisFor(e.followerId), e.followerId, e.followeeId);
      s.waitUntil(pushChanged(s.env, [e.followerId]));
    },
    // Followers hear of a post through the feed's fan-out pages (`feed.delivered`); the author's
    // own `feed` badge moved in this event's pipeline (the feed's publish script put the post on
    // their timeline, which the badge counts).
    "post.created": async (e, s) => {
      // Every database's published count moves (one script each, in its database's pipeline).
      await publishPost(s, e.authorId);
      s.waitUntil(pushChanged(s.env, [e.authorId]));
    },
    "post.deleted": async (e, s) => {
      await unpublishPost(s, e.authorId);
      // The post left the author's own timeline: their `feed` badge counts one fewer if it was new.
      s.waitUntil(pushChanged(s.env, [e.authorId], ["feed"]));
    },
    // One fan-out page: `add` moves each follower's `authors` in place and has their hub read `feed`
    // where the post was new to the timeline; `remove` has the hubs read both.
    "feed.delivered": async (e, s) => {
      if (e.op === "add") s.waitUntil(pushPosted(s.env, e.followers.map((f) => ({ userId: f.userId, feed: f.landed })), e.publishedAt));
      else s.waitUntil(pushChanged(s.env, e.followers.map((f) => f.userId)));
    },
    // The marker moved (or the timeline was built): `feed` alone is read, for the user's sockets
    // (the same read tells the hub which big accounts they follow).
    "feed.first-page-read": async (e, s) => {
      s.waitUntil(pushChanged(s.env, [e.userId], ["feed"]));
    },
    // A big account's post or delete: one call per hub shard, whatever its follower count.
    "feed.big-posted": async (e, s) => {
      s.waitUntil(pushBigPost(s.env, { op: e.op, authorId: e.authorId, postId: e.postId, publishedAt: e.publishedAt }));
    },
    // A follow's sync or a transition page moved these users' timelines or pulled sets: a full read.
    "feed.timelines-changed": async (e, s) => {
      s.waitUntil(pushChanged(s.env, e.userIds));
    },
  },
};
