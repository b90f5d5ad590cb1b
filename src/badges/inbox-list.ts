import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import { ApiError } from "../lib/errors";
import { isId } from "../lib/ids";
import { errorText, log } from "../lib/log";
import { decodeCursor, encodeCursor, toPage } from "../lib/pagination";
import { isRedisOutage } from "../lib/redis-failures";
import { afterResponse, type Services } from "../lib/services";
import { INBOX_LIST_BUILD, INBOX_LIST_ERASE, INBOX_LIST_PAGE } from "./inbox-list.lua";
import {
  badgeKeys,
  INBOX_LIST_BUILD_BYTES,
  INBOX_LIST_EPOCH_TTL_SECONDS,
  INBOX_LIST_TTL_SECONDS,
  INBOX_LIST_WINDOW,
  INBOX_MESSAGE_PREFIX,
  INBOX_MESSAGE_TTL_SECONDS,
  USER_TTL_SECONDS,
} from "./keys";
import { inboxMessages, inboxRecipients } from "./schema";
import { runReadScript, runScript, type ScriptRedis } from "./shared";

/** One message of a user's inbox as the list answers it. */
export type InboxMessage = { id: string; type: string; title: string; content: string; createdAt: string; read: boolean };

/**
 * The inbox list near the user (docs/badges-lists.md): the newest messages of each user, with
 * their read flags, cached on the user's database and read with one read-only script, so a read
 * region answers `GET /v1/me/messages`. Postgres answers a miss (the list is built after the
 * answer), a page the list cannot answer exactly (past its floor, or a filter that runs out of
 * listed messages) and everything while Redis is down.
 */

export type InboxQuery = { type?: string; unread?: boolean; limit: number; cursor?: string };
type Message = { id: string; type: string; title: string; content: string; createdAt: string };
/** A message's JSON in Redis (`inboxMessage`): positional, the list carries the rest. */
type StoredMessage = [type: string, title: string, content: string, createdAt: string];

const storedJson = (m: Message) => JSON.stringify([m.type, m.title, m.content, m.createdAt] satisfies StoredMessage);

/** KEYS and ARGV of INBOX_ADD for one database's recipients of message `m` (inbox.lua.ts). */
export function inboxAddCall(users: readonly string[], m: Message): { keys: string[]; args: (string | number)[] } {
  return {
    keys: [badgeKeys.inboxMessage(m.id), ...users.flatMap((u) => [badgeKeys.inbox(u), badgeKeys.inboxList(u), badgeKeys.inboxListEpoch(u)])],
    args: [m.type, USER_TTL_SECONDS, INBOX_LIST_EPOCH_TTL_SECONDS, INBOX_LIST_WINDOW, m.id, storedJson(m), INBOX_MESSAGE_TTL_SECONDS],
  };
}

/**
 * KEYS and ARGV of INBOX_READ for the rows `changed` that turned read (inbox.lua.ts): the counts by
 * type, and the newest INBOX_LIST_WINDOW rows for the list. An older changed row is never in a list
 * the newer ones fit in: setting those trims it out if it was.
 */
export function inboxReadCall(userId: string, changed: readonly { messageId: bigint; type: string }[]): { keys: string[]; args: (string | number)[] } {
  const byType = new Map<string, number>();
  for (const r of changed) byType.set(r.type, (byType.get(r.type) ?? 0) + 1);
  const newest = [...changed].sort((a, b) => (a.messageId < b.messageId ? 1 : a.messageId > b.messageId ? -1 : 0)).slice(0, INBOX_LIST_WINDOW);
  return {
    keys: [badgeKeys.inbox(userId), badgeKeys.inboxList(userId), badgeKeys.inboxListEpoch(userId)],
    args: [INBOX_LIST_EPOCH_TTL_SECONDS, INBOX_LIST_WINDOW, byType.size, ...[...byType].flat(), ...newest.flatMap((r) => [r.messageId.toString(), r.type])],
  };
}

/** Drops the user's list for good (account erasure): no rebuild in flight may store one after. */
export function eraseInboxList(redis: ScriptRedis, userId: string) {
  return runScript<number>(redis, INBOX_LIST_ERASE, [badgeKeys.inboxList(userId), badgeKeys.inboxListEpoch(userId)], [INBOX_LIST_EPOCH_TTL_SECONDS]);
}

const utf8 = new TextEncoder();

type PageAnswer = { s: "hit"; more: boolean; items: [string, boolean, StoredMessage][] } | { s: "short" } | { s: "miss"; stale: boolean; epoch: string };

function beforeOf(cursor: string | undefined): bigint | undefined {
  if (!cursor) return undefined;
  const [id] = decodeCursor(cursor, 1) as [string];
  if (!isId(id)) throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  return BigInt(id);
}

/** The user's messages, newest first, optionally one type and/or unread (or read) only. */
export async function listMessagesNear(services: Services, userId: string, q: InboxQuery) {
  const before = beforeOf(q.cursor);
  let answer: PageAnswer;
  try {
    answer = await runReadScript<PageAnswer>(services.redisFor(userId), INBOX_LIST_PAGE, [badgeKeys.inboxList(userId), badgeKeys.inboxListEpoch(userId)], [
      INBOX_MESSAGE_PREFIX,
      before?.toString() ?? "",
      q.type ?? "",
      q.unread === undefined ? "" : q.unread ? "1" : "0",
      q.limit,
    ]);
  } catch (err) {
    if (!isRedisOutage(err)) throw err;
    return messagesFromPostgres(services, userId, q, before);
  }
  if (answer.s === "hit") {
    const items = answer.items.map(([id, read, [type, title, content, createdAt]]): InboxMessage => ({ id, type, title, content, createdAt, read }));
    const last = items[items.length - 1];
    return { items, nextCursor: answer.more && last ? encodeCursor([last.id]) : null };
  }
  const page = await messagesFromPostgres(services, userId, q, before);
  if (answer.s === "miss") {
    const { epoch, stale } = answer;
    // After the response, on services of its own (the request's Postgres pool is closed by then).
    services.waitUntil(
      afterResponse(services, (own) => buildInboxList(own, userId, epoch, stale)).catch((err: unknown) =>
        log.warn({ message: "inbox list build failed", userId, error: errorText(err) }),
      ),
    );
  }
  return page;
}

/** One page from Postgres (the truth): rows are `limit + 1` at most, the extra one says there is more. */
export async function messagesFromPostgres(services: Pick<Services, "db">, userId: string, q: InboxQuery, before: bigint | undefined) {
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

/**
 * Builds the user's list from Postgres as of after `epoch` was read (INBOX_LIST_BUILD stores it only
 * if the epoch has not moved since): the newest INBOX_LIST_WINDOW messages, fewer if their JSON
 * passes INBOX_LIST_BUILD_BYTES; floor '0' when that is every message the user has. `overwrite`
 * replaces a stale list (one naming a message whose JSON is gone). Answers the script's 1 / 0 / -1.
 */
export async function buildInboxList(services: Pick<Services, "db" | "redisFor">, userId: string, epoch: string, overwrite = false): Promise<number> {
  const rows = await services.db
    .select({ id: inboxMessages.id, type: inboxMessages.type, title: inboxMessages.title, content: inboxMessages.content, createdAt: inboxMessages.createdAt, readAt: inboxRecipients.readAt })
    .from(inboxRecipients)
    .innerJoin(inboxMessages, eq(inboxMessages.id, inboxRecipients.messageId))
    .where(eq(inboxRecipients.userId, userId))
    .orderBy(desc(inboxRecipients.messageId))
    .limit(INBOX_LIST_WINDOW + 1);
  const triples: string[] = [];
  let bytes = 0;
  let kept = 0;
  for (const r of rows.slice(0, INBOX_LIST_WINDOW)) {
    const json = storedJson({ id: r.id.toString(), type: r.type, title: r.title, content: r.content, createdAt: isoTimestamp(r.createdAt) });
    bytes += utf8.encode(json).length;
    if (kept > 0 && bytes > INBOX_LIST_BUILD_BYTES) break;
    triples.push(r.id.toString(), `${r.readAt === null ? "0" : "1"}${r.type}`, json);
    kept++;
  }
  const everything = kept === rows.length;
  const floor = everything ? "0" : triples[triples.length - 3]!;
  return runScript<number>(services.redisFor(userId), INBOX_LIST_BUILD, [badgeKeys.inboxList(userId), badgeKeys.inboxListEpoch(userId)], [
    epoch,
    overwrite ? "1" : "0",
    INBOX_LIST_TTL_SECONDS,
    INBOX_MESSAGE_TTL_SECONDS,
    INBOX_MESSAGE_PREFIX,
    floor,
    ...triples,
  ]);
}
