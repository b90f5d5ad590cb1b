import type { SafetyCheck } from "../safety/cache";
import { blockedError } from "../safety/store";
import { badgeKeys } from "./keys";
import type { ActiveRecord } from "./active";
import type { ScriptRedis } from "./shared";
import { addToTally, clearTallyKey, readTally } from "./tally";
import type { Services } from "../lib/services";

export const MAX_DM_COUNT = 1000;

/**
 * Counts `count` new messages from `fromId` to `toUserId` (peer and total in one script). With
 * `safety` (the recipient's sets, checked in the same script): a block either way refuses the
 * messages (403 `blocked`, nothing counted); a mute of the sender's notifications accepts them
 * uncounted (`applied: false, suppressed: "muted"`), as do messages from a suspended sender
 * (`suppressed: "suspended"`).
 */
export async function addDirectMessages(redis: ScriptRedis, toUserId: string, fromId: string, count: number, safety?: SafetyCheck) {
  const added = await addToTally(redis, badgeKeys.dms(toUserId), fromId, count, undefined, safety);
  if (added.suppressed === "blocked") throw blockedError("You cannot message this user");
  return { userId: toUserId, peerId: fromId, count: added.count, total: added.total, applied: added.applied, ...(added.suppressed ? { suppressed: added.suppressed } : {}) };
}

/** Marks the messages from one peer read. `record`: the active-set record it carries (`active.ts`). */
export async function readDirectMessages(redis: ScriptRedis, userId: string, peerId: string, record?: ActiveRecord) {
  return { peerId, ...(await clearTallyKey(redis, badgeKeys.dms(userId), peerId, record)) };
}

export async function getDirectMessages(redis: ScriptRedis, userId: string) {
  const { byKey, total } = await readTally(redis, badgeKeys.dms(userId));
  return { byPeer: byKey, total };
}

/**
 * A block between `a` and `b`: each one's unread DMs from the other leave their counts (the
 * sender's key and exactly its share of the total, in one script on each user's database). Run
 * after the block's sets are written, so a DM racing it is refused or cleared here; the caller then
 * has the two users' live sockets re-read their badges.
 */
export async function dropBlockedPeers(services: Pick<Services, "redisFor">, a: string, b: string): Promise<void> {
  await Promise.all([clearTallyKey(services.redisFor(a), badgeKeys.dms(a), b), clearTallyKey(services.redisFor(b), badgeKeys.dms(b), a)]);
}
