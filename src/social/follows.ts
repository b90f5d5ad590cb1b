import { and, eq, sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import { ApiError } from "../lib/errors";
import { newEventId } from "../lib/event-types";
import { isId } from "../lib/ids";
import { decodeCursor, encodeCursor, toPage } from "../lib/pagination";
import type { Services } from "../lib/services";
import { queryBatch, queryRows } from "../lib/db";
import { hasDeviceSql } from "../notify/probes";
import { suspendedArg } from "../safety/copy";
import { safetyNow } from "../safety/clock";
import { blockBetweenSql, blockedError, lockBlockPairSql, mutesNotificationsSql } from "../safety/store";
import { cachedFollowPage, readEdges, type EdgeRow } from "./follow-lists";
import { follows } from "./schema";

/** A follow row's created_at in µs since the epoch, as decimal text (exact: extract returns numeric). */
const CREATED_US_SQL = "(extract(epoch FROM created_at) * 1000000)::bigint::text";

export type FollowChange = { followerId: string; followeeId: string; following: boolean; changed: boolean };

/** Follows `followeeId`; idempotent (`changed: false` when the pair already existed); 403 `blocked` when a block stands between them. */
export async function follow(services: Services, followerId: string, followeeId: string): Promise<FollowChange> {
  if (followerId === followeeId) {
    throw new ApiError("bad_request", "You cannot follow yourself", [{ field: "userId", message: "must not be your own id" }]);
  }
  // ON CONFLICT DO NOTHING makes N concurrent follows of one pair insert exactly one row, and only
  // the insert that won reports (and emits) a change. The INSERT also answers whether the followee
  // has a device (notify's index probe, in the same statement): a follow of someone with no device to push
  // to costs the push source nothing, not even a Redis read. A block between the two (either way)
  // is checked in the same statement: the follow is refused and nothing is written.
  // Whether the followee mutes the follower's notifications (their `follow` notification is one)
  // is answered by the same statement too, so the follow stays one Redis round trip.
  // The new row's created_at (µs) rides the event: the follow lists' caches order edges by it.
  // One batch (one request, one transaction): first the pair's lock, which a block's insert takes
  // too (safety's lockBlockPairSql), so the insert's own snapshot, taken after it, sees any block
  // committed before, and a block committed after sees this follow (its unfollow removes it).
  const [, [row]] = (await queryBatch(services.db, [
    { text: lockBlockPairSql("$1", "$2"), params: [followerId, followeeId] },
    {
      text: `WITH b AS (${blockBetweenSql("$1", "$2")}),
          ins AS (
            INSERT INTO follows (follower_id, followee_id) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM b)
            ON CONFLICT DO NOTHING
            RETURNING ${hasDeviceSql("$2")} AS followee_has_devices, ${mutesNotificationsSql("$2", "$1", "$3")} AS followee_mutes,
                      ${CREATED_US_SQL} AS created_us)
     SELECT EXISTS (SELECT 1 FROM b) AS blocked, EXISTS (SELECT 1 FROM ins) AS inserted,
            (SELECT followee_has_devices FROM ins) AS followee_has_devices, (SELECT followee_mutes FROM ins) AS followee_mutes,
            (SELECT created_us FROM ins) AS created_us`,
      params: [followerId, followeeId, new Date(safetyNow(services.env)).toISOString()],
    },
  ])) as [unknown, { blocked: boolean; inserted: boolean; followee_has_devices: boolean | null; followee_mutes: boolean | null; created_us: string | null }[]];
  if (row!.blocked) throw blockedError("You cannot follow this user");
  const changed = row!.inserted;
  if (changed) {
    const followeeHasDevices = row!.followee_has_devices === true;
    const followeeMutesFollower = row!.followee_mutes === true;
    const createdAtUs = row!.created_us ?? undefined;
    await services.events.emit({ type: "follow.created", id: newEventId(), followerId, followeeId, at: Date.now(), followeeHasDevices, followeeMutesFollower, ...(createdAtUs ? { createdAtUs } : {}) }, services);
  }
  return { followerId, followeeId, following: true, changed };
}

/** Unfollows; idempotent, and only the delete that removed the row emits. */
export async function unfollow(services: Services, followerId: string, followeeId: string): Promise<FollowChange> {
  const deleted = await services.db
    .delete(follows)
    .where(and(eq(follows.followerId, followerId), eq(follows.followeeId, followeeId)))
    .returning({ followerId: follows.followerId, createdUs: sql<string>`${sql.raw(CREATED_US_SQL)}` });
  const changed = deleted.length > 0;
  // The removed row's created_at (µs): the follow lists remove this edge, not a later re-follow of the pair.
  const createdAtUs = deleted[0]?.createdUs ? String(deleted[0].createdUs) : undefined;
  if (changed) await services.events.emit({ type: "follow.deleted", id: newEventId(), followerId, followeeId, at: Date.now(), ...(createdAtUs ? { createdAtUs } : {}) }, services);
  return { followerId, followeeId, following: false, changed };
}

export type FollowEdge = { userId: string; followedAt: string };

/**
 * One side of the follow graph of `userId`, newest first, keyset-paginated on (created_at, other id).
 * A suspended user is in nobody's list (the isolate's copy of the suspended set, handed to the
 * cache's read or the one statement: no round trip, and a page stays full); their rows stay, so a
 * lift shows them again where they were. The followers/following counts keep them (docs/safety.md).
 *
 * The list owner's cache answers the pages within its newest edges (one read-only call: the
 * nearest read region); Postgres answers a miss (the cache is built after the answer) and pages
 * past the cached edges, with the same items and cursors (`follow-lists.ts`).
 */
export async function listFollowEdges(
  services: Services,
  direction: "followers" | "following",
  userId: string,
  page: { limit: number; cursor?: string },
) {
  const after = page.cursor ? decodeFollowCursor(page.cursor) : undefined;
  const suspended = await suspendedArg(services);
  const cached = await cachedFollowPage(services, direction, userId, { limit: page.limit, ...(after ? { after } : {}) }, suspended);
  const item = (row: EdgeRow): FollowEdge => ({ userId: row.userId, followedAt: isoTimestamp(row.createdAt) });
  const key = (row: EdgeRow) => [row.createdAt, row.userId];
  if (cached) {
    const last = cached.rows[cached.rows.length - 1];
    return { items: cached.rows.map(item), nextCursor: cached.more && last ? encodeCursor(key(last)) : null };
  }
  return toPage(await readEdges(services, direction, userId, { limit: page.limit + 1, ...(after ? { after } : {}), suspended }), page.limit, item, key);
}

function decodeFollowCursor(cursor: string) {
  const [createdAt, userId] = decodeCursor(cursor, 2) as [string, string];
  if (!isId(userId) || Number.isNaN(Date.parse(createdAt))) {
    throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  }
  return { createdAt, userId };
}
