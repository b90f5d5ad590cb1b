import type { CronTask } from "../scheduled";
import type { Services } from "../lib/services";
import { syncBroadcastIds } from "./broadcasts";
import { warmInbox } from "./inbox";
import { ACTIVE_USERS_CAP, badgeKeys } from "./keys";
import { runScript } from "./shared";
import { warmStreamAccess } from "./streams";

/** Newest `batch` active users; trims the set to its cap. */
const TAKE_ACTIVE_USERS = `
local active = KEYS[1]            -- badge:active
local batch = tonumber(ARGV[1])
local keep = tonumber(ARGV[2])    -- ACTIVE_USERS_CAP
redis.call('ZREMRANGEBYRANK', active, 0, -(keep + 1))
return cjson.encode(redis.call('ZREVRANGE', active, 0, batch - 1))
`;

/** Users repaired per run, most recently active first: bounded so a run stays far below 30 s of CPU. */
export const REPAIR_BATCH = 50;

/**
 * Repairs drifted caches from Postgres: re-adds broadcast ids Redis missed, then overwrites the
 * inbox unread counts and stream markers (membership, later access wins) of the most recently
 * active users. Caches that are missing are left to the lazy rebuild of the next read.
 */
export async function repairBadges(services: Pick<Services, "db" | "redis">) {
  const { added } = await syncBroadcastIds(services);
  // Through a script so ids come back as JSON strings (the client would turn them into lossy numbers).
  const users = await runScript<string[] | Record<string, never>>(services.redis, TAKE_ACTIVE_USERS, [badgeKeys.activeUsers()], [REPAIR_BATCH, ACTIVE_USERS_CAP]).then(
    (r) => (Array.isArray(r) ? r : []),
  );
  let repaired = 0;
  for (const userId of users) {
    const [inbox, streams] = await Promise.all([warmInbox(services, userId, true), warmStreamAccess(services, userId, true)]);
    repaired += Number(inbox) + Number(streams);
  }
  return { broadcastIds: added, users: users.length, cachesRepaired: repaired };
}

/** Attached to the per-minute `flush` job: drift is repaired within a minute, no extra schedule. */
export const badgesRepairTask: CronTask = { name: "badges.repair", run: repairBadges };
