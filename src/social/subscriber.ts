import { ApiError } from "../lib/errors";
import type { Subscriber } from "../lib/events";
import { writeFollowEdge } from "./follow-lists";
import { unfollow } from "./follows";
import { deletePost, publishHeldPost } from "./posts";
import { writeProfile } from "./profile";

/**
 * What the social graph does when another capability says so: a block ends both follows, exactly as
 * two unfollows would (their `follow.deleted` events move the counters, badges and feed as any
 * unfollow does); a moderator's action removes or publishes reported posts. Safety announces
 * both; it never calls into social.
 *
 * Its own posts' events keep the author's profile cache exact (`profile.ts`): one script on the
 * author's database, in the round the event's other scripts share. A new post is added, a
 * published held post replaces its held entry, a deleted one (by its author, an admin, a
 * moderator or the account's deletion) leaves. A held post has no event: `createPost` writes it.
 */
export const socialSubscriber: Subscriber = {
  name: "social",
  on: {
    "post.created": async (e, s) => {
      const post = { id: e.postId, text: e.text, createdAt: e.createdAt };
      await writeProfile(s.redisFor(e.authorId), s.emitter, s.env, e.authorId, e.published ? { op: "publish", post } : { op: "add", post, held: false });
    },
    "post.deleted": async (e, s) => {
      await writeProfile(s.redisFor(e.authorId), s.emitter, s.env, e.authorId, { op: "remove", postId: e.postId });
    },
    "block.created": async (e, s) => {
      // On the emitter's services: each unfollow emits its own event, whose subscribers batch their own scripts.
      await Promise.all([unfollow(s.emitter, e.blockerId, e.blockedId), unfollow(s.emitter, e.blockedId, e.blockerId)]);
    },
    // A moderator's action on reported posts: each removed as an admin deleting it (a post already
    // gone is fine), or a held one published as if just posted; one after another, as the moderator would.
    "moderation.posts": async (e, s) => {
      for (const postId of e.postIds) {
        if (e.op === "publish") await publishHeldPost(s.emitter, postId);
        else
          await deletePost(s.emitter, { userId: e.moderatorId, role: "admin" }, postId).catch((err: unknown) => {
            if (!(err instanceof ApiError && err.code === "not_found")) throw err;
          });
      }
    },
  },
};

/**
 * The follower and following list caches (`follow-lists.ts`): a follow or unfollow (a block's and
 * an account deletion's included: they unfollow) writes the followee's followers list and the
 * follower's following list, one script on each owner's database, in the round the event's other
 * scripts share. `retried`: the writes commute (an edge is matched by its pair and follow time, an
 * unfollow is remembered for late events), so one that failed is applied again by the bus.
 */
export const followListsSubscriber: Subscriber = {
  name: "social.follow-lists",
  retried: true,
  on: {
    "follow.created": (e, s) => writeFollowEdge(s, "add", e),
    "follow.deleted": (e, s) => writeFollowEdge(s, "rem", e),
  },
};
