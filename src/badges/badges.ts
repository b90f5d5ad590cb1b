import { isRedisOutage } from "../lib/redis-failures";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { GET_BADGES } from "./badges.lua";
import { persistFirstSeen, syncBroadcastIds, unreadBroadcastsFromPostgres } from "./broadcasts";
import { warmAuthorSeen } from "./authors";
import { inboxFromPostgres, warmInbox } from "./inbox";
import { warmStreamAccess } from "./streams";
import { capAll, capped, luaMap, runScript, type Capped } from "./shared";
import type { Services } from "../lib/services";
import { feedKeys, maxPulledAccounts } from "../feed/keys";

type Raw = {
  notifications: { byType: Record<string, number> | unknown[]; total: number };
  broadcasts: { missing: boolean; firstSeen: string | false; unread: number };
  reddots: Record<string, boolean> | unknown[];
  authors: { missing: boolean; total: number };
  streams: { missing: boolean; total: number; byStream: Record<string, number> | unknown[] };
  dms: { total: number };
  inbox: { missing: boolean; byType: Record<string, number> | unknown[]; total: number };
  feed: number;
  /** The big accounts the user follows (the feed's pulled set), when asked for. */
  feedBigs?: string[] | Record<string, never>;
};

export type Badges = {
  cap: number;
  degraded: boolean;
  notifications: { byType: Record<string, Capped>; total: Capped };
  broadcasts: Capped;
  reddots: Record<string, boolean>;
  authors: Capped;
  streams: { total: Capped; byStream: Record<string, Capped> };
  dms: Capped;
  inbox: { byType: Record<string, Capped>; total: Capped };
  /** Posts newer than the last first-page read of the home feed, as the merged page shows them (big accounts included). */
  feed: Capped;
};


/** The badges script, on the user's database: every key it reads is the user's or a global key written to every database. */
function runBadges(services: Services, userId: string, cap: number, wantBigs: boolean) {
  return runScript<Raw>(
    services.redisFor(userId),
    GET_BADGES,
    [
      badgeKeys.notifications(userId),
      badgeKeys.markers(userId),
      badgeKeys.broadcastIds(),
      badgeKeys.reddotChannels(),
      badgeKeys.reddotSeen(userId),
      badgeKeys.authorSeen(userId),
      badgeKeys.authorPublished(),
      badgeKeys.streamAccess(userId),
      badgeKeys.streamLastItem(),
      badgeKeys.dms(userId),
      badgeKeys.inbox(userId),
      badgeKeys.activeUsers(),
      feedKeys.seen(userId),
      feedKeys.timeline(userId),
      feedKeys.bigFollows(userId),
      feedKeys.activity(),
    ],
    [cap, userId, Date.now(), USER_TTL_SECONDS, badgeKeys.streamItems(""), feedKeys.outboxPrefix(), maxPulledAccounts(services.env), wantBigs ? 1 : 0],
  );
}

/**
 * Every badge of the home screen in ONE Redis round trip, to the user's database (at N > 1 too). Only when a cache is missing (new user,
 * cache loss) does it rebuild that cache from Postgres and ask again. Redis (the user's database) down: 200 with
 * `degraded` and Postgres-backed values (broadcasts, inbox) where Postgres answers, zeros otherwise.
 */
export async function getBadges(services: Services, userId: string, cap: number): Promise<Badges> {
  return (await getBadgesAndBigFollows(services, userId, cap, false)).badges;
}

/**
 * `getBadges`, and the big accounts the user follows as the same read saw them (a live hub's
 * snapshot: it moves `authors` and `feed` in place when one of them posts). `bigFollows` is null
 * when not asked for or when Redis is down.
 */
export async function getBadgesAndBigFollows(
  services: Services,
  userId: string,
  cap: number,
  wantBigs = true,
): Promise<{ badges: Badges; bigFollows: string[] | null }> {
  let raw: Raw;
  try {
    raw = await runBadges(services, userId, cap, wantBigs);
    const rebuilds: Promise<unknown>[] = [];
    if (raw.broadcasts.missing) rebuilds.push(syncBroadcastIds(services, services.redisFor(userId)));
    if (raw.authors.missing) rebuilds.push(warmAuthorSeen(services, userId));
    if (raw.streams.missing) rebuilds.push(warmStreamAccess(services, userId));
    if (raw.inbox.missing) rebuilds.push(warmInbox(services, userId));
    if (rebuilds.length > 0) {
      await Promise.all(rebuilds);
      raw = await runBadges(services, userId, cap, wantBigs);
    }
  } catch (err) {
    if (!isRedisOutage(err)) throw err;
    return { badges: await degradedBadges(services, userId, cap), bigFollows: null };
  }
  if (raw.broadcasts.firstSeen) services.waitUntil(persistFirstSeen(services, userId, raw.broadcasts.firstSeen).catch(() => undefined));
  const badges: Badges = {
    cap,
    degraded: false,
    notifications: { byType: capAll(luaMap(raw.notifications.byType), cap), total: capped(raw.notifications.total, cap) },
    broadcasts: capped(raw.broadcasts.unread, cap),
    reddots: luaMap(raw.reddots),
    authors: capped(raw.authors.total, cap),
    streams: { total: capped(raw.streams.total, cap), byStream: capAll(luaMap(raw.streams.byStream), cap) },
    dms: capped(raw.dms.total, cap),
    inbox: { byType: capAll(luaMap(raw.inbox.byType), cap), total: capped(raw.inbox.total, cap) },
    feed: capped(raw.feed, cap),
  };
  // cjson answers an empty Lua table as {}: no big accounts.
  const bigFollows = wantBigs ? (Array.isArray(raw.feedBigs) ? raw.feedBigs.map(String) : []) : null;
  return { badges, bigFollows };
}

async function degradedBadges(services: Services, userId: string, cap: number): Promise<Badges> {
  const zero = capped(0, cap);
  const [broadcasts, inbox] = await Promise.all([
    unreadBroadcastsFromPostgres(services, userId, cap).catch(() => 0),
    inboxFromPostgres(services, userId).catch(() => ({ byType: {}, total: 0 })),
  ]);
  return {
    cap,
    degraded: true,
    notifications: { byType: {}, total: zero },
    broadcasts: capped(broadcasts, cap),
    reddots: {},
    authors: zero,
    streams: { total: zero, byStream: {} },
    dms: zero,
    inbox: { byType: capAll(inbox.byType, cap), total: capped(inbox.total, cap) },
    feed: zero,
  };
}
