import { desc, eq } from "drizzle-orm";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { decodeCursor, encodeCursor } from "../lib/pagination";
import type { Services } from "../lib/services";
import { follows } from "../social/schema";
import { FOLLOW_AUTHOR, LIST_AUTHOR_UNREAD, PUBLISH, SEE_AUTHOR, UNFOLLOW_AUTHOR, UNPUBLISH, WARM_AUTHOR_SEEN } from "./authors.lua";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { runScript, type ScriptRedis } from "./shared";

/** Most followees a rebuild reads from Postgres; beyond this the newest follows count. */
export const MAX_FOLLOWED_AUTHORS = 5000;

const keysOf = (userId: string) => [badgeKeys.authorSeen(userId), badgeKeys.authorPublished()];

export const publishPost = (redis: ScriptRedis, authorId: string) => runScript(redis, PUBLISH, [badgeKeys.authorPublished()], [authorId]);
export const unpublishPost = (redis: ScriptRedis, authorId: string) => runScript(redis, UNPUBLISH, [badgeKeys.authorPublished()], [authorId]);
export const followAuthor = (redis: ScriptRedis, userId: string, authorId: string) =>
  runScript(redis, FOLLOW_AUTHOR, keysOf(userId), [authorId, USER_TTL_SECONDS]);
export const unfollowAuthor = (redis: ScriptRedis, userId: string, authorId: string) =>
  runScript(redis, UNFOLLOW_AUTHOR, [badgeKeys.authorSeen(userId)], [authorId]);

/** Rebuilds a lost follow cache from Postgres `follows` (newest MAX_FOLLOWED_AUTHORS). */
export async function warmAuthorSeen(services: { db: Services["db"]; redis: ScriptRedis }, userId: string) {
  const rows = await services.db
    .select({ id: follows.followeeId })
    .from(follows)
    .where(eq(follows.followerId, userId))
    .orderBy(desc(follows.createdAt))
    .limit(MAX_FOLLOWED_AUTHORS);
  await runScript(services.redis, WARM_AUTHOR_SEEN, keysOf(userId), [USER_TTL_SECONDS, ...rows.map((r) => r.id)]);
}

/** Catches up on one followed author. */
export async function seeAuthor(services: Services, userId: string, authorId: string) {
  let r = await runScript<number>(services.redis, SEE_AUTHOR, keysOf(userId), [authorId, USER_TTL_SECONDS]);
  if (r === -1) {
    await warmAuthorSeen(services, userId);
    r = await runScript<number>(services.redis, SEE_AUTHOR, keysOf(userId), [authorId, USER_TTL_SECONDS]);
  }
  if (r !== 1) throw new ApiError("not_found", `You do not follow ${authorId}`);
  return { authorId, unread: 0 };
}

type AuthorList = { missing: boolean; total: number; list: [string, number][] | Record<string, never> };

/** Per-author unread, largest first (ties by author id), keyset-paginated on (unread, authorId). */
export async function listUnreadAuthors(services: Services, userId: string, page: { limit: number; cursor?: string }) {
  let r = await runScript<AuthorList>(services.redis, LIST_AUTHOR_UNREAD, keysOf(userId), []);
  if (r.missing) {
    await warmAuthorSeen(services, userId);
    r = await runScript<AuthorList>(services.redis, LIST_AUTHOR_UNREAD, keysOf(userId), []);
  }
  const all = (Array.isArray(r.list) ? r.list : [])
    .map(([authorId, unread]) => ({ authorId: String(authorId), unread: Number(unread) }))
    .sort((a, b) => b.unread - a.unread || compareIds(a.authorId, b.authorId));
  let start = 0;
  if (page.cursor) {
    const [unread, authorId] = decodeCursor(page.cursor, 2) as [string, string];
    if (!isId(authorId) || !/^\d+$/.test(unread)) {
      throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
    }
    const u = Number(unread);
    start = all.findIndex((a) => a.unread < u || (a.unread === u && compareIds(a.authorId, authorId) > 0));
    if (start === -1) start = all.length;
  }
  const items = all.slice(start, start + page.limit);
  const last = items[items.length - 1];
  const more = start + page.limit < all.length;
  return { total: r.total, items, nextCursor: more && last ? encodeCursor([last.unread, last.authorId]) : null };
}

function compareIds(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
