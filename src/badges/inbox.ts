import { z } from "@hono/zod-openapi";
import { and, eq, isNull, sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import { queryRows } from "../lib/db";
import { ApiError } from "../lib/errors";
import type { Services } from "../lib/services";
import { afterCommit } from "../lib/redis-failures";
import { INBOX_ADD, INBOX_READ, INBOX_WARM, GET_INBOX } from "./inbox.lua";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { inboxMessages, inboxRecipients, MAX_MESSAGE_TYPE } from "./schema";
import { groupByDatabase, settleEach } from "../lib/redis-topology";
import { activeRecord, runUserWrite } from "./active";
import { inboxAddCall, inboxReadCall, listMessagesNear, type InboxQuery } from "./inbox-list";
import { inBackground, luaMap, runReadScript, runScript, type ScriptRedis } from "./shared";

export const MAX_RECIPIENTS = 1000;
export const MessageTypeSchema = z
  .string()
  .regex(new RegExp(`^[a-z][a-z0-9_-]{0,${MAX_MESSAGE_TYPE - 1}}$`), `must be 1-${MAX_MESSAGE_TYPE} of a-z 0-9 _ - starting with a letter`)
  .openapi({ example: "system" });

export type { InboxMessage } from "./inbox-list";

/** Stores one message and one unread row per recipient, then bumps the built unread caches. */
export async function sendMessage(services: Services, input: { to: string[]; type: string; title: string; content: string }) {
  const to = [...new Set(input.to)];
  // One statement (one round, atomic): the message and a row per recipient.
  const [stored] = await queryRows<{ id: string; created_at: string }>(
    services.db,
    `WITH message AS (INSERT INTO inbox_messages (type, title, content) VALUES ($1, $2, $3) RETURNING id, created_at),
     recipients AS (INSERT INTO inbox_recipients (user_id, message_id, type) SELECT u, (SELECT id FROM message), $1 FROM unnest($4::bigint[]) AS u)
     SELECT id::text AS id, created_at::text AS created_at FROM message`,
    [input.type, input.title, input.content, to],
  );
  const { id, created_at: createdAt } = stored!;
  // Postgres holds the message; a missed Redis bump is repaired by the cron or the next rebuild.
  // One call per database holding recipients, in parallel: a database that is down misses only its
  // recipients' bumps (`degraded`), the others are written.
  const groups = groupByDatabase(to, (userId) => userId, services.databases);
  // The same call keeps the recipients' inbox lists (inbox-list.ts) and stores the message for them.
  const message = { id: id.toString(), type: input.type, title: input.title, content: input.content, createdAt: isoTimestamp(createdAt) };
  const settled = await settleEach(groups, (index, users) => {
    const { keys, args } = inboxAddCall(users, message);
    return afterCommit(() => runScript(services.redisAt(index), INBOX_ADD, keys, args));
  });
  let degraded = false;
  for (const result of settled.values()) {
    if (result.status === "rejected") throw result.reason;
    degraded ||= result.value;
  }
  return { id: id.toString(), recipients: to.length, degraded };
}

/** Applies rows that really turned read to the caches: the counts (type → n) and the list. */
async function applyReads(services: Services, userId: string, changed: { messageId: bigint; type: string }[]) {
  if (changed.length === 0) return false;
  const { keys, args } = inboxReadCall(userId, changed);
  return afterCommit(() => runUserWrite(services.redisFor(userId), activeRecord(services.env, userId), INBOX_READ, keys, args));
}

/** Marks one message read; idempotent (`changed` is false the second time). */
export async function readMessage(services: Services, userId: string, messageId: string) {
  const changed = await services.db
    .update(inboxRecipients)
    .set({ readAt: sql`now()` })
    .where(and(eq(inboxRecipients.userId, userId), eq(inboxRecipients.messageId, BigInt(messageId)), isNull(inboxRecipients.readAt)))
    .returning({ messageId: inboxRecipients.messageId, type: inboxRecipients.type });
  if (changed.length === 0) {
    const [row] = await services.db
      .select({ messageId: inboxRecipients.messageId })
      .from(inboxRecipients)
      .where(and(eq(inboxRecipients.userId, userId), eq(inboxRecipients.messageId, BigInt(messageId))));
    if (!row) throw new ApiError("not_found", `Message ${messageId} not found in your inbox`);
  }
  const degraded = await applyReads(services, userId, changed);
  return { id: messageId, read: true, changed: changed.length > 0, degraded };
}

/** Marks every unread message (of one type) read; idempotent. */
export async function readAllMessages(services: Services, userId: string, type?: string) {
  const changed = await services.db
    .update(inboxRecipients)
    .set({ readAt: sql`now()` })
    .where(and(eq(inboxRecipients.userId, userId), isNull(inboxRecipients.readAt), type ? eq(inboxRecipients.type, type) : undefined))
    .returning({ messageId: inboxRecipients.messageId, type: inboxRecipients.type });
  const degraded = await applyReads(services, userId, changed);
  return { marked: changed.length, degraded };
}

/**
 * The user's messages, newest first, optionally one type and/or unread only: from the list cached
 * near the user (one read-only call), Postgres where the list cannot answer (inbox-list.ts).
 */
export function listMessages(services: Services, userId: string, q: InboxQuery) {
  return listMessagesNear(services, userId, q);
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

