import { desc, eq } from "drizzle-orm";
import { ApiError, DependencyUnavailableError } from "../lib/errors";
import { rebuildSets } from "../safety/cache";
import { safetyNow } from "../safety/clock";
import { suspendedArg } from "../safety/copy";
import { safetyKeysOf } from "../safety/keys";
import { isId } from "../lib/ids";
import { decodeCursor, encodeCursor } from "../lib/pagination";
import type { Services } from "../lib/services";
import { follows } from "../social/schema";
import type { Redis } from "../lib/redis";
import { FOLLOW_AUTHOR, LIST_AUTHOR_UNREAD, READ_AUTHOR_EPOCH, SEE_AUTHOR, UNFOLLOW_AUTHOR, WARM_AUTHOR_SEEN } from "./authors.lua";
import { AUTHOR_EPOCH_TTL_SECONDS, BUILT, badgeKeys, USER_TTL_SECONDS } from "./keys";
import { runEverywhereOwed } from "./replay";
import { activeRecord, runUserWrite } from "./active";
import { inBackground, runReadScript, runScript, userRedis, type EveryDatabase, type ScriptRedis } from "./shared";

/**
 * Most followees a rebuild reads from Postgres; beyond this the newest follows count and the cache
 * is marked `some` (a subset: a missing author proves nothing).
 */
export const MAX_FOLLOWED_AUTHORS = 5000;
/** Reads that found the reader's safety sets not cached try this often (each after a rebuild). */
export const SAFETY_ATTEMPTS = 3;

const keysOf = (userId: string) => [badgeKeys.authorSeen(userId), badgeKeys.authorPublished()];

/** A post was published: its author's count moves in EVERY database (each user's badges read it from their own). */
/** A database that misses it (down) is owed it, and gets it from the repair cron (`replay.ts`). */
export const publishPost = (services: EveryDatabase, authorId: string) => runEverywhereOwed(services, "publish", [badgeKeys.authorPublished()], [authorId]);
export const unpublishPost = (services: EveryDatabase, authorId: string) => runEverywhereOwed(services, "unpublish", [badgeKeys.authorPublished()], [authorId]);
export const followAuthor = (redis: ScriptRedis, userId: string, authorId: string) =>
  runScript<{ added: boolean; epoch: string }>(redis, FOLLOW_AUTHOR, [...keysOf(userId), badgeKeys.authorSeenEpoch(userId)], [
    authorId,
    USER_TTL_SECONDS,
    AUTHOR_EPOCH_TTL_SECONDS,
  ]);
export const unfollowAuthor = (redis: ScriptRedis, userId: string, authorId: string) =>
  runScript(redis, UNFOLLOW_AUTHOR, [badgeKeys.authorSeen(userId), badgeKeys.authorSeenEpoch(userId)], [authorId, AUTHOR_EPOCH_TTL_SECONDS]);

/** What a rebuild read: the newest ≤ MAX_FOLLOWED_AUTHORS followees, whether that is all of them, and whether it was cached. */
export type AuthorSeenBuild = { followees: string[]; complete: boolean; written: boolean };

/**
 * Rebuilds a lost follow cache from Postgres `follows` (newest MAX_FOLLOWED_AUTHORS). `epoch` is
 * the user's follow epoch read before this call (a follow's script answers it); without it one
 * more round trip reads it first. The write is skipped when a follow or unfollow happened since
 * (the rows may predate it) or another rebuild won; the rows are returned either way.
 */
export async function warmAuthorSeen(
  services: { db: Services["db"] } & ({ redisFor(ownerId: string): ScriptRedis } | { redis: ScriptRedis }),
  userId: string,
  epoch?: string,
): Promise<AuthorSeenBuild> {
  // The user's database (`redisFor`), or the client a caller picked for them.
  const redis = userRedis(services, userId);
  const seenEpoch = epoch ?? String(await runReadScript<string | number>(redis, READ_AUTHOR_EPOCH, [badgeKeys.authorSeenEpoch(userId)], []));
  const read = await followeesFromPostgres(services, userId);
  return { ...read, written: await writeAuthorSeen(redis, userId, seenEpoch, read) };
}

/** The followees a rebuild writes: the newest MAX_FOLLOWED_AUTHORS, and whether that is all of them. */
export async function followeesFromPostgres(services: { db: Services["db"] }, userId: string): Promise<Omit<AuthorSeenBuild, "written">> {
  const rows = await services.db
    .select({ id: follows.followeeId })
    .from(follows)
    .where(eq(follows.followerId, userId))
    .orderBy(desc(follows.createdAt))
    .limit(MAX_FOLLOWED_AUTHORS);
  const followees = rows.map((r) => r.id);
  return { followees, complete: followees.length < MAX_FOLLOWED_AUTHORS };
}

/**
 * Writes a follow cache from `read` (`followeesFromPostgres`), only if it is still missing and the
 * follow epoch is still `seenEpoch` (read before the rows were): true when written.
 */
export async function writeAuthorSeen(redis: ScriptRedis, userId: string, seenEpoch: string, read: Omit<AuthorSeenBuild, "written">): Promise<boolean> {
  const written = await runScript<number>(
    redis,
    WARM_AUTHOR_SEEN,
    [...keysOf(userId), badgeKeys.authorSeenEpoch(userId)],
    [USER_TTL_SECONDS, seenEpoch, read.complete ? "all" : "some", ...read.followees],
  );
  return written === 1;
}

/**
 * A missing follow cache: the followees read from Postgres in the request (the pool is the
 * request's), the cache written from them beside the answer (`waitUntil`) with the epoch the read
 * saw before. Answers nothing unread, as the rebuilt cache would (each followee at their current count).
 */
export async function rebuildAuthorSeenAfter(services: Services, userId: string, seenEpoch: string): Promise<void> {
  const read = await followeesFromPostgres(services, userId);
  services.waitUntil(inBackground("follow cache build", userId, writeAuthorSeen(services.redisFor(userId), userId, seenEpoch, read)));
}

/** What a follow cache says about one author: see `cachedFollowState`. */
export type FollowState = "follows" | "not_following" | "unknown" | "missing";

/**
 * Whether `userId` follows `authorId` according to the follow cache, in ONE command (HMGET of the
 * sentinel and the author): `follows`, `not_following` (the cache holds every follow), `unknown`
 * (the cache is a capped subset and lacks the author) or `missing` (no cache: rebuild it).
 */
export async function cachedFollowState(redis: Pick<Redis, "hmget">, userId: string, authorId: string): Promise<FollowState> {
  return followStateOf(await redis.hmget<Record<string, unknown>>(badgeKeys.authorSeen(userId), BUILT, authorId), authorId);
}

/**
 * `cachedFollowState` of many (user, author) pairs in ONE round trip: one HMGET each, sent as one
 * pipeline (billed one command per pair, as separate lookups would be).
 */
export async function cachedFollowStates(
  redis: Pick<Redis, "hmget" | "pipeline">,
  pairs: readonly { userId: string; authorId: string }[],
): Promise<FollowState[]> {
  if (pairs.length === 1) return [await cachedFollowState(redis, pairs[0]!.userId, pairs[0]!.authorId)];
  const pipeline = redis.pipeline();
  for (const { userId, authorId } of pairs) pipeline.hmget(badgeKeys.authorSeen(userId), BUILT, authorId);
  const got = await pipeline.exec<(Record<string, unknown> | null)[]>();
  return pairs.map(({ authorId }, i) => followStateOf(got[i] ?? null, authorId));
}

function followStateOf(got: Record<string, unknown> | null, authorId: string): FollowState {
  const sentinel = got?.[BUILT];
  if (sentinel === null || sentinel === undefined) return "missing";
  if (got?.[authorId] !== null && got?.[authorId] !== undefined) return "follows";
  return String(sentinel) === "all" ? "not_following" : "unknown";
}

/** Catches up on one followed author. */
export async function seeAuthor(services: Services, userId: string, authorId: string) {
  const redis = services.redisFor(userId);
  const record = activeRecord(services.env, userId);
  let r = await runUserWrite<number>(redis, record, SEE_AUTHOR, keysOf(userId), [authorId, USER_TTL_SECONDS]);
  if (r === -1) {
    await warmAuthorSeen(services, userId);
    r = await runUserWrite<number>(redis, record, SEE_AUTHOR, keysOf(userId), [authorId, USER_TTL_SECONDS]);
  }
  if (r !== 1) throw new ApiError("not_found", `You do not follow ${authorId}`);
  return { authorId, unread: 0 };
}

type AuthorList = { missing: boolean; total: number; list: [string, number][] | Record<string, never>; epoch?: string; safetyMiss?: boolean };

/**
 * Per-author unread, largest first (ties by author id), keyset-paginated on (unread, authorId): one
 * read-only call. A missing follow cache answers nothing unread, as its rebuild would (each
 * followee starts at their current count), and is rebuilt beside the answer (`waitUntil`).
 */
export async function listUnreadAuthors(services: Services, userId: string, page: { limit: number; cursor?: string }) {
  const suspended = await suspendedArg(services);
  const read = () =>
    runReadScript<AuthorList>(services.redisFor(userId), LIST_AUTHOR_UNREAD, [...keysOf(userId), badgeKeys.authorSeenEpoch(userId), ...safetyKeysOf(userId)], [safetyNow(services.env), suspended]);
  let r = await read();
  // The user's safety sets not cached: one Postgres read caches them, then the list is read again
  // (again only if a safety write raced the rebuild and left it uncached).
  for (let attempt = 1; r.safetyMiss; attempt++) {
    if (attempt > SAFETY_ATTEMPTS) throw new DependencyUnavailableError("redis", new Error("safety sets not cached after their rebuilds"));
    await rebuildSets(services, userId, r.epoch ?? "");
    r = await read();
  }
  if (r.missing) await rebuildAuthorSeenAfter(services, userId, r.epoch ?? "0");
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
