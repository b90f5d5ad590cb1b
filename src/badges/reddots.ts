import { z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { settleEach, settleEveryDatabase } from "../lib/redis-topology";
import { CATCH_UP_CHANNELS, GET_REDDOTS, READ_CHANNELS, REFRESH_CHANNEL, SEE_CHANNEL } from "./reddots.lua";
import { runUserWrite, type ActiveRecord } from "./active";
import { luaMap, runEverywhere, runReadScript, runScript, type EveryDatabase, type ScriptRedis } from "./shared";

/** Channels are few and named by operators; the cap keeps the badges script's HGETALL small. */
export const MAX_CHANNELS = 200;
export const ChannelSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, "must be 1-64 of a-z 0-9 _ . - starting with a letter or digit")
  .openapi({ param: { name: "channel", in: "path" }, example: "events" });

/** Redis TIME as "secondsµs" → ISO time. */
function microsToIso(micros: string): string {
  return new Date(Math.floor(Number(micros) / 1000)).toISOString();
}

/**
 * Stamps a channel refreshed in EVERY database (each user's dots are read from their own), each
 * from its own clock: a seen stamp is compared with the refresh of the same database, one clock.
 * Answers the lowest database's stamp. A database that is down misses it until the repair cron's
 * `catchUpChannels` copies it in (within a minute of it being back).
 */
export async function refreshChannel(services: EveryDatabase, channel: string) {
  const refreshId = services.databases > 1 ? crypto.randomUUID() : "";
  const { answer: r } = await runEverywhere<{ full: boolean; at?: string }>(services, REFRESH_CHANNEL, [badgeKeys.reddotChannels(), badgeKeys.reddotRefreshIds()], [
    channel,
    MAX_CHANNELS,
    refreshId,
  ]);
  if (r.full) throw new ApiError("conflict", `At most ${MAX_CHANNELS} red-dot channels exist`, [{ field: "channel", message: "no room for a new channel" }]);
  return { channel, refreshedAt: microsToIso(r.at!) };
}

/** Stamps `channel` seen by the user now. `record`: the active-set record it carries (`active.ts`). */
export async function seeChannel(redis: ScriptRedis, userId: string, channel: string, record?: ActiveRecord) {
  const r = await runUserWrite<{ exists: boolean; at?: string }>(redis, record, SEE_CHANNEL, [badgeKeys.reddotChannels(), badgeKeys.reddotSeen(userId)], [channel, USER_TTL_SECONDS]);
  if (!r.exists) throw new ApiError("not_found", `No red-dot channel ${channel}`);
  return { channel, seenAt: microsToIso(r.at!) };
}

/** channel → whether the dot shows for the user. */
export async function getRedDots(redis: ScriptRedis, userId: string): Promise<Record<string, boolean>> {
  const r = await runReadScript<{ dots: Record<string, boolean> | unknown[] }>(redis, GET_REDDOTS, [badgeKeys.reddotChannels(), badgeKeys.reddotSeen(userId)], []);
  return luaMap(r.dots);
}

/**
 * The repair of red-dot channels at N > 1 (nothing at N = 1): reads every database's channels and
 * refresh ids (≤ MAX_CHANNELS each, one call per database) and copies into each database the
 * refreshes it missed: for a channel, the database holding the newest stamp has the newest
 * refresh; a database holding another refresh id (or none) missed it. One refresh stamped by
 * several clocks has one id, so it is left as each database stamped it. Databases down now are
 * skipped (the next run catches them up). Answers the channels copied in all.
 */
export async function catchUpChannels(services: EveryDatabase): Promise<number> {
  const n = services.databases;
  if (n === 1) return 0;
  const keys = [badgeKeys.reddotChannels(), badgeKeys.reddotRefreshIds()];
  type Flat = string[] | Record<string, never>;
  const read = await settleEveryDatabase(n, (index) => runScript<{ channels: Flat; ids: Flat }>(services.redisAt(index), READ_CHANNELS, keys, []));
  const pairs = (flat: Flat) => {
    const list = Array.isArray(flat) ? flat.map(String) : [];
    const map = new Map<string, string>();
    for (let i = 0; i < list.length; i += 2) map.set(list[i]!, list[i + 1]!);
    return map;
  };
  const held = new Map<number, { stamps: Map<string, string>; ids: Map<string, string> }>();
  const newest = new Map<string, { stamp: string; id: string }>();
  for (const [index, result] of read) {
    if (result.status !== "fulfilled") continue;
    const mine = { stamps: pairs(result.value.channels), ids: pairs(result.value.ids) };
    held.set(index, mine);
    for (const [channel, stamp] of mine.stamps) {
      const best = newest.get(channel);
      if (!best || BigInt(stamp) > BigInt(best.stamp)) newest.set(channel, { stamp, id: mine.ids.get(channel) ?? "" });
    }
  }
  const behind: [number, string[]][] = [];
  for (const [index, mine] of held) {
    const args = [...newest]
      .filter(([channel, best]) => !mine.stamps.has(channel) || (best.id !== "" && (mine.ids.get(channel) ?? "") !== best.id))
      .flatMap(([channel, best]) => [channel, best.stamp, best.id, mine.ids.get(channel) ?? ""]);
    if (args.length > 0) behind.push([index, args]);
  }
  const copied = await settleEach(behind, (index, args) => runScript<number>(services.redisAt(index), CATCH_UP_CHANNELS, keys, args));
  return [...copied.values()].reduce((sum, r) => sum + (r.status === "fulfilled" ? Number(r.value) : 0), 0);
}
