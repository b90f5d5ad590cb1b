import { and, eq, sql } from "drizzle-orm";
import { cachedFollowState, warmAuthorSeen } from "../badges/authors";
import type { Env } from "../env";
import type { Caller } from "../lib/auth";
import { queryRows } from "../counters/store";
import { ApiError, isDependencyFailure } from "../lib/errors";
import { encodeCursor, decodeCursor } from "../lib/pagination";
import { isRedisOutage } from "../lib/redis-failures";
import { readRegionsOn } from "../lib/consistency";
import { afterResponse, type Services } from "../lib/services";
import { follows } from "../social/schema";
import { blockedAmong } from "../safety/cache";
import { blockedError } from "../safety/store";
import type { FanLookup } from "./fan-lookups";
import type { LocationHint } from "./placement";
import { isPrivileged, mayListFans, mayManageRoom } from "./ownership";
import type { Counts, RoomState, SessionDescriptor, SocketMode } from "./room";
import { errorText, log } from "../lib/log";

export const ROOM_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Shards of a big room; 1 is an ordinary room. One object takes about 1,000 requests/s. */
export const MAX_SHARDS = 64;
/** The last N sessions a loyalty question may span (N compound SELECTs, bound parameters ≤ 100). */
export const MAX_LOYAL_SESSIONS = 30;
/** How long an isolate trusts its copy of a room's session before asking the primary again. */
const SESSION_CACHE_MS = 5_000;

/**
 * The object holding shard `shard` of `roomId`; shard 0 is the primary (sessions, watchers).
 * `location` places the object if this call creates it (`placement.ts`): the host's session start
 * passes its chosen hint, calls made for a session pass the room's recorded one, and calls without
 * a session (reading which session is live) pass none.
 */
export function roomStub(env: Pick<Env, "LIVE_ROOMS">, roomId: string, shard = 0, location: LocationHint | null = null) {
  const name = shard === 0 ? roomId : `${roomId}/shard/${shard}`;
  const id = env.LIVE_ROOMS.idFromName(name);
  return location === null ? env.LIVE_ROOMS.get(id) : env.LIVE_ROOMS.get(id, { locationHint: location });
}

/** The object of `session` owning shard `shard`, reached with the room's recorded placement. */
function sessionStub(env: Pick<Env, "LIVE_ROOMS">, session: SessionDescriptor, shard: number) {
  return roomStub(env, session.roomId, shard, session.location);
}

/** Which shard owns `userId`: FNV-1a of the id, so every Worker agrees without a lookup. */
export function shardOf(userId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    h ^= userId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

const sessionCache = new Map<string, RoomState & { until: number }>();

/**
 * The room's current session and owner, from this isolate's short cache or the primary (one call
 * for both: checking the owner costs the hot paths nothing).
 */
async function roomState(env: Env, roomId: string, fresh = false): Promise<RoomState> {
  const cached = sessionCache.get(roomId);
  if (!fresh && cached && cached.until > Date.now()) return cached;
  const state = await roomStub(env, roomId).state();
  remember(roomId, state);
  return state;
}

function remember(roomId: string, state: RoomState) {
  if (sessionCache.size > 10_000) sessionCache.clear();
  sessionCache.set(roomId, { ...state, until: Date.now() + SESSION_CACHE_MS });
}

/** The room's current session, from this isolate's short cache or the primary. */
async function currentSession(env: Env, roomId: string, fresh = false): Promise<SessionDescriptor | null> {
  return (await roomState(env, roomId, fresh)).session;
}

/** The room's live session, or 409 when it has none. */
export async function liveSession(env: Env, roomId: string, fresh = false): Promise<SessionDescriptor> {
  const session = await currentSession(env, roomId, fresh);
  if (!session || session.endedAt !== null) throw new ApiError("conflict", `Room ${roomId} has no live session`);
  return session;
}

/**
 * The database of `userId`'s follow cache: its owner's, the viewer's (the follower's), at any N.
 * The badges capability's follow and unfollow events keep it there; a rebuild writes it there.
 */
export function followCacheRedis(services: Pick<Services, "redisFor">, userId: string) {
  return services.redisFor(userId);
}

/**
 * Whether `userId` follows `hostId` (WebSocket connects; HTTP joins look the cache up in the room
 * object and come here through `resolveFan` only when it cannot say). ONE Redis command, to the
 * viewer's database, when the viewer's follow cache (the badges capability's followed-authors
 * hash, kept by follow and unfollow events before their response) is built: a field means fan; no
 * field means not a fan when the cache holds every follow. Postgres answers only when the cache is
 * missing (it is rebuilt from the same read), is a capped subset lacking the host, or the viewer's
 * database is down.
 */
export async function isFanOf(services: Services, userId: string, hostId: string): Promise<boolean> {
  if (userId === hostId) return false;
  let state: FanLookup;
  try {
    state = await cachedFollowState(followCacheRedis(services, userId), userId, hostId);
  } catch (err) {
    if (!isRedisOutage(err)) throw err;
    state = "redis_down";
  }
  return resolveFan(services, userId, hostId, state);
}

/**
 * The fan status once the follow cache answered `state`: a missing cache is rebuilt from Postgres
 * and answers from the rows read; a capped subset lacking the host, or Redis down, asks Postgres;
 * a lookup that failed otherwise is made again here, so its error surfaces. With read regions a
 * missing cache is answered by Postgres' primary-key lookup and rebuilt after the answer
 * (`rebuildFollowCacheAfterAnswer`): the rebuild's epoch read and write go to the primary, which
 * the join then does not wait for.
 */
export async function resolveFan(services: Services, userId: string, hostId: string, state: FanLookup): Promise<boolean> {
  if (state === "follows") return true;
  if (state === "not_following") return false;
  if (state === "failed") return isFanOf(services, userId, hostId);
  if (state === "missing" && readRegionsOn(services.env)) {
    services.waitUntil(rebuildFollowCacheAfterAnswer(services, userId));
    return isFanInPostgres(services, userId, hostId);
  }
  if (state === "missing") {
    try {
      const built = await warmAuthorSeen({ db: services.db, redis: followCacheRedis(services, userId) }, userId);
      if (built.followees.includes(hostId)) return true;
      if (built.complete) return false;
    } catch (err) {
      if (!isRedisOutage(err)) throw err;
    }
  }
  return isFanInPostgres(services, userId, hostId);
}

/**
 * A missing follow cache rebuilt after the join that found it missing has answered, as the join
 * would have rebuilt it (`warmAuthorSeen`: epoch, Postgres rows, a write the epoch guards). On
 * services of its own: the join's Postgres pool closes with its answer. Never fails the join.
 */
async function rebuildFollowCacheAfterAnswer(joiner: Services, userId: string): Promise<void> {
  try {
    await afterResponse(joiner, (services) => warmAuthorSeen({ db: services.db, redis: followCacheRedis(services, userId) }, userId));
  } catch (err) {
    log.warn({ message: "follow cache rebuild after a join failed", userId, error: errorText(err) });
  }
}

/** Whether `userId` follows `hostId` in Postgres: one primary-key lookup on `follows`. */
export async function isFanInPostgres(services: Pick<Services, "db">, userId: string, hostId: string): Promise<boolean> {
  if (userId === hostId) return false;
  const rows = await services.db
    .select({ one: sql<number>`1` })
    .from(follows)
    .where(and(eq(follows.followerId, userId), eq(follows.followeeId, hostId)))
    .limit(1);
  return rows.length > 0;
}

export function forShard(session: SessionDescriptor, shard: number): SessionDescriptor {
  return { ...session, shard };
}

// ------------------------------------------------------------------ sessions

export type SessionView = {
  roomId: string;
  sessionId: string;
  hostId: string;
  ownerId: string;
  shards: number;
  location: LocationHint | null;
  startedAt: string;
  endedAt: string | null;
};

function sessionView(s: SessionDescriptor, ownerId: string): SessionView {
  return {
    roomId: s.roomId,
    sessionId: s.sessionId,
    hostId: s.hostId,
    ownerId,
    shards: s.shards,
    location: s.location,
    startedAt: new Date(s.startedAt).toISOString(),
    endedAt: s.endedAt === null ? null : new Date(s.endedAt).toISOString(),
  };
}

/**
 * Starts a session for `hostId`; a live one ends first. Who may is the room's to decide
 * (`ownerAfterStart` in `ownership.ts`, applied by the primary in the same call): its owner, or a
 * user claiming a room nobody owns, hosting themself; a service or an admin for anyone
 * (`assignOwner` makes `hostId` the owner). A refused start is a 403 that changed nothing.
 * `location` is the hint chosen for this start (the app's, else the host's request's): it places
 * the room's primary if this call creates it, and the room records it as its placement then.
 */
export async function startSession(
  services: Services,
  caller: Caller,
  roomId: string,
  input: { hostId: string; shards: number; location: LocationHint | null; assignOwner: boolean },
) {
  if (!isPrivileged(caller) && caller.userId !== input.hostId) {
    throw new ApiError("forbidden", "Only the host or a service may start a session for this host");
  }
  const started = await roomStub(services.env, roomId, 0, input.location).startSession({ roomId, ...input, caller });
  if (started.status === "forbidden") {
    throw new ApiError("forbidden", `Room ${roomId} has another owner; only its owner, a service or an admin may start its sessions`);
  }
  const { session, previous, ownerId } = started;
  if (previous) await endOnShards(services.env, previous);
  await recordSessionStart(services, session);
  remember(roomId, { session, ownerId });
  return sessionView(session, ownerId);
}

/**
 * Ends the live session (its owner, a service or an admin, checked against a fresh read of the
 * primary): everyone leaves, on every shard. A refused end is a 403 that changed nothing.
 */
export async function endSession(services: Services, caller: Caller, roomId: string) {
  const { session, ownerId } = await roomState(services.env, roomId, true);
  if (!mayManageRoom(caller, ownerId)) {
    throw new ApiError("forbidden", `Only the owner of room ${roomId}, a service or an admin may end its session`);
  }
  if (!session || session.endedAt !== null) throw new ApiError("conflict", `Room ${roomId} has no live session`);
  await sessionStub(services.env, session, 0).endSession(session.sessionId);
  await endOnShards(services.env, session);
  sessionCache.delete(roomId);
  return { ...sessionView(session, ownerId ?? session.hostId), endedAt: new Date().toISOString() };
}

async function endOnShards(env: Env, session: SessionDescriptor) {
  await Promise.all(
    Array.from({ length: session.shards - 1 }, (_, i) => sessionStub(env, session, i + 1).endSession(session.sessionId)),
  );
}

// ------------------------------------------------------------------ presence

/**
 * Enters (or refreshes) `userId` from one HTTP device: one object call, which also resolves the fan
 * status of a user new to the room from the follow cache (a refresh reuses the status recorded at
 * join; following the host mid-session counts from the next join). Only when the cache cannot say
 * does the Worker resolve the status from what the object saw (`resolveFan`: a cache rebuild, or a
 * Postgres primary-key lookup) and call again. A stale session copy (another isolate started a new session) is retried
 * once against the primary.
 */
export async function enterRoom(services: Services, roomId: string, userId: string, device: string) {
  for (const fresh of [false, true]) {
    const session = await liveSession(services.env, roomId, fresh);
    await refuseIfBlocked(services, userId, session.hostId);
    const shard = shardOf(userId, session.shards);
    const stub = sessionStub(services.env, session, shard);
    const descriptor = forShard(session, shard);
    let result = await stub.enter(descriptor, userId, null, `http:${device}`, "http");
    if (result.status === "need_fan") {
      result = await stub.enter(descriptor, userId, await resolveFan(services, userId, session.hostId, result.cache), `http:${device}`, "http");
    }
    if (result.status === "ok") return { roomId, sessionId: session.sessionId, userId, online: true, isFan: result.isFan, joined: result.joined };
  }
  throw new ApiError("conflict", `Room ${roomId} changed sessions; retry`);
}

/** Leaves from one HTTP device; idempotent. */
export async function leaveRoom(services: Services, roomId: string, userId: string, device: string) {
  const session = await currentSession(services.env, roomId);
  if (!session) return { roomId, userId, online: false, left: false };
  const stub = sessionStub(services.env, session, shardOf(userId, session.shards));
  const result = await stub.leave(userId, `http:${device}`);
  const still = result.left ? false : (await stub.viewer(userId)).online;
  return { roomId, userId, online: still, left: result.left };
}

/**
 * Forwards a WebSocket upgrade to the object that will hold the socket: the viewer's shard, or the
 * primary for watchers (the host always watches; counts are pushed there).
 */
export async function connectSocket(services: Services, request: Request, caller: Caller, roomId: string, requested: SocketMode, protocol: string | null, expiresAt: number) {
  for (const fresh of [false, true]) {
    const session = await liveSession(services.env, roomId, fresh);
    await refuseIfBlocked(services, caller.userId, session.hostId);
    const mode: SocketMode = caller.userId === session.hostId ? "watch" : requested;
    const shard = mode === "watch" ? 0 : shardOf(caller.userId, session.shards);
    const isFan = mode === "view" ? await isFanOf(services, caller.userId, session.hostId) : false;
    const headers = new Headers(request.headers);
    headers.set("X-Live-Session", JSON.stringify(forShard(session, shard)));
    headers.set("X-Live-User", caller.userId);
    headers.set("X-Live-Fan", isFan ? "1" : "0");
    headers.set("X-Live-Mode", mode);
    headers.set("X-Live-Expires", String(expiresAt));
    if (protocol) headers.set("X-Live-Protocol", protocol);
    const response = await sessionStub(services.env, session, shard).fetch(new Request(request.url, { headers }));
    if (response.status !== 409) return response;
  }
  throw new ApiError("conflict", `Room ${roomId} changed sessions; retry`);
}

/**
 * 403 `blocked` when a block stands between `userId` and the room's host (either way), read from
 * the joiner's own safety sets (src/safety: they hold both directions), one read-only call to the
 * joiner's database before the room is entered: nothing is entered, nothing counted. The join path
 * reads no Postgres and waits on no outage: sets not cached (rebuilt by the user's next feed or
 * badges read) or Redis down let the join in — a block made since the user's last read still
 * ejects them from the host's live rooms at the block (`ejectFromRoomsOf`).
 */
async function refuseIfBlocked(services: Services, userId: string, hostId: string): Promise<void> {
  if (userId === hostId) return;
  let blocked: Set<string>;
  try {
    blocked = await blockedAmong(services, userId, [hostId], { rebuild: false });
  } catch (err) {
    if (!isDependencyFailure(err) && !isRedisOutage(err)) throw err;
    log.warn({ message: "live join: safety sets unreadable, join let in", userId, hostId, error: errorText(err) });
    return;
  }
  if (blocked.size > 0) throw blockedError("You cannot join this room");
}

/** Rooms whose last session started within this long are looked at by an ejection (`live_session_starts` keeps 7 days). */
const EJECT_LOOKBACK = "7 days";

/**
 * A block between `hostId` and `userId` (src/safety calls this for both directions): `userId`
 * leaves every live room `hostId` hosts at once — each socket they hold there closed
 * (CLOSE_BLOCKED), each HTTP presence dropped, so the room's viewers and fans-online figures stop
 * counting them. The rooms are the ones `live_session_starts` names with `hostId` as host (one
 * statement); each live one's shard holding `userId` and its primary (the watchers' sockets) are
 * called, in parallel. Answers how many connections were dropped.
 */
export async function ejectFromRoomsOf(services: Services, hostId: string, userId: string): Promise<number> {
  const rows = await queryRows<{ room_id: string }>(
    services.db,
    `SELECT room_id FROM live_session_starts WHERE host_id = $1 AND started_at > now() - interval '${EJECT_LOOKBACK}'`,
    [hostId],
  );
  const dropped = await Promise.all(
    rows.map(async ({ room_id: roomId }) => {
      const session = await currentSession(services.env, roomId, true);
      if (!session || session.endedAt !== null || session.hostId !== hostId) return 0;
      const shard = shardOf(userId, session.shards);
      const stubs = new Set([shard, 0]);
      const done = await Promise.all([...stubs].map((i) => sessionStub(services.env, session, i).eject(userId)));
      return done.reduce((n, d) => n + d.dropped, 0);
    }),
  );
  return dropped.reduce((a, b) => a + b, 0);
}

/** Rooms a suspension's ejection asks at once (each one object call, two for a live one). */
const EJECT_BATCH = 10;

/**
 * A suspension (src/safety's `user.suspended`): `userId` leaves every live room at once. A session
 * they host ends (their own sockets closed first with CLOSE_SUSPENDED, then everyone leaves as at
 * any end); in any other live room, every socket they hold closes with CLOSE_SUSPENDED (4003) and
 * their HTTP presence goes, so the viewers and fans-online figures stop counting them. The room a
 * viewer is in is not known from the user, so every room whose last session started within
 * EJECT_LOOKBACK (`live_session_starts`, one statement) is asked, EJECT_BATCH at a time: one object
 * call per room, and one or two more per live one. A join or socket upgrade is refused from then on
 * (`authenticate`: 403 `suspended`). Answers how many connections were dropped.
 */
export async function ejectSuspended(services: Services, userId: string): Promise<number> {
  const rows = await queryRows<{ room_id: string }>(
    services.db,
    `SELECT room_id FROM live_session_starts WHERE started_at > now() - interval '${EJECT_LOOKBACK}' ORDER BY (host_id = $1) DESC, started_at DESC`,
    [userId],
  );
  let dropped = 0;
  for (let i = 0; i < rows.length; i += EJECT_BATCH) {
    const done = await Promise.all(
      rows.slice(i, i + EJECT_BATCH).map(async ({ room_id: roomId }) => {
        const session = await currentSession(services.env, roomId, true);
        if (!session || session.endedAt !== null) return 0;
        if (session.hostId === userId) {
          const { dropped: own } = await sessionStub(services.env, session, 0).eject(userId, "suspended");
          await sessionStub(services.env, session, 0).endSession(session.sessionId);
          await endOnShards(services.env, session);
          sessionCache.delete(roomId);
          return own;
        }
        const stubs = new Set([shardOf(userId, session.shards), 0]);
        const ejected = await Promise.all([...stubs].map((s) => sessionStub(services.env, session, s).eject(userId, "suspended")));
        return ejected.reduce((n, d) => n + d.dropped, 0);
      }),
    );
    dropped += done.reduce((a, b) => a + b, 0);
  }
  return dropped;
}

// ------------------------------------------------------------------ reads

/** Every shard's object of the session (one for an ordinary room). */
export function shardsOf(env: Env, session: SessionDescriptor | null, roomId: string) {
  return Array.from({ length: session?.shards ?? 1 }, (_, i) => roomStub(env, roomId, i, session?.location ?? null));
}

/** `{viewers, onlineFans}` of the live session, summed over the shards in parallel. */
export async function roomCounts(env: Env, roomId: string): Promise<Counts & { roomId: string; sessionId: string | null; live: boolean }> {
  const session = await currentSession(env, roomId);
  if (!session || session.endedAt !== null) return { roomId, viewers: 0, onlineFans: 0, sessionId: session?.sessionId ?? null, live: false };
  const parts = await Promise.all(shardsOf(env, session, roomId).map((stub) => stub.getCounts(session.sessionId)));
  return {
    roomId,
    viewers: parts.reduce((sum, p) => sum + p.viewers, 0),
    onlineFans: parts.reduce((sum, p) => sum + p.onlineFans, 0),
    sessionId: session.sessionId,
    live: true,
  };
}

/** Counts of many rooms at once (service dashboards): one parallel call per room object. */
export async function manyRoomCounts(env: Env, roomIds: string[]) {
  return { items: await Promise.all(roomIds.map((roomId) => roomCounts(env, roomId))) };
}

/** Online fans, a page in user-id order merged over the shards (the owner, services and admins only). */
export async function listOnlineFans(env: Env, caller: Caller, roomId: string, page: { limit: number; cursor?: string }) {
  const { session, ownerId } = await roomState(env, roomId);
  if (!mayListFans(caller, ownerId)) throw new ApiError("forbidden", "Only the room's owner, a service or an admin may list the fans in this room");
  const after = page.cursor ? decodeCursor(page.cursor, 1)[0]! : "";
  if (!session || session.endedAt !== null) return { items: [], nextCursor: null };
  const parts = await Promise.all(shardsOf(env, session, roomId).map((stub) => stub.listFans(after, page.limit + 1)));
  return mergePage(parts.flat(), page.limit, (userId) => ({ userId }));
}

function mergePage<T>(ids: string[], limit: number, item: (id: string) => T) {
  const sorted = ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const more = sorted.length > limit;
  const pageIds = sorted.slice(0, limit);
  return { items: pageIds.map(item), nextCursor: more ? encodeCursor([pageIds[pageIds.length - 1]!]) : null };
}

/** Whether `userId` is in the room now, and as a fan. */
export async function viewerStatus(env: Env, roomId: string, userId: string) {
  const session = await currentSession(env, roomId);
  const live = session !== null && session.endedAt === null;
  const status = live ? await sessionStub(env, session, shardOf(userId, session.shards)).viewer(userId) : { online: false, isFan: false, joinedAt: null };
  return {
    roomId,
    userId,
    online: status.online,
    isFan: status.isFan,
    joinedAt: status.joinedAt === null ? null : new Date(status.joinedAt).toISOString(),
  };
}

/** Distinct fans who joined in [from, to), summed over the shards (users are split by shard). */
export async function joinedFans(env: Env, roomId: string, from: Date, to: Date) {
  const session = await currentSession(env, roomId);
  const parts = await Promise.all(shardsOf(env, session, roomId).map((stub) => stub.joinedFans(from.getTime(), to.getTime())));
  return { roomId, from: from.toISOString(), to: to.toISOString(), fans: parts.reduce((a, b) => a + b, 0) };
}

/**
 * Fans who attended all (INTERSECT) or any (UNION) of the last `sessions` sessions. Everyone gets
 * the count; the room's owner, services and admins also get a page of ids.
 */
export async function loyalFans(
  env: Env,
  caller: Caller,
  roomId: string,
  query: { sessions: number; mode: "all" | "any"; limit: number; cursor?: string },
) {
  const { session, ownerId } = await roomState(env, roomId);
  const sessionIds = await roomStub(env, roomId).lastSessions(query.sessions);
  const mayList = mayListFans(caller, ownerId);
  const after = query.cursor ? decodeCursor(query.cursor, 1)[0]! : "";
  const limit = mayList ? query.limit + 1 : 0;
  const parts = await Promise.all(shardsOf(env, session, roomId).map((stub) => stub.loyalFans(sessionIds, query.mode, after, limit)));
  const count = parts.reduce((sum, p) => sum + p.count, 0);
  const page = mayList ? mergePage(parts.flatMap((p) => p.ids), query.limit, (userId) => ({ userId })) : { items: null, nextCursor: null };
  return { roomId, mode: query.mode, sessionIds, count, ...page };
}

/** Rows of rooms whose last session started longer ago than this are pruned. */
const KEEP_DAYS = 7;

/**
 * Records a session start: ONE statement (upsert of the room's row, pruning rows over a week old).
 * Best effort: a failure is logged and the session stands; the room is only missing from the
 * operators' count until its next session.
 */
export async function recordSessionStart(services: Pick<Services, "db">, session: SessionDescriptor): Promise<void> {
  try {
    await queryRows(
      services.db,
      `WITH pruned AS (DELETE FROM live_session_starts WHERE started_at < now() - make_interval(days => $5))
       INSERT INTO live_session_starts (room_id, session_id, host_id, started_at) VALUES ($1, $2, $3, to_timestamp($4 / 1000.0))
       ON CONFLICT (room_id) DO UPDATE SET session_id = excluded.session_id, host_id = excluded.host_id, started_at = excluded.started_at`,
      [session.roomId, session.sessionId, session.hostId, session.startedAt, KEEP_DAYS],
    );
  } catch (err) {
    log.error({ message: "live session start not recorded", roomId: session.roomId, error: errorText(err) });
  }
}
