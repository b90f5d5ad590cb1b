import { and, desc, eq, lt, max, sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { decodeCursor, encodeCursor, toPage } from "../lib/pagination";
import { errorText, log } from "../lib/log";
import { afterCommit, isRedisOutage } from "../lib/redis-failures";
import { afterResponse, type Services } from "../lib/services";
import { badgeKeys, BROADCAST_LIST_WINDOW, BROADCAST_WINDOW, USER_TTL_SECONDS } from "./keys";
import { ADD_BROADCASTS, GET_BROADCAST_STATE, LIST_BROADCASTS, RAISE_BROADCAST_MARKER, RESTORE_BROADCAST_MARKER, SET_FIRST_SEEN } from "./broadcasts.lua";
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
  const degraded = await afterCommit(() => addBroadcastEverywhere(services, b));
  return { ...b, degraded };
}

/** Adds one broadcast (its id, and what a list shows of it) to every database (one call each; one in all at N = 1). */
export function addBroadcastEverywhere(services: EveryDatabase, b: Broadcast) {
  return runEverywhere<{ added: number }>(services, ADD_BROADCASTS, broadcastKeys(), [BROADCAST_WINDOW, BROADCAST_LIST_WINDOW, 1, b.id, b.id, storedJson(b)]);
}

const broadcastKeys = () => [badgeKeys.broadcastIds(), badgeKeys.broadcastItems()];
/** A broadcast's JSON in `badge:bc:items`: `[title, body, createdAt]`. */
const storedJson = (b: Broadcast) => JSON.stringify([b.title, b.body, b.createdAt]);
/** Broadcasts per resync call: bounds its request (≤ 25 × < 32 KB) below Upstash's request size. */
const ITEMS_PER_SYNC_CALL = 25;

/**
 * Re-adds the newest BROADCAST_WINDOW ids and the newest BROADCAST_LIST_WINDOW broadcasts from
 * Postgres to ONE database (cache loss, or a write that database missed): `redis` is the user's
 * database on a read's rebuild, each database in turn in the repair cron.
 */
export async function syncBroadcastIds(services: Pick<Services, "db">, redis: ScriptRedis) {
  const [rows, newest] = await Promise.all([
    services.db.select({ id: broadcasts.id }).from(broadcasts).orderBy(desc(broadcasts.id)).limit(BROADCAST_WINDOW),
    services.db.select().from(broadcasts).orderBy(desc(broadcasts.id)).limit(BROADCAST_LIST_WINDOW),
  ]);
  const items = newest.map(toBroadcast).flatMap((b) => [b.id, storedJson(b)]);
  const ids = rows.map((r) => r.id.toString());
  const answer = await runScript<{ added: number }>(redis, ADD_BROADCASTS, broadcastKeys(), [BROADCAST_WINDOW, BROADCAST_LIST_WINDOW, ids.length, ...ids, ...items.slice(0, 2 * ITEMS_PER_SYNC_CALL)]);
  for (let at = 2 * ITEMS_PER_SYNC_CALL; at < items.length; at += 2 * ITEMS_PER_SYNC_CALL) {
    await runScript(redis, ADD_BROADCASTS, broadcastKeys(), [BROADCAST_WINDOW, BROADCAST_LIST_WINDOW, 0, ...items.slice(at, at + 2 * ITEMS_PER_SYNC_CALL)]);
  }
  return answer;
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

type ListAnswer =
  | { s: "miss" }
  | ({ unread: number; lastReadId: string; firstSeen: string | false } & ({ s: "hit"; more: boolean; items: [string, [string, string, string]][] } | { s: "short"; gap: boolean }));

/**
 * Broadcasts newest first with a read flag against the user's marker, and the unread count: one
 * read-only call to the user's database answers both for the pages whose broadcasts every database
 * keeps (`badge:bc:items`: the newest BROADCAST_LIST_WINDOW); Postgres answers the others. The id
 * set missing: resynced first, as the badges read does. Redis down: Postgres alone, `degraded`.
 */
export async function listBroadcasts(services: Services, userId: string, page: { limit: number; cursor?: string }) {
  const before = page.cursor ? decodeBroadcastCursor(page.cursor) : undefined;
  const redis = services.redisFor(userId);
  let answer: ListAnswer;
  try {
    answer = await runReadScript<ListAnswer>(redis, LIST_BROADCASTS, [badgeKeys.markers(userId), ...broadcastKeys()], [before?.toString() ?? "", page.limit, BROADCAST_WINDOW]);
  } catch (err) {
    if (!isRedisOutage(err)) throw err;
    const state = await postgresBroadcastState(services, userId);
    return { ...state, degraded: true, ...(await broadcastsFromPostgres(services, before, page.limit, BigInt(state.lastReadId))) };
  }
  if (answer.s === "miss") {
    const { unread, lastReadId } = await broadcastState(services, userId);
    return { unread, lastReadId, degraded: false, ...(await broadcastsFromPostgres(services, before, page.limit, BigInt(lastReadId))) };
  }
  const { unread, firstSeen } = answer;
  const lastReadId = answer.lastReadId;
  if (firstSeen) services.waitUntil(inBackground("first-seen broadcast marker", userId, recordFirstSeen(services, userId, firstSeen)));
  const marker = BigInt(lastReadId);
  if (answer.s === "hit") {
    const items = answer.items.map(([id, [title, body, createdAt]]) => ({ id, title, body, createdAt, read: BigInt(id) <= marker }));
    const last = items[items.length - 1];
    return { unread, lastReadId, degraded: false, items, nextCursor: answer.more && last ? encodeCursor([last.id]) : null };
  }
  // A first page needs nothing older than the items window: a gap in it is a broadcast this
  // database missed (or lost), resynced after the answer.
  if (answer.gap && !before) services.waitUntil(afterResponse(services, (own) => syncBroadcastIds(own, own.redisFor(userId))).catch((err: unknown) => log.warn({ message: "broadcast list resync failed", userId, error: errorText(err) })));
  return { unread, lastReadId, degraded: false, ...(await broadcastsFromPostgres(services, before, page.limit, marker)) };
}

/** One page from Postgres (the truth), `read` = id ≤ `marker`. */
export async function broadcastsFromPostgres(services: Pick<Services, "db">, before: bigint | undefined, limit: number, marker: bigint) {
  const rows = await services.db
    .select()
    .from(broadcasts)
    .where(and(before ? lt(broadcasts.id, before) : undefined))
    .orderBy(desc(broadcasts.id))
    .limit(limit + 1);
  return toPage(rows, limit, (r) => ({ ...toBroadcast(r), read: r.id <= marker }), (r) => [r.id.toString()]);
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
