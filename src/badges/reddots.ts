import { z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { GET_REDDOTS, REFRESH_CHANNEL, SEE_CHANNEL } from "./reddots.lua";
import { luaMap, runScript, type ScriptRedis } from "./shared";

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

export async function refreshChannel(redis: ScriptRedis, channel: string) {
  const r = await runScript<{ full: boolean; at?: string }>(redis, REFRESH_CHANNEL, [badgeKeys.reddotChannels()], [channel, MAX_CHANNELS]);
  if (r.full) throw new ApiError("conflict", `At most ${MAX_CHANNELS} red-dot channels exist`, [{ field: "channel", message: "no room for a new channel" }]);
  return { channel, refreshedAt: microsToIso(r.at!) };
}

export async function seeChannel(redis: ScriptRedis, userId: string, channel: string) {
  const r = await runScript<{ exists: boolean; at?: string }>(redis, SEE_CHANNEL, [badgeKeys.reddotChannels(), badgeKeys.reddotSeen(userId)], [channel, USER_TTL_SECONDS]);
  if (!r.exists) throw new ApiError("not_found", `No red-dot channel ${channel}`);
  return { channel, seenAt: microsToIso(r.at!) };
}

/** channel → whether the dot shows for the user. */
export async function getRedDots(redis: ScriptRedis, userId: string): Promise<Record<string, boolean>> {
  const r = await runScript<{ dots: Record<string, boolean> | unknown[] }>(redis, GET_REDDOTS, [badgeKeys.reddotChannels(), badgeKeys.reddotSeen(userId)], []);
  return luaMap(r.dots);
}
