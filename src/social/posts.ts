import { and, desc, eq, isNotNull, isNull, lt, sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import type { Caller } from "../lib/auth";
import { ApiError, DependencyUnavailableError } from "../lib/errors";
import { errorText, log } from "../lib/log";
import { isBudgetRefusal, isRedisOutage } from "../lib/redis-failures";
import { blockedAmong } from "../safety/cache";
import { isId } from "../lib/ids";
import { decodeCursor, toPage } from "../lib/pagination";
import type { Services } from "../lib/services";
import type { Alert } from "../lib/wire/alert";
import { authorIsChosen } from "../notify/probes";
import { queryRows } from "../lib/db";
import { isSuspended, moderationCopy } from "../safety/copy";
import { matchedTerm } from "../safety/filter";
import { reportHeldPost } from "../safety/reports";
import { blockBetweenSql, blockedError } from "../safety/store";
import { buildProfileLater, readProfile, writeProfile } from "./profile";
import { posts } from "./schema";

export type Post = { id: string; authorId: string; text: string; createdAt: string };
/** A new post as its author gets it back: `held` when the term filter holds it for an operator. */
export type CreatedPost = Post & { held?: true };

const postColumns = { id: posts.id, authorId: posts.authorId, text: posts.text, createdAt: posts.createdAt };

function toPost(row: { id: bigint; authorId: string; text: string; createdAt: string }): Post {
  return { id: row.id.toString(), authorId: row.authorId, text: row.text, createdAt: isoTimestamp(row.createdAt) };
}

/**
 * Creates a post. `alert` is what a push to the users who chose this author shows. The INSERT also
 * answers whether anyone chose the author (notify's index probe, in the same statement), so a post
 * of an author nobody chose costs the push source nothing.
 *
 * A text matching one of the operators' terms (the isolate's copy: no round trip) is stored held:
 * no `post.created` event (so no fan-out, trending or push), shown to its author only, and listed
 * as an automatic report; an operator's `approve` publishes it (`publishHeldPost`). With no event,
 * its author's profile cache gets its held entry here, beside the report (a failure there is
 * logged: the post stands, and the cache is dropped for the next read to rebuild).
 */
export async function createPost(services: Services, authorId: string, text: string, alert?: Alert): Promise<CreatedPost> {
  const term = matchedTerm(await moderationCopy(services), text);
  const [row] = await services.db
    .insert(posts)
    .values({ authorId, text, ...(term === null ? {} : { heldAt: sql`now()` }) })
    .returning({ ...postColumns, chosen: authorIsChosen(authorId) });
  const post = toPost(row!);
  if (term !== null) {
    await Promise.all([
      reportHeldPost(services, post, term),
      writeProfile(services.redisFor(authorId), services, services.env, authorId, { op: "add", post, held: true }).catch((err: unknown) =>
        log.warn({ message: "held post not written to its author's profile cache", postId: post.id, error: errorText(err) }),
      ),
    ]);
    return { ...post, held: true };
  }
  await emitCreated(services, post, row!.chosen, alert);
  return post;
}

function emitCreated(services: Services, post: Post, chosen: boolean, alert?: Alert, published?: true) {
  return services.events.emit(
    { type: "post.created", postId: post.id, authorId: post.authorId, text: post.text, createdAt: post.createdAt, at: Date.now(), ...(alert ? { alert } : {}), chosen, ...(published ? { published } : {}) },
    services,
  );
}

/**
 * Publishes a held post as if just posted: the hold is cleared and `post.created` emitted then
 * (fan-out, trending, the author's pushes). Once: false when it was not held (or is deleted).
 */
export async function publishHeldPost(services: Services, postId: string): Promise<boolean> {
  const [row] = await services.db
    .update(posts)
    .set({ heldAt: null })
    .where(and(eq(posts.id, BigInt(postId)), isNull(posts.deletedAt), isNotNull(posts.heldAt)))
    .returning({ ...postColumns, chosen: authorIsChosen(posts.authorId) });
  if (!row) return false;
  await emitCreated(services, toPost(row), row.chosen, undefined, true);
  return true;
}

/** A live post, held or not, whoever wrote it (the author's and the operators' paths). */
type PostRow = { id: string | null; author_id: string | null; text: string | null; created_at: string | null; blocked: boolean };
const rowToPost = (row: PostRow): Post => ({ id: row.id!, authorId: row.author_id!, text: row.text!, createdAt: isoTimestamp(row.created_at!) });

/** Soft-deletes a post; only its author or an admin may. */
export async function deletePost(services: Services, caller: Caller, postId: string): Promise<{ id: string; deleted: true }> {
  // One statement (one round): the author check and the delete together. The deleted_at guard
  // makes the delete (and its event) happen once even when two race; `author_id` is what the
  // statement's snapshot saw (null: no live post by that id).
  const [row] = await queryRows<{ author_id: string | null; deleted: boolean }>(
    services.db,
    `WITH target AS (SELECT author_id FROM posts WHERE id = $1 AND deleted_at IS NULL),
     deleted AS (
       UPDATE posts SET deleted_at = now()
        WHERE id = $1 AND deleted_at IS NULL AND (author_id::text = $2 OR $3::boolean)
        RETURNING 1)
     SELECT (SELECT author_id::text FROM target) AS author_id, EXISTS (SELECT 1 FROM deleted) AS deleted`,
    [postId, caller.userId, caller.role === "admin"],
  );
  if (!row?.author_id) throw new ApiError("not_found", `Post ${postId} not found`);
  if (!row.deleted && row.author_id !== caller.userId && caller.role !== "admin") {
    throw new ApiError("forbidden", "Only the author or an admin may delete this post");
  }
  if (row.deleted) {
    await services.events.emit({ type: "post.deleted", postId, authorId: row.author_id, at: Date.now() }, services);
  }
  return { id: postId, deleted: true };
}

/**
 * An account deletion's delete of one of the user's posts (src/social/erase.ts), live, held or
 * deleted already: the row is soft-deleted as `deletePost` does, and `post.deleted` is emitted
 * whether or not this call changed the row, failing the call when a subscriber fails. A delete
 * whose event was lost (Redis failing after the row changed: `emit` only logs) or that an earlier
 * try of the same step half did is so carried out again: every subscriber's part is a removal,
 * and the counts it moves twice are the user's own, which the deletion removes afterwards. The
 * event says `followersPurged`: the deletion purges the author from every follower's timeline in
 * one pass afterwards, so the feed sends no removal fan-out per post.
 */
export async function erasePost(services: Services, authorId: string, postId: string): Promise<void> {
  await services.db
    .update(posts)
    .set({ deletedAt: sql`now()` })
    .where(and(eq(posts.id, BigInt(postId)), isNull(posts.deletedAt)));
  await services.events.emitOrFail({ type: "post.deleted", postId, authorId, at: Date.now(), followersPurged: true }, services);
}

/**
 * Live posts of an author, newest first; ids only grow, so the id alone is the cursor. Held posts
 * only when the author reads their own (`viewerId`); nothing while the author is suspended (the
 * isolate's copy: no round trip). With another reader's token, 403 `blocked` when a block stands
 * between the reader and the author, either way.
 *
 * Near the user (docs/social.md "Profiles"): the author's profile cache answers the page in one
 * read-only call on the author's database, side by side with the block check (safety's
 * `blockedAmong`, read-only on the reader's database): no Postgres, nothing for the primary. A
 * page below a partial cache's oldest entry, a miss or a Redis outage reads Postgres (the
 * statements below); after a miss's answer the cache is built.
 */
export async function listPostsByAuthor(services: Services, authorId: string, page: { limit: number; cursor?: string }, viewerId?: string) {
  const before = page.cursor ? decodePostCursor(page.cursor) : undefined;
  const own = viewerId === authorId;
  if (!own && isSuspended(await moderationCopy(services), authorId)) return { items: [], nextCursor: null };
  const other = viewerId !== undefined && !own;
  const [cached, blocked] = await Promise.all([
    readProfile(services, authorId, before, page.limit + 1, own).catch(redisDown),
    other ? blockedAmong(services, viewerId, [authorId]).then((ids) => ids.has(authorId), redisDown) : false,
  ]);
  if (blocked === true) throw blockedError("You cannot read this user's posts");
  if (cached !== "redis down" && "posts" in cached && blocked === false) {
    if (cached.renew) buildProfileLater(services, authorId, cached.renew.epoch);
    return toPage(cached.posts, page.limit, (p) => p, (p) => [p.id]);
  }
  const answer = await listPostsFromPostgres(services, authorId, before, page.limit, viewerId);
  // A partial cache with no entry left is built again too (its epoch read by the build itself).
  if (cached !== "redis down" && ("miss" in cached || ("past" in cached && cached.rebuild))) buildProfileLater(services, authorId, "miss" in cached ? cached.epoch : undefined);
  return answer;
}

/** A Redis outage or budget refusal on the read path answers from Postgres (the caches are caches); anything else fails the read. */
function redisDown(err: unknown): "redis down" {
  if ((err instanceof DependencyUnavailableError && err.dependency === "redis") || isRedisOutage(err) || isBudgetRefusal(err)) return "redis down";
  throw err;
}

/** The page from Postgres: the statements every read made before the profile cache. */
async function listPostsFromPostgres(services: Services, authorId: string, before: bigint | undefined, limit: number, viewerId?: string) {
  if (viewerId !== undefined && viewerId !== authorId) {
    // One row at least (the block flag), the page's posts joined to it when no block stands.
    const rows = await queryRows<PostRow>(
      services.db,
      `WITH b AS (SELECT EXISTS (${blockBetweenSql("$1::bigint", "$2::bigint")}) AS blocked)
       SELECT p.id::text AS id, p.author_id::text AS author_id, p.text, p.created_at::text AS created_at, b.blocked
         FROM b LEFT JOIN LATERAL (
           SELECT id, author_id, text, created_at FROM posts
            WHERE author_id = $2 AND deleted_at IS NULL AND held_at IS NULL AND ($3::bigint IS NULL OR id < $3::bigint) AND NOT b.blocked
            ORDER BY id DESC LIMIT $4) p ON true`,
      [viewerId, authorId, before === undefined ? null : before.toString(), limit + 1],
    );
    if (rows[0]?.blocked) throw blockedError("You cannot read this user's posts");
    return toPage(rows.filter((r) => r.id !== null), limit, rowToPost, (row) => [row.id!]);
  }
  const rows = await services.db
    .select(postColumns)
    .from(posts)
    .where(and(eq(posts.authorId, authorId), isNull(posts.deletedAt), viewerId === authorId ? undefined : isNull(posts.heldAt), before ? lt(posts.id, before) : undefined))
    .orderBy(desc(posts.id))
    .limit(limit + 1);
  return toPage(rows, limit, toPost, (row) => [row.id.toString()]);
}

function decodePostCursor(cursor: string): bigint {
  const [id] = decodeCursor(cursor, 1) as [string];
  if (!isId(id)) throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  return BigInt(id);
}
