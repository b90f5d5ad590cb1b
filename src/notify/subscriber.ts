import type { Subscriber } from "../lib/events";
import { errorText, log } from "../lib/log";
import { resolveAlert } from "./alerts";
import { authorAlert, dropChoiceAfterUnfollow, startAuthorPush, unchooseAuthor } from "./authors";
import { startBroadcastPush } from "./broadcast";
import { badgeAfterRead, notificationEvent, pushToOffline } from "./events";

/**
 * Relation changes that move pushes:
 * - post.created: when someone chose the author (the post's INSERT said so), the first page of
 *   their push is queued after the response (`waitUntil`): the post's round trip waits for nothing
 *   of it, and a post of an author nobody chose does nothing here at all.
 * - follow.deleted: the choice of that author goes with the follow (one Postgres statement, only
 *   while the follow is still gone, so the bus may retry it however late).
 *
 * What the badges announce, in the write's `waitUntil` once the hubs said who is online: a push to
 * the users not online (`pushToOffline`: devices, preferences, windows), or, after a read, the
 * icon's badge-only update. Each thread is the kind's and target's unless the alert names one.
 */
export const notifySubscriber: Subscriber = {
  name: "notify",
  retried: true,
  on: {
    // A block: each one's choice of the other as a notifying author ends.
    "block.created": async (e, s) => {
      await Promise.all([unchooseAuthor(s.db, e.blockerId, e.blockedId), unchooseAuthor(s.db, e.blockedId, e.blockerId)]);
    },
    "post.created": async (e, s) => {
      if (!e.chosen) return;
      const post = { postId: e.postId, authorId: e.authorId, alert: authorAlert(e.authorId, e.text, e.alert) };
      // A lost enqueue is a lost push, never a lost post: logged.
      s.waitUntil(startAuthorPush(s, post).catch((err: unknown) => log.error({ message: "author push enqueue failed", ...post, error: errorText(err) })));
    },
    "follow.deleted": async (e, s) => {
      await dropChoiceAfterUnfollow(s.db, e.followerId, e.followeeId);
    },
    "badges.notified": (e, s) => pushToOffline(s, [e.userId], e.online, notificationEvent(e.notificationType, e.alert, e.from)),
    "badges.dm": (e, s) => pushToOffline(s, [e.userId], e.online, { kind: "dm", alert: e.alert, thread: `dm:${e.from}`, from: e.from }),
    // Every member but the item's author.
    "badges.stream-item": (e, s) => pushToOffline(s, e.userIds.filter((u) => u !== e.from), new Set(e.online), { kind: "stream", alert: e.alert, thread: `stream:${e.streamKind}:${e.streamId}` }),
    // What the alert leaves out is the message's own: an alert that only adds a url keeps its title.
    "badges.inbox-sent": (e, s) => pushToOffline(s, e.userIds, new Set(e.online), { kind: "inbox", alert: { title: e.title, ...e.alert }, thread: `inbox:${e.messageId}` }),
    // What the alert leaves out is the broadcast's own: an alert that only adds a url keeps its title and body.
    "badges.broadcast-sent": (e, s) => startBroadcastPush(s, e.broadcastId, resolveAlert("broadcast", { title: e.title, body: e.body, ...e.alert }, `broadcast:${e.broadcastId}`)),
    "badges.read": (e, s) => badgeAfterRead(s, e.userId),
  },
};
