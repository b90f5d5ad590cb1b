import { z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { settleEach } from "../lib/redis-topology";
import { CATCH_UP_CHANNELS, GET_REDDOTS, READ_CHANNELS, REFRESH_CHANNEL, SEE_CHANNEL } from "./reddots.lua";
import { luaMap, runEverywhere, runScript, type EveryDatabase, type ScriptRedis } from "./shared";

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
 * `catchUpChannels` copies the newest stamps into it (within a minute of it being back).
 */
export async function refreshChannel(services: EveryDatabase, channel: string) {
  const { answer: r } = await runEverywhere<{ full: boolean; at?: string }>(services, REFRESH_CHANNEL, [badgeKeys.reddotChannels()], [channel, MAX_CHANNELS]);
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

/** Stamps of two databases' refreshes of one channel closer than this (µs) are the same refresh (clock skew). */
export const CHANNEL_SKEW_MARGIN_US = 5_000_000;

/**
 * The repair of red-dot channels at N > 1 (one cron call per database, nothing at N = 1): reads
 * every database's channels (≤ MAX_CHANNELS fields each) and raises, in the databases behind, the
 * channels another database holds newer (a refresh they missed while down). Databases down now are
 * skipped (the next run catches them up). Answers the channels raised in all.
 */
export async function catchUpChannels(services: EveryDatabase): Promise<number> {
  const n = services.databases;
  if (n === 1) return 0;
  const all = Array.from({ length: n }, (_, i) => [i, i] as [number, number]);
  const read = await settleEach(all, (index) => runScript<string[] | Record<string, never>>(services.redisAt(index), READ_CHANNELS, [badgeKeys.reddotChannels()], []));
  const held = new Map<number, Map<string, bigint>>();
  const newest = new Map<string, bigint>();
  for (const [index, result] of read) {
    if (result.status !== "fulfilled") continue;
    const flat = Array.isArray(result.value) ? result.value.map(String) : [];
    const mine = new Map<string, bigint>();
    for (let i = 0; i < flat.length; i += 2) {
      const at = BigInt(flat[i + 1]!);
      mine.set(flat[i]!, at);
      if (at > (newest.get(flat[i]!) ?? -1n)) newest.set(flat[i]!, at);
    }
    held.set(index, mine);
  }
  const behind: [number, string[]][] = [];
  for (const [index, mine] of held) {
    const pairs = [...newest].filter(([channel, at]) => (mine.get(channel) ?? -1n) + BigInt(CHANNEL_SKEW_MARGIN_US) < at).flatMap(([channel, at]) => [channel, at.toString()]);
    if (pairs.length > 0) behind.push([index, pairs]);
  }
  const raised = await settleEach(behind, (index, pairs) => runScript<number>(services.redisAt(index), CATCH_UP_CHANNELS, [badgeKeys.reddotChannels()], [CHANNEL_SKEW_MARGIN_US, ...pairs]));
  return [...raised.values()].reduce((sum, r) => sum + (r.status === "fulfilled" ? Number(r.value) : 0), 0);
}
