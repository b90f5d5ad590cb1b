import type { Subscriber } from "../lib/events";
import { incrementCounters } from "./counters";

/**
 * Relation changes move the relation-derived counters. Each handler is one increment call (one
 * Redis round trip, both sides of the relation at once). A lost event is repaired by the reconcile.
 */
export const countersSubscriber: Subscriber = {
  name: "counters",
  on: {
    "follow.created": async (e, s) => {
      await incrementCounters(s, [
        { entity: "user", id: e.followeeId, field: "followers", delta: 1 },
        { entity: "user", id: e.followerId, field: "following", delta: 1 },
      ]);
    },
    "follow.deleted": async (e, s) => {
      await incrementCounters(s, [
        { entity: "user", id: e.followeeId, field: "followers", delta: -1 },
        { entity: "user", id: e.followerId, field: "following", delta: -1 },
      ]);
    },
    "post.created": async (e, s) => {
      await incrementCounters(s, [{ entity: "user", id: e.authorId, field: "posts", delta: 1 }]);
    },
    "post.deleted": async (e, s) => {
      await incrementCounters(s, [{ entity: "user", id: e.authorId, field: "posts", delta: -1 }]);
    },
    "like.created": async (e, s) => {
      await incrementCounters(s, [
        { entity: "post", id: e.postId, field: "likes", delta: 1 },
        { entity: "user", id: e.authorId, field: "likes_received", delta: 1 },
      ]);
    },
    "like.deleted": async (e, s) => {
      await incrementCounters(s, [
        { entity: "post", id: e.postId, field: "likes", delta: -1 },
        { entity: "user", id: e.authorId, field: "likes_received", delta: -1 },
      ]);
    },
    "favorite.created": async (e, s) => {
      await incrementCounters(s, [{ entity: "post", id: e.postId, field: "favorites", delta: 1 }]);
    },
    "favorite.deleted": async (e, s) => {
      await incrementCounters(s, [{ entity: "post", id: e.postId, field: "favorites", delta: -1 }]);
    },
  },
};
