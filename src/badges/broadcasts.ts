import { and, desc, eq, lt, max, sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { decodeCursor, toPage } from "../lib/pagination";
import { afterCommit, isRedisOutage } from "../lib/redis-failures";
import { afterResponse, type Services } from "../lib/services";
import { badgeKeys, BROADCAST_WINDOW, USER_TTL_SECONDS } from "./keys";
import { ADD_BROADCAST_IDS, GET_BROADCAST_STATE, RAISE_BROADCAST_MARKER, RESTORE_BROADCAST_MARKER, SET_FIRST_SEEN } from "./broadcasts.lua";
import { broadcastReads, broadcasts } from "./schema";
import { activeRecord, runUserWrite } from "./active";
import { inBackground, runEverywhere, runReadScript, runScript, type EveryDatabase, type ScriptRedis } from "./shared";

export type Broadcast = { id: string; title: string; body: string; createdAt: string };

/** Stores a broadcast in Postgres and adds its id to the Redis window: nothing is written per user. */
export async function createBroadcast(services: Services, title: string, body: string): Promise<Broadcast & { degraded: boolean }> {
  const [row] = await services.db.insert(broadcasts).values({ title, body }).returning();
  const b = toBroadcast(row!);
  // Every database holds the id window (each user's badges read it from their own database).
  // Postgres has it; a database that misses it (down) gets it from the cron's resync within a
  // minute of being back. `degraded` only when every database missed it.
  const degraded = await afterCommit(() => addBroadcastIdEverywhere(services, b.id));
  return { ...b, degraded };
}

/** Adds one broadcast id to the window of every database (one call each; one in all at N = 1). */
export function addBroadcastIdEverywhere(services: EveryDatabase, id: string) {
  return runEverywhere<{ added: number }>(services, ADD_BROADCAST_IDS, [badgeKeys.broadcastIds()], [BROADCAST_WINDOW, id]);
}

/**
 * Re-adds the newest BROADCAST_WINDOW ids from Postgres to ONE database's window (cache loss, or a
 * write that database missed): `redis` is the user's database on a read's rebuild, each database
 * in turn in the repair cron.
 */
export async function syncBroadcastIds(services: Pick<Services, "db">, redis: ScriptRedis) {
  const rows = await services.db.select({ id: broadcasts.id }).from(broadcasts).orderBy(desc(broadcasts.id)).limit(BROADCAST_WINDOW);
  return runScript<{ added: number }>(redis, ADD_BROADCAST_IDS, [badgeKeys.broadcastIds()], [BROADCAST_WINDOW, ...rows.map((r) => r.id.toString())]);
}

type BroadcastState = { missing: boolean; firstSeen: string | false; unread: number; lastReadId: string | false };

/** Redis state of the user's broadcasts; persists a first-seen marker and resyncs a lost id set. */
export async function broadcastState(services: Services, userId: string): Promise<{ unread: number; lastReadId: string }> {
  const redis = services.redisFor(userId);
  const read = () => runReadScript<BroadcastState>(redis, GET_BROADCAST_STATE, [badgeKeys.markers(userId), badgeKeys.broadcastIds()], []);
  let state = await read();
  if (state.missing) {
    await syncBroadcastIds(services, redis);
    state = await read();
  }
  if (state.firstSeen) services.waitUntil(inBackground("first-seen broadcast marker", userId, recordFirstSeen(services, userId, state.firstSeen)));
  return { unread: state.unread, lastReadId: state.lastReadId || "0" };
}

/**
 * Records the first-seen marker a read answered from (the newest broadcast when it found none),
 * unless the user has one by now, then tells Postgres (`persistFirstSeen`).
 */
export async function recordFirstSeen(services: Services, userId: string, firstSeen: string) {
  const set = await runScript<number>(services.redisFor(userId), SET_FIRST_SEEN, [badgeKeys.markers(userId)], [firstSeen, USER_TTL_SECONDS]);
  // After the response: on services of its own (the request's Postgres pool is closed by then).
  if (set === 1) await afterResponse(services, (own) => persistFirstSeen(own, userId, firstSeen));
}

/**
 * Records a first-seen marker in Postgres. If Postgres already had a marker (the Redis one was
 * lost), that older marker is the truth: put it back in Redis unless the user read meanwhile.
 */
export async function persistFirstSeen(services: Pick<Services, "db" | "redisFor">, userId: string, firstSeen: string) {
  const inserted = await services.db
    .insert(broadcastReads)
    .values({ userId, lastReadId: BigInt(firstSeen) })
    .onConflictDoNothing()
    .returning({ userId: broadcastReads.userId });
  if (inserted.length > 0) return;
  const [row] = await services.db.select({ lastReadId: broadcastReads.lastReadId }).from(broadcastReads).where(eq(broadcastReads.userId, userId));
  if (row && row.lastReadId < BigInt(firstSeen)) {
    await runScript(services.redisFor(userId), RESTORE_BROADCAST_MARKER, [badgeKeys.markers(userId)], [firstSeen, row.lastReadId.toString()]);
  }
}

/**
 * Moves the user's last-read id up to `upTo` (default: the newest broadcast), never backwards,
 * in Postgres (truth) then Redis. With Redis down the Postgres marker is kept and `degraded` says so.
 */
export async function readBroadcasts(services: Services, userId: string, upTo?: string) {
  const [newest] = await services.db.select({ id: max(broadcasts.id) }).from(broadcasts);
  const newestId = newest?.id ?? 0n;
  const target = upTo === undefined || BigInt(upTo) > newestId ? newestId : BigInt(upTo);
  const [row] = await services.db
    .insert(broadcastReads)
    .values({ userId, lastReadId: target })
    .onConflictDoUpdate({
      target: broadcastReads.userId,
      set: { lastReadId: sql`greatest(${broadcastReads.lastReadId}, excluded.last_read_id)`, updatedAt: sql`now()` },
    })
    .returning({ lastReadId: broadcastReads.lastReadId });
  const persisted = row!.lastReadId.toString();
  try {
    const r = await runUserWrite<{ lastReadId: string }>(services.redisFor(userId), activeRecord(services.env, userId), RAISE_BROADCAST_MARKER, [badgeKeys.markers(userId)], [persisted, USER_TTL_SECONDS]);
    return { lastReadId: r.lastReadId, degraded: false };
  } catch (err) {
    if (!isRedisOutage(err)) throw err;
    return { lastReadId: persisted, degraded: true };
  }
}

/** Broadcasts newest first with a read flag against the user's marker, and the unread count. */
export async function listBroadcasts(services: Services, userId: string, page: { limit: number; cursor?: string }) {
  const { unread, lastReadId, degraded } = await broadcastState(services, userId).then(
    (state) => ({ ...state, degraded: false }),
    async (err: unknown) => {
      if (!isRedisOutage(err)) throw err;
      return { ...(await postgresBroadcastState(services, userId)), degraded: true };
    },
  );
  const before = page.cursor ? decodeBroadcastCursor(page.cursor) : undefined;
  const rows = await services.db
    .select()
    .from(broadcasts)
    .where(and(before ? lt(broadcasts.id, before) : undefined))
    .orderBy(desc(broadcasts.id))
    .limit(page.limit + 1);
  const marker = BigInt(lastReadId);
  return {
    unread,
    lastReadId,
    degraded,
    ...toPage(rows, page.limit, (r) => ({ ...toBroadcast(r), read: r.id <= marker }), (r) => [r.id.toString()]),
  };
}

/** The Postgres marker (no marker: everything counts as read) and unread count, capped at 999. */
async function postgresBroadcastState(services: Pick<Services, "db">, userId: string) {
  const [row] = await services.db.select({ lastReadId: broadcastReads.lastReadId }).from(broadcastReads).where(eq(broadcastReads.userId, userId));
  const [newest] = await services.db.select({ id: max(broadcasts.id) }).from(broadcasts);
  return { unread: await unreadBroadcastsFromPostgres(services, userId, 999), lastReadId: (row?.lastReadId ?? newest?.id ?? 0n).toString() };
}

/** Postgres-only unread count (the degraded answer when Redis is down). */
export async function unreadBroadcastsFromPostgres(services: Pick<Services, "db">, userId: string, cap: number): Promise<number> {
  const rows = await services.db.execute<{ n: number }>(sql`
    select count(*)::int as n from (
      select 1 from ${broadcasts}
      where ${broadcasts.id} > coalesce((select ${broadcastReads.lastReadId} from ${broadcastReads} where ${broadcastReads.userId} = ${userId}), (select max(${broadcasts.id}) from ${broadcasts}))
      limit ${cap + 1}
    ) t`);
  return Number(rows.rows[0]?.n ?? 0);
}

function toBroadcast(r: { id: bigint; title: string; body: string; createdAt: string }): Broadcast {
  return { id: r.id.toString(), title: r.title, body: r.body, createdAt: isoTimestamp(r.createdAt) };
}

function decodeBroadcastCursor(cursor: string): bigint {
  const [id] = decodeCursor(cursor, 1) as [string];
  if (!isId(id)) throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  return BigInt(id);
}
