import { z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import type { Services } from "../lib/services";
import { afterCommit } from "../lib/redis-failures";
import { badgeKeys, streamName, USER_TTL_SECONDS } from "./keys";
import { streamMembers, userAccessLog } from "./schema";
import { runEverywhereOwed } from "./replay";
import { activeRecord, runUserWrite } from "./active";
import { inBackground, luaMap, runReadScript, runScript, type EveryDatabase, type ScriptRedis } from "./shared";
import { COUNT_STREAM_UNREAD_OF, LEAVE_STREAM, LIST_STREAM_UNREAD, REMEMBER_STREAM_COUNTS, TOUCH_STREAM, WARM_STREAM_ACCESS } from "./streams.lua";
import { errorText, log } from "../lib/log";

/** Items kept per stream by default: a badge never shows more than 99+. */
export const DEFAULT_STREAM_CAP = 99;
/** Streams per user read back from Postgres on a rebuild. */
export const MAX_STREAMS_PER_USER = 1000;

export const StreamKindSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, "must be 1-32 of a-z 0-9 _ - starting with a letter")
  .openapi({ param: { name: "kind", in: "path" }, example: "chat" });

/**
 * Records an item posted in a stream at `at` (ms), in EVERY database: each member's badges read
 * counts the stream's items in the member's own database. Redis only: every database down is a 503
 * to retry; one down is owed the item and gets it from the repair cron (`replay.ts`).
 */
export async function addStreamItem(services: EveryDatabase, kind: string, id: string, item: { at: number; itemId?: string; cap: number }) {
  const stream = streamName(kind, id);
  const member = item.itemId ?? `${item.at}:${crypto.randomUUID()}`;
  const { answer: r } = await runEverywhereOwed<{ kept: number }>(services, "streamItem", [badgeKeys.streamItems(stream), badgeKeys.streamLastItem()], [
    stream,
    item.at,
    member,
    item.cap,
    USER_TTL_SECONDS,
    Date.now(),
  ]);
  return { stream, kept: r.kept };
}

const upsertAccess = (services: Services, userId: string, kind: string, id: string, at: Date) =>
  services.db
    .insert(userAccessLog)
    .values({ userId, viewCode: kind, viewId: id, lastAccessAt: at.toISOString() })
    .onConflictDoUpdate({
      target: [userAccessLog.userId, userAccessLog.viewCode, userAccessLog.viewId],
      set: { lastAccessAt: sql`greatest(${userAccessLog.lastAccessAt}, excluded.last_access_at)` },
    });

/** Makes `userId` a member of the stream; their unread starts now (old items do not count). */
export async function joinStream(services: Services, userId: string, kind: string, id: string) {
  const now = new Date();
  const inserted = await services.db.insert(streamMembers).values({ userId, viewCode: kind, viewId: id }).onConflictDoNothing().returning();
  if (inserted.length > 0) await upsertAccess(services, userId, kind, id, now);
  const degraded = await afterCommit(async () => {
    const touched = await runScript<number>(services.redisFor(userId), TOUCH_STREAM, [badgeKeys.streamAccess(userId)], [streamName(kind, id), now.getTime(), USER_TTL_SECONDS, "1"]);
    // No cache yet: build it from Postgres now (membership is committed), so items posted before the
    // user's first read are counted from the join, not from a later rebuild.
    if (touched === 0) await warmStreamAccess(services, userId);
  });
  return { stream: streamName(kind, id), userId, member: true, changed: inserted.length > 0, degraded };
}

export async function leaveStream(services: Services, userId: string, kind: string, id: string) {
  const deleted = await services.db
    .delete(streamMembers)
    .where(and(eq(streamMembers.userId, userId), eq(streamMembers.viewCode, kind), eq(streamMembers.viewId, id)))
    .returning();
  const degraded = await afterCommit(() => runScript(services.redisFor(userId), LEAVE_STREAM, [badgeKeys.streamAccess(userId)], [streamName(kind, id)]));
  return { stream: streamName(kind, id), userId, member: false, changed: deleted.length > 0, degraded };
}

/** Stamps the caller's access to a stream now (auto mark on open): Postgres log, then the cache. */
export async function readStream(services: Services, userId: string, kind: string, id: string) {
  const now = new Date();
  await upsertAccess(services, userId, kind, id, now);
  const degraded = await afterCommit(() =>
    runUserWrite(services.redisFor(userId), activeRecord(services.env, userId), TOUCH_STREAM, [badgeKeys.streamAccess(userId)], [streamName(kind, id), now.getTime(), USER_TTL_SECONDS, "0"]),
  );
  return { stream: streamName(kind, id), lastAccessAt: now.toISOString(), degraded };
}

/**
 * Builds the user's stream cache from Postgres (membership + last access, or join time). With
 * `repair`, overwrites an existing cache's membership, keeping the later access of the two.
 */
export async function warmStreamAccess(services: Pick<Services, "db"> & { redisFor(ownerId: string): ScriptRedis }, userId: string, repair = false) {
  return writeStreamAccess(services, userId, await streamAccessFromPostgres(services, userId), repair);
}

/** What the stream cache holds, from Postgres: stream, last access ms pairs, flat (WARM_STREAM_ACCESS' ARGV). */
export async function streamAccessFromPostgres(services: Pick<Services, "db">, userId: string): Promise<string[]> {
  const rows = await services.db.execute<{ view_code: string; view_id: string; at_ms: string }>(sql`
    select m.view_code, m.view_id::text as view_id,
           (extract(epoch from coalesce(a.last_access_at, m.joined_at)) * 1000)::bigint::text as at_ms
    from ${streamMembers} m
    left join ${userAccessLog} a on a.user_id = m.user_id and a.view_code = m.view_code and a.view_id = m.view_id
    where m.user_id = ${userId}
    order by coalesce(a.last_access_at, m.joined_at) desc
    limit ${MAX_STREAMS_PER_USER}`);
  return rows.rows.flatMap((r) => [streamName(r.view_code, r.view_id), r.at_ms]);
}

/** Writes the stream cache from `access` (`streamAccessFromPostgres`): only when missing, or with `repair` over the existing one. */
export function writeStreamAccess(services: { redisFor(ownerId: string): ScriptRedis }, userId: string, access: string[], repair = false) {
  return runScript<number>(services.redisFor(userId), WARM_STREAM_ACCESS, [badgeKeys.streamAccess(userId)], [USER_TTL_SECONDS, repair ? "1" : "0", ...access]);
}

type StreamCounts = { total: number; byStream: Record<string, number> | unknown[] };

/**
 * Unread per stream of a user whose cache is missing, from `access` (`streamAccessFromPostgres`):
 * one read-only call (the items are in Redis only), nothing written.
 */
export async function streamUnreadOf(redis: ScriptRedis, access: string[], cap: number): Promise<{ total: number; byStream: Record<string, number> }> {
  const r = await runReadScript<StreamCounts>(redis, COUNT_STREAM_UNREAD_OF, [badgeKeys.streamLastItem()], [badgeKeys.streamItems(""), cap, Date.now(), ...access]);
  return { total: r.total, byStream: luaMap(r.byStream) };
}

/** Remembers the stream counts a read made (its `remember` pairs), where the accesses are still those counted at. */
export function rememberStreamCounts(redis: ScriptRedis, userId: string, remember: string[]) {
  return runScript<number>(redis, REMEMBER_STREAM_COUNTS, [badgeKeys.streamAccess(userId)], remember);
}

type StreamUnread = StreamCounts & { missing: boolean; remember: string[] | Record<string, never> };

/**
 * Unread per stream (only streams with unread items) and the total, counting stops past `cap`: one
 * read-only call. The counts it made are remembered afterwards (`waitUntil`); a missing cache is
 * answered from Postgres' rows and built from them beside the answer.
 */
export async function listStreamUnread(services: Services, userId: string, cap: number) {
  const redis = services.redisFor(userId);
  const r = await runReadScript<StreamUnread>(redis, LIST_STREAM_UNREAD, [badgeKeys.streamAccess(userId), badgeKeys.streamLastItem()], [
    badgeKeys.streamItems(""),
    cap,
    Date.now(),
  ]);
  if (r.missing) return streamUnreadFromPostgres(services, userId, cap);
  if (Array.isArray(r.remember) && r.remember.length > 0) services.waitUntil(inBackground("remember stream counts", userId, rememberStreamCounts(redis, userId, r.remember)));
  return { total: r.total, byStream: luaMap(r.byStream) };
}

/**
 * A missing stream cache: unread from Postgres' rows (membership, access) against the items in
 * Redis, one read-only call; the cache is built from the same rows beside it (`waitUntil`, only
 * if still missing then), started as soon as the rows are read, as a rebuild before the read was.
 */
export async function streamUnreadFromPostgres(services: Services, userId: string, cap: number) {
  const access = await streamAccessFromPostgres(services, userId);
  services.waitUntil(inBackground("stream cache build", userId, writeStreamAccess(services, userId, access)));
  return streamUnreadOf(services.redisFor(userId), access, cap);
}

/**
 * Members a stream item is pushed to at most: one Postgres page, then one hub call per shard.
 * Members beyond it (a stream that large is a broadcast in all but name) see the item on their
 * next snapshot or any other push.
 */
export const MAX_PUSHED_MEMBERS = 10_000;

/**
 * A new item in a stream: hands its members (the first MAX_PUSHED_MEMBERS) to `push` — the live
 * sockets' re-read of the online ones, passed in so the read model does not import the sockets.
 */
export async function pushStreamItem(services: Services, kind: string, id: string, push: (userIds: string[]) => Promise<void>) {
  try {
    const rows = await services.db
      .select({ userId: streamMembers.userId })
      .from(streamMembers)
      .where(and(eq(streamMembers.viewCode, kind), eq(streamMembers.viewId, id)))
      .limit(MAX_PUSHED_MEMBERS);
    if (rows.length > 0) await push(rows.map((r) => String(r.userId)));
  } catch (err) {
    // Best effort, like every push: the next snapshot counts the item.
    log.warn({ message: "stream item push failed", stream: streamName(kind, id), error: errorText(err) });
  }
}
