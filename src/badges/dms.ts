import { ADD_DM, GET_DMS, READ_DM_PEER } from "./dms.lua";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { runScript, type ScriptRedis } from "./shared";

export const MAX_DM_COUNT = 1000;

/** Counts `count` new messages from `fromId` to `toUserId` (peer and total in one script). */
export async function addDirectMessages(redis: ScriptRedis, toUserId: string, fromId: string, count: number) {
  const r = await runScript<{ count: number; total: number }>(redis, ADD_DM, [badgeKeys.dms(toUserId)], [fromId, count, USER_TTL_SECONDS]);
  return { userId: toUserId, peerId: fromId, ...r };
}

export async function readDirectMessages(redis: ScriptRedis, userId: string, peerId: string) {
  const r = await runScript<{ cleared: number; total: number }>(redis, READ_DM_PEER, [badgeKeys.dms(userId)], [peerId]);
  return { peerId, ...r };
}

export async function getDirectMessages(redis: ScriptRedis, userId: string) {
  const r = await runScript<{ byPeer: Record<string, number> | unknown[]; total: number }>(redis, GET_DMS, [badgeKeys.dms(userId)], []);
  return { byPeer: Array.isArray(r.byPeer) ? {} : r.byPeer, total: r.total };
}
