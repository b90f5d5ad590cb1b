import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import type { Caller } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { decodeCursor, toPage } from "../lib/pagination";
import type { Services } from "../lib/services";
import type { Alert } from "../notify/alerts";
import { notifyAuthorChoices } from "../notify/schema";
import { posts } from "./schema";

export type Post = { id: string; authorId: string; text: string; createdAt: string };

const postColumns = { id: posts.id, authorId: posts.authorId, text: posts.text, createdAt: posts.createdAt };

function toPost(row: { id: bigint; authorId: string; text: string; createdAt: string }): Post {
  return { id: row.id.toString(), authorId: row.authorId, text: row.text, createdAt: isoTimestamp(row.createdAt) };
}

/**
 * Creates a post. `alert` is what a push to the users who chose this author shows. The INSERT also
 * answers whether anyone chose the author (an index probe in the same statement), so a post of an
 * author nobody chose costs the push source nothing.
 */
export async function createPost(services: Services, authorId: string, text: string, alert?: Alert): Promise<Post> {
  const [row] = await services.db
    .insert(posts)
    .values({ authorId, text })
    .returning({ ...postColumns, chosen: sql<boolean>`exists (select 1 from ${notifyAuthorChoices} where ${notifyAuthorChoices.authorId} = ${authorId})` });
  const post = toPost(row!);
  await services.events.emit({ type: "post.created", postId: post.id, authorId, text: post.text, createdAt: post.createdAt, at: Date.now(), ...(alert ? { alert } : {}), chosen: row!.chosen }, services);
  return post;
}

/** A live post, or 404 (deleted posts read as missing). */
export async function getPost(services: Services, postId: string): Promise<Post> {
  const [row] = await services.db
    .select(postColumns)
    .from(posts)
    .where(and(eq(posts.id, BigInt(postId)), isNull(posts.deletedAt)));
  if (!row) throw new ApiError("not_found", `Post ${postId} not found`);
  return toPost(row);
}

/** Soft-deletes a post; only its author or an admin may. */
export async function deletePost(services: Services, caller: Caller, postId: string): Promise<{ id: string; deleted: true }> {
  const post = await getPost(services, postId);
  if (post.authorId !== caller.userId && caller.role !== "admin") {
    throw new ApiError("forbidden", "Only the author or an admin may delete this post");
  }
  // The deleted_at guard makes the delete (and its event) happen once even when two race.
  const deleted = await services.db
    .update(posts)
    .set({ deletedAt: sql`now()` })
    .where(and(eq(posts.id, BigInt(postId)), isNull(posts.deletedAt)))
    .returning({ id: posts.id });
  if (deleted.length > 0) {
    await services.events.emit({ type: "post.deleted", postId, authorId: post.authorId, at: Date.now() }, services);
  }
  return { id: postId, deleted: true };
}

/** Live posts of an author, newest first; ids only grow, so the id alone is the cursor. */
export async function listPostsByAuthor(services: Services, authorId: string, page: { limit: number; cursor?: string }) {
  const before = page.cursor ? decodePostCursor(page.cursor) : undefined;
  const rows = await services.db
    .select(postColumns)
    .from(posts)
    .where(and(eq(posts.authorId, authorId), isNull(posts.deletedAt), before ? lt(posts.id, before) : undefined))
    .orderBy(desc(posts.id))
    .limit(page.limit + 1);
  return toPage(rows, page.limit, toPost, (row) => [row.id.toString()]);
}

function decodePostCursor(cursor: string): bigint {
  const [id] = decodeCursor(cursor, 1) as [string];
  if (!isId(id)) throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  return BigInt(id);
}
