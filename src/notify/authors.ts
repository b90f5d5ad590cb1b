import { onlineAmong } from "../badges/live";
import { type Database, queryBatch, queryRows } from "../lib/db";
import { ApiError } from "../lib/errors";
import type { Services } from "../lib/services";
import type { Alert } from "../lib/wire/alert";
import { resolveAlert, type ResolvedAlert } from "./alerts";
import { enqueueFor } from "./events";
import type { AuthorPageMessage } from "./send-message";
import { enqueuePushes } from "./sends";

/**
 * Posts of chosen followed authors, an opt-in push source. A user chooses which of the authors
 * they follow notify them (`/v1/me/notification-authors`, at most MAX_NOTIFY_AUTHORS); Postgres
 * `notify_author_choices` holds the choices with a reverse index by author. A post whose author
 * was chosen by someone (the post's own INSERT answers it from that index) enqueues one
 * `author-page` message after the response; its consumer pages the author's choosers
 * (AUTHOR_PAGE_SIZE per message, keyset on user id) and queues each one's push through the same
 * flow as every other kind (online users skipped, preferences, quiet hours, batch window).
 */

/** Most authors one user may choose: each costs a row, and a push per post of theirs. */
export const MAX_NOTIFY_AUTHORS = 100;
/** Choosers per `author-page` message: one Postgres page, one hub call per shard, one enqueue pass. */
export const AUTHOR_PAGE_SIZE = 500;
/** The default body: the start of the post's text. */
export const AUTHOR_BODY_EXCERPT = 140;

/**
 * The alert of a post's push: the post's fields, else "New post" and the start of its text. The
 * thread is the author's (`author:{authorId}`, or `author:{authorId}:{thread}` when the alert names
 * one), so an author's alert can never replace another source's push on a device.
 */
export function authorAlert(authorId: string, text: string, alert: Alert | undefined): ResolvedAlert {
  const excerpt = text.length > AUTHOR_BODY_EXCERPT ? `${text.slice(0, AUTHOR_BODY_EXCERPT - 1)}…` : text;
  const thread = alert?.thread === undefined ? `author:${authorId}` : `author:${authorId}:${alert.thread}`;
  return resolveAlert("author", { body: excerpt, ...alert, thread }, thread);
}

export type AuthorChoice = { authorId: string; chosenAt: string };
export type ChoiceChange = { authorId: string; chosen: boolean; changed: boolean };

/**
 * Chooses `authorId` for the user: 409 naming `authorId` when the user does not follow them or
 * already has MAX_NOTIFY_AUTHORS others. One batch (one request, one transaction): the user's
 * advisory lock (two choices at once cannot both slip under the cap), then one statement that
 * takes a share lock on the follow row (an unfollow waits for the commit, so its own delete of the
 * choice sees the row), drops the choices whose follow is gone (an unfollow's delete that failed,
 * so they never hold a place), counts the others and inserts only when both checks pass.
 */
export async function chooseAuthor(db: Database, userId: string, authorId: string): Promise<ChoiceChange> {
  const [, rows] = (await queryBatch(db, [
    { text: "SELECT pg_advisory_xact_lock(hashtextextended('notify_author_choices:' || $1, 0))", params: [userId] },
    {
      // The CTEs share one snapshot: `others` does not see `dangling`'s delete, so it leaves those rows out itself.
      text: `WITH follow AS (SELECT 1 FROM follows WHERE follower_id = $1 AND followee_id = $2 FOR SHARE),
        dangling AS (
          DELETE FROM notify_author_choices c WHERE c.user_id = $1
             AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = c.user_id AND f.followee_id = c.author_id)
          RETURNING c.author_id),
        others AS (
          SELECT count(*)::int AS n FROM notify_author_choices c
           WHERE c.user_id = $1 AND c.author_id <> $2 AND c.author_id NOT IN (SELECT author_id FROM dangling)),
        inserted AS (
          INSERT INTO notify_author_choices (user_id, author_id)
          SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM follow) AND (SELECT n FROM others) < $3
          ON CONFLICT DO NOTHING RETURNING 1)
        SELECT EXISTS (SELECT 1 FROM follow) AS follows, (SELECT n FROM others) AS others, EXISTS (SELECT 1 FROM inserted) AS inserted`,
      params: [userId, authorId, MAX_NOTIFY_AUTHORS],
    },
  ])) as [unknown, { follows: boolean; others: number; inserted: boolean }[]];
  const row = rows[0]!;
  if (!row.follows) throw new ApiError("conflict", `You do not follow ${authorId}`, [{ field: "authorId", message: "must be a user you follow" }]);
  if (row.others >= MAX_NOTIFY_AUTHORS) {
    throw new ApiError("conflict", `At most ${MAX_NOTIFY_AUTHORS} authors notify a user; remove one first`, [{ field: "authorId", message: `would be more than ${MAX_NOTIFY_AUTHORS}` }]);
  }
  return { authorId, chosen: true, changed: row.inserted };
}

/** Unchooses `authorId` (idempotent: `changed: false` when it was not chosen). */
export async function unchooseAuthor(db: Database, userId: string, authorId: string): Promise<ChoiceChange> {
  const rows = await queryRows(db, "DELETE FROM notify_author_choices WHERE user_id = $1 AND author_id = $2 RETURNING 1", [userId, authorId]);
  return { authorId, chosen: false, changed: rows.length > 0 };
}

/** The user's chosen authors they still follow, newest choice first (≤ MAX_NOTIFY_AUTHORS). */
export async function listChosenAuthors(db: Database, userId: string): Promise<AuthorChoice[]> {
  const rows = await queryRows<{ author_id: string; chosen_at: string | Date }>(
    db,
    `SELECT c.author_id::text AS author_id, c.chosen_at FROM notify_author_choices c
     WHERE c.user_id = $1 AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = c.user_id AND f.followee_id = c.author_id)
     ORDER BY c.chosen_at DESC, c.author_id DESC LIMIT ${MAX_NOTIFY_AUTHORS}`,
    [userId],
  );
  return rows.map((r) => ({ authorId: r.author_id, chosenAt: new Date(r.chosen_at).toISOString() }));
}

/**
 * An unfollow removes the choice. Only while the follow is still gone, so a late retry of this
 * (after a follow and a choice again) deletes nothing it should not.
 */
export async function dropChoiceAfterUnfollow(db: Database, userId: string, authorId: string): Promise<void> {
  await queryRows(
    db,
    `DELETE FROM notify_author_choices WHERE user_id = $1 AND author_id = $2
     AND NOT EXISTS (SELECT 1 FROM follows WHERE follower_id = $1 AND followee_id = $2)`,
    [userId, authorId],
  );
}

/** Starts a post's pushes: its first page, after the response (`waitUntil`; never the post's round trip). */
export function startAuthorPush(services: Pick<Services, "env">, post: { postId: string; authorId: string; alert: ResolvedAlert }): Promise<void> {
  return enqueuePushes(services.env, [{ body: { kind: "author-page", ...post, after: null } }]);
}

/**
 * One page of a post's choosers (still following, the post still live: a post deleted meanwhile
 * pushes no further), ordered by user id after `after`. One statement on the reverse index; one row
 * more than a page tells whether another page follows.
 */
async function chooserPage(db: Database, page: AuthorPageMessage, size: number): Promise<{ users: string[]; next: string | null }> {
  const rows = await queryRows<{ user_id: string }>(
    db,
    `SELECT c.user_id::text AS user_id FROM notify_author_choices c
     WHERE c.author_id = $1 AND ($2::bigint IS NULL OR c.user_id > $2::bigint)
       AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = c.user_id AND f.followee_id = c.author_id)
       AND EXISTS (SELECT 1 FROM posts p WHERE p.id = $3 AND p.deleted_at IS NULL)
     ORDER BY c.user_id LIMIT $4`,
    [page.authorId, page.after, page.postId, size + 1],
  );
  const users = rows.slice(0, size).map((r) => r.user_id);
  return { users, next: rows.length > size ? users[users.length - 1]! : null };
}

/**
 * The `author-page` consumer: this page's choosers not online (their hubs answer, one call per
 * shard) get the push queued as any kind's (devices, preferences, quiet hours, the author's batch
 * window); then the next page is queued. Returns the choosers it covered.
 */
export async function expandAuthorPage(services: Services, page: AuthorPageMessage, size = AUTHOR_PAGE_SIZE): Promise<{ users: number; next: string | null }> {
  const { users, next } = await chooserPage(services.db, page, size);
  if (users.length > 0) {
    // Only the answer is needed (read-free): the post reaches the open apps through its fan-out pages.
    const online = await onlineAmong(services.env, users);
    await enqueueFor(services, users.filter((u) => !online.has(u)), { kind: "author", alert: page.alert, thread: page.alert.thread, authorId: page.authorId });
  }
  if (next !== null) await enqueuePushes(services.env, [{ body: { ...page, after: next } }]);
  return { users: users.length, next };
}
