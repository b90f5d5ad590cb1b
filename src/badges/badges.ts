import { isRedisOutage } from "../lib/redis-failures";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { readRegionsOn } from "../lib/consistency";
import { AFTER_BADGES_READ, GET_BADGES } from "./badges.lua";
import { persistFirstSeen, syncBroadcastIds, unreadBroadcastsFromPostgres } from "./broadcasts";
import { rebuildAuthorSeenAfter, SAFETY_ATTEMPTS } from "./authors";
import { DependencyUnavailableError } from "../lib/errors";
import { rebuildSets } from "../safety/cache";
import { safetyNow } from "../safety/clock";
import { suspendedArg } from "../safety/copy";
import { safetyKeysOf } from "../safety/keys";
import { inboxFromPostgres, inboxUnreadFromPostgres } from "./inbox";
import { streamUnreadFromPostgres } from "./streams";
import { capAll, capped, inBackground, luaMap, runReadScript, runScript, type Capped } from "./shared";
import { afterResponse, type Services } from "../lib/services";
import { feedKeys, maxPulledAccounts } from "../feed/keys";

type Raw = {
  /** The user's safety sets were not cached (the counts are unfiltered): rebuilt, and read again if they hide anyone. */
  safetyMiss?: boolean;
  safetyEpoch?: string;
  notifications: { byType: Record<string, number> | unknown[]; total: number };
  broadcasts: { missing: boolean; unread: number };
  reddots: Record<string, boolean> | unknown[];
  /** `epoch`: the follow epoch, read when the cache is missing (its rebuild must still see it). */
  authors: { missing: boolean; total: number; epoch?: string };
  streams: { missing: boolean; total: number; byStream: Record<string, number> | unknown[] };
  dms: { total: number };
  inbox: { missing: boolean; byType: Record<string, number> | unknown[]; total: number };
  feed: number;
  /** The big accounts the user follows (the feed's pulled set), when asked for. */
  feedBigs?: string[] | Record<string, never>;
  /** What the read found to write (AFTER_BADGES_READ), absent when nothing is due. */
  due?: Due;
};

/** A first-seen broadcast marker to record (false: none), the stream counts to remember (field, value pairs; cjson's `{}` when none). */
type Due = { firstSeen: string | false; remember: string[] | Record<string, never> };

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


/**
 * The badges script, on the user's database: every key it reads is the user's or a global key
 * written to every database. Read-only (EVALSHA_RO): a read region answers it.
 */
async function runBadges(services: Services, userId: string, cap: number, wantBigs: boolean) {
  const suspended = await suspendedArg(services);
  return runReadScript<Raw>(
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
      feedKeys.seen(userId),
      feedKeys.timeline(userId),
      feedKeys.bigFollows(userId),
      feedKeys.activity(),
      badgeKeys.authorSeenEpoch(userId),
      ...safetyKeysOf(userId),
    ],
    [cap, Date.now(), badgeKeys.streamItems(""), feedKeys.outboxPrefix(), maxPulledAccounts(services.env), wantBigs ? 1 : 0, readRegionsOn(services.env) ? 0 : 1, safetyNow(services.env), suspended], // reads record the active set each minute unless read regions are on (`active.ts`)
  );
}

/**
 * What a badges read found due, written after the answer as one call of its own to the user's
 * database (the primary): the read itself writes nothing, so a read region answers it. When the
 * read recorded a first-seen broadcast marker, Postgres is told (`persistFirstSeen`).
 */
async function writeAfterRead(services: Services, userId: string, due: Due) {
  const remember = Array.isArray(due.remember) ? due.remember : [];
  const recorded = await runScript<number>(
    services.redisFor(userId),
    AFTER_BADGES_READ,
    [
      badgeKeys.markers(userId),
      badgeKeys.activeUsers(),
      badgeKeys.streamAccess(userId),
      badgeKeys.notifications(userId),
      badgeKeys.reddotSeen(userId),
      badgeKeys.authorSeen(userId),
      badgeKeys.dms(userId),
      badgeKeys.inbox(userId),
    ],
    [userId, Date.now(), USER_TTL_SECONDS, due.firstSeen || "", ...remember],
  );
  const firstSeen = due.firstSeen;
  if (recorded === 1 && firstSeen) await afterResponse(services, (own) => persistFirstSeen(own, userId, firstSeen));
}

/**
 * The kinds whose cache the read found missing (new user, cache loss), answered as their rebuild
 * would have them: broadcasts and inbox from Postgres, streams from Postgres' membership against
 * the items in Redis (one more read-only call), authors 0 (a rebuilt follow cache starts every
 * followee at their current count). Each rebuild is written beside the answer (`waitUntil`),
 * guarded as before: only into a cache still missing, the follow cache only if the follow epoch
 * the read saw has not moved.
 */
async function answerMissing(services: Services, userId: string, cap: number, raw: Raw): Promise<void> {
  const redis = services.redisFor(userId);
  const work: Promise<void>[] = [];
  if (raw.broadcasts.missing) {
    services.waitUntil(inBackground("broadcast ids sync", userId, syncBroadcastIds(services, redis)));
    work.push(unreadBroadcastsFromPostgres(services, userId, cap).then((unread) => void (raw.broadcasts.unread = unread)));
  }
  if (raw.authors.missing) {
    raw.authors.total = 0;
    work.push(rebuildAuthorSeenAfter(services, userId, raw.authors.epoch ?? "0"));
  }
  if (raw.streams.missing) work.push(streamUnreadFromPostgres(services, userId, cap).then((streams) => void Object.assign(raw.streams, streams)));
  if (raw.inbox.missing) work.push(inboxUnreadFromPostgres(services, userId).then((inbox) => void Object.assign(raw.inbox, inbox)));
  await Promise.all(work);
}

/**
 * Every badge of the home screen in ONE Redis round trip, to the user's database (at N > 1 too),
 * read-only: a read region of a Global database answers it, nothing goes to the primary. What the
 * read finds due (a first-seen marker, counts to remember, the minute's active record, the day's
 * TTL renewal) is written after the answer, a call of its own (`waitUntil`). Only when a cache is
 * missing (new user, cache loss) does it read Postgres (and, for streams, Redis once more) and
 * rebuild that cache beside the answer. Redis (the user's database) down: 200 with `degraded` and
 * Postgres-backed values (broadcasts, inbox) where Postgres answers, zeros otherwise.
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
    // The user's safety sets not cached: one Postgres read caches them; the counts read unfiltered
    // stand when the sets hide nobody (the common case), else the badges are read again.
    for (let attempt = 1; raw.safetyMiss; attempt++) {
      const sets = await rebuildSets(services, userId, raw.safetyEpoch ?? "");
      if (sets.blocked.size + sets.blockedMe.size + sets.mutes.size === 0) break;
      if (attempt > SAFETY_ATTEMPTS) throw new DependencyUnavailableError("redis", new Error("safety sets not cached after their rebuilds"));
      raw = await runBadges(services, userId, cap, wantBigs);
    }
    if (raw.due) services.waitUntil(inBackground("after the badges read", userId, writeAfterRead(services, userId, raw.due)));
    if (raw.broadcasts.missing || raw.authors.missing || raw.streams.missing || raw.inbox.missing) await answerMissing(services, userId, cap, raw);
  } catch (err) {
    if (!isRedisOutage(err)) throw err;
    return { badges: await degradedBadges(services, userId, cap), bigFollows: null };
  }
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
