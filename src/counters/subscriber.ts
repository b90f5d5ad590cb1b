import type { EventReports, EventServices, Subscriber } from "../lib/events";
import { incrementCounters, type IncrementOutcome } from "./counters";
import type { CounterEntity } from "./registry";

/** One counter a relation moves. */
type Move = { entity: CounterEntity; id: string; field: string };

/** What each relation moves: +1 when it is created, −1 when it is deleted. */
const follow = (e: { followerId: string; followeeId: string }): Move[] => [
  { entity: "user", id: e.followeeId, field: "followers" },
  { entity: "user", id: e.followerId, field: "following" },
];
const post = (e: { authorId: string }): Move[] => [{ entity: "user", id: e.authorId, field: "posts" }];
const like = (e: { postId: string; authorId: string }): Move[] => [
  { entity: "post", id: e.postId, field: "likes" },
  { entity: "user", id: e.authorId, field: "likes_received" },
];
const favorite = (e: { postId: string }): Move[] => [{ entity: "post", id: e.postId, field: "favorites" }];

/**
 * A handler applying `moves` of the event by `delta`: one increment call, one Redis round trip.
 * Its report is the increment's outcome, whose `counts` hold the moved entities' values after it.
 * An event with an id is applied once per database (`once`): the bus's retry of a failed handler
 * completes the databases that failed without moving the others twice.
 */
function moving<E extends object>(moves: (event: E) => Move[], delta: 1 | -1) {
  return (event: E, services: EventServices): Promise<IncrementOutcome> =>
    incrementCounters(services, moves(event).map((m) => ({ ...m, delta })), undefined, { once: "id" in event ? String(event.id) : undefined });
}

/** The counters' report of one emitted event (see `moving`), if the counters subscriber ran. */
export function countersReport(reports: EventReports): IncrementOutcome | undefined {
  return reports.get(countersSubscriberName) as IncrementOutcome | undefined;
}

const countersSubscriberName = "counters";

/**
 * Relation changes move the relation-derived counters, both sides of a relation in one call.
 * Retried by the bus when it fails (deltas commute, and each database's part of a follow, like or
 * favourite is applied once: `moving`); a lost event is repaired by the reconcile.
 */
export const countersSubscriber: Subscriber = {
  name: countersSubscriberName,
  retried: true,
  on: {
    "follow.created": moving(follow, 1),
    "follow.deleted": moving(follow, -1),
    "post.created": moving(post, 1),
    "post.deleted": moving(post, -1),
    "like.created": moving(like, 1),
    "like.deleted": moving(like, -1),
    "favorite.created": moving(favorite, 1),
    "favorite.deleted": moving(favorite, -1),
  },
};
