import { and, desc, eq, sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import { ApiError } from "../lib/errors";
import { newEventId } from "../lib/event-types";
import { isId } from "../lib/ids";
import { decodeCursor, toPage } from "../lib/pagination";
import type { Services } from "../lib/services";
import { notifyDevices } from "../notify/schema";
import { follows } from "./schema";

export type FollowChange = { followerId: string; followeeId: string; following: boolean; changed: boolean };

/** Follows `followeeId`; idempotent (`changed: false` when the pair already existed). */
export async function follow(services: Services, followerId: string, followeeId: string): Promise<FollowChange> {
  if (followerId === followeeId) {
    throw new ApiError("bad_request", "You cannot follow yourself", [{ field: "userId", message: "must not be your own id" }]);
  }
  // ON CONFLICT DO NOTHING makes N concurrent follows of one pair insert exactly one row, and only
  // the insert that won reports (and emits) a change. The INSERT also answers whether the followee
  // has a device (an index probe in the same statement): a follow of someone with no device to push
  // to costs the push source nothing, not even a Redis read.
  const inserted = await services.db
    .insert(follows)
    .values({ followerId, followeeId })
    .onConflictDoNothing()
    .returning({ followerId: follows.followerId, followeeHasDevices: sql<boolean>`exists (select 1 from ${notifyDevices} where ${notifyDevices.userId} = ${followeeId})` });
  const changed = inserted.length > 0;
  if (changed) {
    const followeeHasDevices = inserted[0]!.followeeHasDevices;
    await services.events.emit({ type: "follow.created", id: newEventId(), followerId, followeeId, at: Date.now(), followeeHasDevices }, services);
  }
  return { followerId, followeeId, following: true, changed };
}

/** Unfollows; idempotent, and only the delete that removed the row emits. */
export async function unfollow(services: Services, followerId: string, followeeId: string): Promise<FollowChange> {
  const deleted = await services.db
    .delete(follows)
    .where(and(eq(follows.followerId, followerId), eq(follows.followeeId, followeeId)))
    .returning({ followerId: follows.followerId });
  const changed = deleted.length > 0;
  if (changed) await services.events.emit({ type: "follow.deleted", id: newEventId(), followerId, followeeId, at: Date.now() }, services);
  return { followerId, followeeId, following: false, changed };
}

export type FollowEdge = { userId: string; followedAt: string };

/** One side of the follow graph of `userId`, newest first, keyset-paginated on (created_at, other id). */
export async function listFollowEdges(
  services: Services,
  direction: "followers" | "following",
  userId: string,
  page: { limit: number; cursor?: string },
) {
  const [self, other] =
    direction === "followers" ? [follows.followeeId, follows.followerId] : [follows.followerId, follows.followeeId];
  const after = page.cursor ? decodeFollowCursor(page.cursor) : undefined;
  const rows = await services.db
    .select({ userId: other, createdAt: follows.createdAt })
    .from(follows)
    .where(
      and(
        eq(self, userId),
        after ? sql`(${follows.createdAt}, ${other}) < (${after.createdAt}::timestamptz, ${after.userId}::bigint)` : undefined,
      ),
    )
    .orderBy(desc(follows.createdAt), desc(other))
    .limit(page.limit + 1);
  return toPage(
    rows,
    page.limit,
    (row): FollowEdge => ({ userId: row.userId, followedAt: isoTimestamp(row.createdAt) }),
    (row) => [row.createdAt, row.userId],
  );
}

function decodeFollowCursor(cursor: string) {
  const [createdAt, userId] = decodeCursor(cursor, 2) as [string, string];
  if (!isId(userId) || Number.isNaN(Date.parse(createdAt))) {
    throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  }
  return { createdAt, userId };
}
