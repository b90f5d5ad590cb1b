import type { Eraser } from "../lib/erasers";
import { pageStep } from "../lib/erasers";
import { queryRows } from "../lib/db";
import { deleteFollowListKeys } from "./follow-lists";
import { unfollow } from "./follows";
import { erasePost } from "./posts";
import { deleteProfileKeys } from "./profile";

/**
 * The social capability's erasers (docs/privacy.md), in the order a deletion runs them:
 * - `social.posts`: every post, live, held or already deleted, through `erasePost` (the delete
 *   path, its event emitted even for a post deleted before), newest first from the cursor, so the
 *   post.deleted event tombstones it and takes it out of outboxes, trending and every copy as any
 *   delete does (followers' timelines are purged of the author once, by the feed's
 *   `feed.timelines` eraser next, not per post), and a delete whose event was lost (a Redis
 *   failure after the row changed, in this deletion or before it) is done again;
 * - `social.follows`: every follow both ways through `unfollow`, so both users' counters move
 *   once each and the feed drops the followee's posts from the follower's timeline;
 * - `social.rows` (after the counters' eraser, which needs the post ids): the post rows, then the
 *   author's profile cache and its epoch (the post.deleted events emptied the cache already; a
 *   read between the steps may have built it again, of no live post), and the user's follower and
 *   following lists with their unfollow records and epochs (the follows eraser emptied the lists).
 */

/** Posts deleted per step: each is two statements and one event (its fan-out is queued, not waited for). */
export const POSTS_PER_STEP = 25;
/** Follows removed per step, per direction. */
export const FOLLOWS_PER_STEP = 50;
/** Post rows removed per step (one statement). */
export const POST_ROWS_PER_STEP = 500;

export const socialPostsEraser: Eraser = {
  name: "social.posts",
  async step(services, userId, cursor) {
    const rows = await queryRows<{ id: string }>(
      services.db,
      "SELECT id::text AS id FROM posts WHERE author_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ORDER BY posts.id DESC LIMIT $3",
      [userId, cursor !== null && /^\d+$/.test(cursor) ? cursor : null, POSTS_PER_STEP], // ("more": a cursor of before posts were walked by id)
    );
    for (const { id } of rows) await erasePost(services, userId, id);
    return pageStep(rows.length, rows.length === POSTS_PER_STEP, rows[rows.length - 1]?.id);
  },
};

export const socialFollowsEraser: Eraser = {
  name: "social.follows",
  async step(services, userId) {
    const following = await queryRows<{ id: string }>(services.db, "SELECT followee_id::text AS id FROM follows WHERE follower_id = $1 LIMIT $2", [userId, FOLLOWS_PER_STEP]);
    const followers = await queryRows<{ id: string }>(services.db, "SELECT follower_id::text AS id FROM follows WHERE followee_id = $1 LIMIT $2", [userId, FOLLOWS_PER_STEP]);
    let removed = 0;
    for (const { id } of following) if ((await unfollow(services, userId, id)).changed) removed++;
    for (const { id } of followers) if ((await unfollow(services, id, userId)).changed) removed++;
    return pageStep(removed, following.length === FOLLOWS_PER_STEP || followers.length === FOLLOWS_PER_STEP);
  },
};

export const socialRowsEraser: Eraser = {
  name: "social.rows",
  async step(services, userId) {
    const rows = await queryRows(
      services.db,
      "DELETE FROM posts WHERE id IN (SELECT id FROM posts WHERE author_id = $1 LIMIT $2) RETURNING 1",
      [userId, POST_ROWS_PER_STEP],
    );
    if (rows.length < POST_ROWS_PER_STEP) await Promise.all([deleteProfileKeys(services, userId), deleteFollowListKeys(services, userId)]);
    return pageStep(rows.length, rows.length === POST_ROWS_PER_STEP);
  },
};
