import { badgeKeys } from "./keys";
import type { ActiveRecord } from "./active";
import type { ScriptRedis } from "./shared";
import { addToTally, clearTallyKey, readTally } from "./tally";

export const MAX_DM_COUNT = 1000;

/** Counts `count` new messages from `fromId` to `toUserId` (peer and total in one script). */
export async function addDirectMessages(redis: ScriptRedis, toUserId: string, fromId: string, count: number) {
  const { count: n, total } = await addToTally(redis, badgeKeys.dms(toUserId), fromId, count);
  return { userId: toUserId, peerId: fromId, count: n, total };
}

/** Marks the messages from one peer read. `record`: the active-set record it carries (`active.ts`). */
export async function readDirectMessages(redis: ScriptRedis, userId: string, peerId: string, record?: ActiveRecord) {
  return { peerId, ...(await clearTallyKey(redis, badgeKeys.dms(userId), peerId, record)) };
}

export async function getDirectMessages(redis: ScriptRedis, userId: string) {
  const { byKey, total } = await readTally(redis, badgeKeys.dms(userId));
  return { byPeer: byKey, total };
}
