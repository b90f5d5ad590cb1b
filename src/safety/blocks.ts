import { isoTimestamp } from "../db/columns";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { decodeCursor, toPage } from "../lib/pagination";
import type { Services } from "../lib/services";
import { newEventId } from "../lib/event-types";
import { cacheSetsNow, writeSets } from "./cache";
import { maxEntries } from "./clock";
import { BLOCKED_ME_CAP } from "./keys";
import { deleteBlock, insertBlock, listBlocks } from "./store";

export type BlockItem = { userId: string; createdAt: string };

/**
 * A blocks B. What a block changes, each part by the capability that owns it:
 *  - Postgres `safety_blocks` (the truth; 409 past the bound);
 *  - A's "whom I blocked" set on A's database and B's "who blocked me" set on B's (one script
 *    call per database touched), which the reads that filter check inside their own call;
 *  - then `block.created`, which every capability's subscriber carries out on its own state (safety
 *    imports none of them; a failing part fails the block, whose retry completes it): both follows
 *    end exactly as two unfollows would (social: their events move the counters, badges and feed
 *    as any unfollow does), and, whatever the follows were: each one's unread DMs from the other leave their counts
 *    (badges), each one's choice of the other as a notified author ends (notify), each one's
 *    posts leave the other's timeline (feed), and each one leaves the live rooms the other hosts
 *    (live: sockets closed, presence dropped) — a late fan-out, sync or rebuild is kept out by the
 *    sets written first.
 * Idempotent: a repeat changes nothing, and still rewrites the sets and ends any follow, so a
 * retry after a failure part way completes every part.
 */
export async function block(services: Services, blockerId: string, blockedId: string): Promise<BlockItem & { changed: boolean }> {
  if (blockerId === blockedId) {
    throw new ApiError("bad_request", "You cannot block yourself", [{ field: "userId", message: "must not be your own id" }]);
  }
  const stored = await insertBlock(services.pooledDb, blockerId, blockedId, maxEntries(services.env));
  await writeSets(services, [
    { owner: blockerId, set: "blocked", op: "add", member: blockedId, score: stored.createdAtMs },
    { owner: blockedId, set: "blockedMe", op: "add", member: blockerId, score: stored.createdAtMs, cap: BLOCKED_ME_CAP },
  ]);
  // After the sets: a DM or a fan-out racing the block is refused or skipped from here on, and
  // what got in before is taken out now, each part by the capability that owns it.
  await services.events.emitOrFail({ type: "block.created", id: newEventId(), blockerId, blockedId, at: Date.now() }, services);
  await Promise.all([cacheSetsNow(services, blockerId), cacheSetsNow(services, blockedId)]);
  return { userId: blockedId, createdAt: stored.createdAt, changed: stored.changed };
}

/** A unblocks B; idempotent. Restores nothing: no follow comes back. */
export async function unblock(services: Services, blockerId: string, blockedId: string): Promise<{ userId: string; blocked: false; changed: boolean }> {
  const changed = await deleteBlock(services.db, blockerId, blockedId);
  await writeSets(services, [
    { owner: blockerId, set: "blocked", op: "rem", member: blockedId },
    { owner: blockedId, set: "blockedMe", op: "rem", member: blockerId },
  ]);
  return { userId: blockedId, blocked: false, changed };
}

/** A's blocks, newest first, keyset-paginated on (created_at, user id). */
export async function listUserBlocks(services: Services, blockerId: string, page: { limit: number; cursor?: string }) {
  const after = page.cursor ? decodeSafetyCursor(page.cursor) : undefined;
  const rows = await listBlocks(services.db, blockerId, page.limit + 1, after);
  return toPage(
    rows,
    page.limit,
    (row): BlockItem => ({ userId: row.user_id, createdAt: isoTimestamp(row.created_at) }),
    (row) => [row.created_at, row.user_id],
  );
}

/** The keyset a block or mute list's cursor carries: Postgres' own timestamp text (full precision) and the user id. */
export function decodeSafetyCursor(cursor: string): { createdAt: string; userId: string } {
  const [createdAt, userId] = decodeCursor(cursor, 2) as [string, string];
  if (!isId(userId) || Number.isNaN(Date.parse(createdAt))) {
    throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  }
  return { createdAt, userId };
}
