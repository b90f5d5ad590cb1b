import type { Subscriber } from "../lib/events";
import { errorText, log } from "../lib/log";
import { authorAlert, dropChoiceAfterUnfollow, startAuthorPush } from "./authors";

/**
 * Relation changes that move pushes:
 * - post.created: when someone chose the author (the post's INSERT said so), the first page of
 *   their push is queued after the response (`waitUntil`): the post's round trip waits for nothing
 *   of it, and a post of an author nobody chose does nothing here at all.
 * - follow.deleted: the choice of that author goes with the follow (one Postgres statement, only
 *   while the follow is still gone, so the bus may retry it however late).
 */
export const notifySubscriber: Subscriber = {
  name: "notify",
  retried: true,
  on: {
    "post.created": async (e, s) => {
      if (!e.chosen) return;
      const post = { postId: e.postId, authorId: e.authorId, alert: authorAlert(e.authorId, e.text, e.alert) };
      // A lost enqueue is a lost push, never a lost post: logged.
      s.waitUntil(startAuthorPush(s, post).catch((err: unknown) => log.error({ message: "author push enqueue failed", ...post, error: errorText(err) })));
    },
    "follow.deleted": async (e, s) => {
      await dropChoiceAfterUnfollow(s.db, e.followerId, e.followeeId);
    },
  },
};
