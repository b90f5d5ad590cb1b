import type { CronTask } from "../scheduled";
import type { Services } from "../lib/services";
import { syncBroadcastIds } from "./broadcasts";
import { warmInbox } from "./inbox";
import { ACTIVE_USERS_CAP, badgeKeys } from "./keys";
import { catchUpChannels } from "./reddots";
import { replayOwed } from "./replay";
import { runScript, type ScriptRedis } from "./shared";
import { warmStreamAccess } from "./streams";
import { errorText, log } from "../lib/log";
import { databasesInUse } from "../lib/redis-topology";

/** Newest `batch` active users; trims the set to its cap. */
const TAKE_ACTIVE_USERS = `
local active = KEYS[1]            -- badge:active
local batch = tonumber(ARGV[1])
local keep = tonumber(ARGV[2])    -- ACTIVE_USERS_CAP
redis.call('ZREMRANGEBYRANK', active, 0, -(keep + 1))
return cjson.encode(redis.call('ZREVRANGE', active, 0, batch - 1))
`;

/** Users repaired per run and database, most recently active first: bounded so a run stays far below 30 s of CPU. */
export const REPAIR_BATCH = 50;

type RepairServices = Pick<Services, "db" | "databases" | "redisAt" | "redisFor">;

/**
 * Repairs drifted caches from Postgres, in every database (one after another, each bounded):
 * re-adds broadcast ids a database missed, then overwrites the inbox unread counts and stream
 * markers (membership, later access wins) of the database's most recently active users (each
 * database keeps the set of its own users). At N > 1 it first copies red-dot refreshes a database
 * missed from the others (`catchUpChannels`) and replays the published counts and stream items it
 * missed (`replayOwed`). Caches that are missing are left to the lazy rebuild of the next read. A
 * database that is down is skipped and reported; the others are repaired.
 */
export async function repairBadges(services: RepairServices) {
  const channelsRaised = await catchUpChannels(services).catch(() => 0);
  const replayed = await replayOwed(services).catch(() => 0);
  let broadcastIds = 0;
  let users = 0;
  let cachesRepaired = 0;
  const failed: unknown[] = [];
  // The deployment's databases (known once the catch-up above reached them): none a done shrink left.
  const n = databasesInUse(services.databases);
  for (let index = 0; index < n; index++) {
    try {
      const r = await repairDatabase(services, index);
      broadcastIds += r.broadcastIds;
      users += r.users;
      cachesRepaired += r.cachesRepaired;
    } catch (err) {
      failed.push(err);
      if (services.databases > 1) log.warn({ message: "badges repair failed", database: index, error: errorText(err) });
    }
  }
  // Every database failed (at N = 1: the one database): the run failed, as before.
  if (failed.length === n) throw failed[0];
  return { broadcastIds, users, cachesRepaired, ...(services.databases > 1 ? { channelsRaised, replayed, databasesFailed: failed.length } : {}) };
}

/**
 * The users one run repairs in this database: its REPAIR_BATCH most recently active (`badge:active`),
 * the set trimmed to its cap. Through a script so ids come back as JSON strings (the client would
 * turn them into lossy numbers).
 */
export async function takeActiveUsers(redis: ScriptRedis): Promise<string[]> {
  const r = await runScript<string[] | Record<string, never>>(redis, TAKE_ACTIVE_USERS, [badgeKeys.activeUsers()], [REPAIR_BATCH, ACTIVE_USERS_CAP]);
  return Array.isArray(r) ? r : [];
}

async function repairDatabase(services: RepairServices, index: number) {
  const redis = services.redisAt(index);
  const { added } = await syncBroadcastIds(services, redis);
  const users = await takeActiveUsers(redis);
  let repaired = 0;
  for (const userId of users) {
    const [inbox, streams] = await Promise.all([warmInbox(services, userId, true), warmStreamAccess(services, userId, true)]);
    repaired += Number(inbox) + Number(streams);
  }
  return { broadcastIds: added, users: users.length, cachesRepaired: repaired };
}

/** Attached to the per-minute `flush` job: drift is repaired within a minute, no extra schedule. */
export const badgesRepairTask: CronTask = { name: "badges.repair", run: repairBadges };
