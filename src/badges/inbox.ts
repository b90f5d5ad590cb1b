import { z } from "@hono/zod-openapi";
import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { decodeCursor, toPage } from "../lib/pagination";
import type { Services } from "../lib/services";
import { afterCommit } from "../lib/redis-failures";
import { INBOX_ADD, INBOX_READ, INBOX_WARM, GET_INBOX } from "./inbox.lua";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { inboxMessages, inboxRecipients, MAX_MESSAGE_TYPE } from "./schema";
import { groupByDatabase, settleEach } from "../lib/redis-topology";
import { activeRecord, runUserWrite } from "./active";
import { inBackground, luaMap, runReadScript, runScript, type ScriptRedis } from "./shared";

export const MAX_RECIPIENTS = 1000;
export const MessageTypeSchema = z
  .string()
  .regex(new RegExp(`^[a-z][a-z0-9_-]{0,${MAX_MESSAGE_TYPE - 1}}$`), `must be 1-${MAX_MESSAGE_TYPE} of a-z 0-9 _ - starting with a letter`)
  .openapi({ example: "system" });

export type InboxMessage = { id: string; type: string; title: string; content: string; createdAt: string; read: boolean };

/** Stores one message and one unread row per recipient, then bumps the built unread caches. */
export async function sendMessage(services: Services, input: { to: string[]; type: string; title: string; content: string }) {
  const to = [...new Set(input.to)];
  const id = await services.pooledDb.transaction(async (tx) => {
    const [msg] = await tx.insert(inboxMessages).values({ type: input.type, title: input.title, content: input.content }).returning({ id: inboxMessages.id });
    await tx.insert(inboxRecipients).values(to.map((userId) => ({ userId, messageId: msg!.id, type: input.type })));
    return msg!.id;
  });
  // Postgres holds the message; a missed Redis bump is repaired by the cron or the next rebuild.
  // One call per database holding recipients, in parallel: a database that is down misses only its
  // recipients' bumps (`degraded`), the others are written.
  const groups = groupByDatabase(to, (userId) => userId, services.databases);
  const settled = await settleEach(groups, (index, users) => afterCommit(() => runScript(services.redisAt(index), INBOX_ADD, users.map(badgeKeys.inbox), [input.type, USER_TTL_SECONDS])));
  let degraded = false;
  for (const result of settled.values()) {
    if (result.status === "rejected") throw result.reason;
    degraded ||= result.value;
  }
  return { id: id.toString(), recipients: to.length, degraded };
}

/** Applies rows that really turned read to the cache (type → n). */
async function applyReads(services: Services, userId: string, types: string[]) {
  if (types.length === 0) return false;
  const byType = new Map<string, number>();
  for (const t of types) byType.set(t, (byType.get(t) ?? 0) + 1);
  return afterCommit(() => runUserWrite(services.redisFor(userId), activeRecord(services.env, userId), INBOX_READ, [badgeKeys.inbox(userId)], [...byType].flat()));
}

/** Marks one message read; idempotent (`changed` is false the second time). */
export async function readMessage(services: Services, userId: string, messageId: string) {
  const changed = await services.db
    .update(inboxRecipients)
    .set({ readAt: sql`now()` })
    .where(and(eq(inboxRecipients.userId, userId), eq(inboxRecipients.messageId, BigInt(messageId)), isNull(inboxRecipients.readAt)))
    .returning({ type: inboxRecipients.type });
  if (changed.length === 0) {
    const [row] = await services.db
      .select({ messageId: inboxRecipients.messageId })
      .from(inboxRecipients)
      .where(and(eq(inboxRecipients.userId, userId), eq(inboxRecipients.messageId, BigInt(messageId))));
    if (!row) throw new ApiError("not_found", `Message ${messageId} not found in your inbox`);
  }
  const degraded = await applyReads(services, userId, changed.map((r) => r.type));
  return { id: messageId, read: true, changed: changed.length > 0, degraded };
}

/** Marks every unread message (of one type) read; idempotent. */
export async function readAllMessages(services: Services, userId: string, type?: string) {
  const changed = await services.db
    .update(inboxRecipients)
    .set({ readAt: sql`now()` })
    .where(and(eq(inboxRecipients.userId, userId), isNull(inboxRecipients.readAt), type ? eq(inboxRecipients.type, type) : undefined))
    .returning({ type: inboxRecipients.type });
  const degraded = await applyReads(services, userId, changed.map((r) => r.type));
  return { marked: changed.length, degraded };
}

/** The user's messages, newest first, optionally one type and/or unread only. */
export async function listMessages(services: Services, userId: string, q: { type?: string; unread?: boolean; limit: number; cursor?: string }) {
  let before: bigint | undefined;
  if (q.cursor) {
    const [id] = decodeCursor(q.cursor, 1) as [string];
    if (!isId(id)) throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
    before = BigInt(id);
  }
  const rows = await services.db
    .select({
      id: inboxMessages.id,
      type: inboxMessages.type,
      title: inboxMessages.title,
      content: inboxMessages.content,
      createdAt: inboxMessages.createdAt,
      readAt: inboxRecipients.readAt,
    })
    .from(inboxRecipients)
    .innerJoin(inboxMessages, eq(inboxMessages.id, inboxRecipients.messageId))
    .where(
      and(
        eq(inboxRecipients.userId, userId),
        q.type ? eq(inboxRecipients.type, q.type) : undefined,
        q.unread === true ? isNull(inboxRecipients.readAt) : q.unread === false ? sql`${inboxRecipients.readAt} is not null` : undefined,
        before ? lt(inboxRecipients.messageId, before) : undefined,
      ),
    )
    .orderBy(desc(inboxRecipients.messageId))
    .limit(q.limit + 1);
  return toPage(
    rows,
    q.limit,
    (r): InboxMessage => ({ id: r.id.toString(), type: r.type, title: r.title, content: r.content, createdAt: isoTimestamp(r.createdAt), read: r.readAt !== null }),
    (r) => [r.id.toString()],
  );
}

/** Unread by type from Postgres (truth): rebuilds, repairs and the degraded answer. */
export async function inboxFromPostgres(services: Pick<Services, "db">, userId: string): Promise<{ byType: Record<string, number>; total: number }> {
  const rows = await services.db
    .select({ type: inboxRecipients.type, n: sql<number>`count(*)::int` })
    .from(inboxRecipients)
    .where(and(eq(inboxRecipients.userId, userId), isNull(inboxRecipients.readAt)))
    .groupBy(inboxRecipients.type);
  const byType = Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
  return { byType, total: rows.reduce((s, r) => s + Number(r.n), 0) };
}

/** Builds a missing cache (or, with `repair`, overwrites an existing one) from Postgres. */
export async function warmInbox(services: Pick<Services, "db"> & { redisFor(ownerId: string): ScriptRedis }, userId: string, repair = false) {
  const { byType } = await inboxFromPostgres(services, userId);
  return writeInbox(services, userId, byType, repair);
}

/** Writes the cache from `byType` (`inboxFromPostgres`): only when missing, or with `repair` over the existing one. */
export function writeInbox(services: { redisFor(ownerId: string): ScriptRedis }, userId: string, byType: Record<string, number>, repair = false) {
  return runScript<number>(services.redisFor(userId), INBOX_WARM, [badgeKeys.inbox(userId)], [USER_TTL_SECONDS, repair ? "1" : "0", ...Object.entries(byType).flat()]);
}

/**
 * A missing cache: the unread counts from Postgres (the truth), and the cache built from them
 * beside the answer (`waitUntil`, only if still missing then), started as soon as they are read,
 * as a rebuild before the read was.
 */
export async function inboxUnreadFromPostgres(services: Services, userId: string) {
  const unread = await inboxFromPostgres(services, userId);
  services.waitUntil(inBackground("inbox cache build", userId, writeInbox(services, userId, unread.byType)));
  return unread;
}

/** Unread by type and total, from the cache: one read-only call (Postgres when missing). */
export async function getInboxUnread(services: Services, userId: string) {
  const r = await runReadScript<{ missing: boolean; byType: Record<string, number> | unknown[]; total: number }>(services.redisFor(userId), GET_INBOX, [badgeKeys.inbox(userId)], []);
  if (r.missing) return inboxUnreadFromPostgres(services, userId);
  return { byType: luaMap(r.byType), total: r.total };
}

