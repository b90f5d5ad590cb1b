import { queryRows } from "../lib/db";
import type { EventOf, EventServices } from "../lib/events";
import { errorText, log } from "../lib/log";
import { runReadOnly } from "../lib/read-only-scripts";
import { commandFailure, isBudgetRefusal, isRedisCommandError, isRedisOutage } from "../lib/redis-failures";
import { afterResponse, type Services } from "../lib/services";
import type { Env } from "../env";
import { BUILD_FOLLOW_LIST, READ_FOLLOW_PAGE, WRITE_FOLLOW_EDGE } from "./follow-lists.lua";
import {
  FOLLOW_LIST_ALL,
  FOLLOW_LIST_CAP,
  FOLLOW_LIST_EPOCH_TTL_SECONDS,
  FOLLOW_LIST_TOP,
  FOLLOW_LIST_TTL_SECONDS,
  FOLLOW_MEMBER_DIGITS,
  followListKeys,
  UNFOLLOWED_CAP,
  UNFOLLOWED_TTL_SECONDS,
  type FollowDirection,
} from "./keys";

/**
 * The follower and following list caches (docs/social.md, "Follower and following lists"): the
 * first pages of `GET /v1/users/{id}/followers|following` from Redis, read-only, on the list
 * owner's database; Postgres on a miss (then built after the answer) and past the cached edges.
 */

/** One edge as Postgres has it: the other user, the follow time as Postgres prints it (cursors carry it) and in µs. */
export type EdgeRow = { userId: string; createdAt: string; us: string };

/** The list cap (`SOCIAL_FOLLOW_LIST_CAP`, else FOLLOW_LIST_CAP). */
export function followListCap(env: Pick<Env, "SOCIAL_FOLLOW_LIST_CAP">): number {
  const n = Number(env.SOCIAL_FOLLOW_LIST_CAP);
  return Number.isInteger(n) && n > 0 ? n : FOLLOW_LIST_CAP;
}

const memberOf = (userId: string) => userId.padStart(FOLLOW_MEMBER_DIGITS, "0");
const idOf = (member: string) => member.replace(/^0+/, "");

/**
 * A follow time in µs since the epoch as Postgres prints a timestamptz in UTC (DateStyle ISO):
 * `2026-12-03 18:22:03.123456+00`, the fraction without trailing zeros, none on a whole second.
 * A build checks it against Postgres' own text for every edge, so a cached page's cursor is the
 * one Postgres' page would carry, byte for byte.
 */
export function pgTimestampText(us: string): string {
  const micros = BigInt(us);
  const iso = new Date(Number(micros / 1000n)).toISOString();
  const fraction = (micros % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ""}+00`;
}

/** The µs of a cursor's follow time when it is in the form `pgTimestampText` writes; undefined otherwise (Postgres answers that page). */
export function microsOfPgText(text: string): string | undefined {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}Z`);
  if (Number.isNaN(ms)) return undefined;
  const us = (BigInt(ms) * 1000n + BigInt((m[3] ?? "").padEnd(6, "0"))).toString();
  return pgTimestampText(us) === text ? us : undefined;
}

export type CachedPage = { rows: EdgeRow[]; more: boolean };

type ReadAnswer =
  | { s: "page"; items: string[] | Record<string, never>; more: boolean }
  | { s: "past"; cached: number; epoch: string }
  | { s: "miss"; epoch: string };

/**
 * The page from the cache, or undefined when Postgres must answer it: the list is not cached (its
 * build is sent after the answer), the page runs past the cached edges, the cursor is not in the
 * form the cache compares, or the owner's database cannot be reached (a cache: Postgres answers).
 */
export async function cachedFollowPage(
  services: Pick<Services, "env" | "db" | "events" | "redisFor" | "waitUntil">,
  direction: FollowDirection,
  userId: string,
  page: { limit: number; after?: { createdAt: string; userId: string } },
  suspended: string,
): Promise<CachedPage | undefined> {
  let afterUs = "";
  if (page.after) {
    const us = microsOfPgText(page.after.createdAt);
    if (us === undefined) return undefined;
    afterUs = us;
  }
  const redis = services.redisFor(userId);
  let answer: ReadAnswer;
  try {
    const raw = await runReadOnly<unknown>(
      redis,
      READ_FOLLOW_PAGE,
      [followListKeys.list(direction, userId), followListKeys.epoch(direction, userId)],
      [String(page.limit), afterUs, page.after ? memberOf(page.after.userId) : "", suspended],
    );
    answer = (typeof raw === "string" ? JSON.parse(raw) : raw) as ReadAnswer;
  } catch (err) {
    // Down, or over its command budget: Postgres answers (a cache). Any other command error is a bug of the script.
    if (!isRedisOutage(err) && !isBudgetRefusal(err)) throw isRedisCommandError(err) ? commandFailure("Follow list script", err) : err;
    log.warn({ message: "follow list cache not read", direction, userId, error: errorText(err) });
    return undefined;
  }
  if (answer.s === "miss") {
    buildLater(services, direction, userId, answer.epoch);
    return undefined;
  }
  if (answer.s === "past") {
    // Unfollows of cached edges shrink a `#top` list (it cannot refill from below): rebuilt when half gone.
    if (answer.cached < followListCap(services.env) / 2) buildLater(services, direction, userId, answer.epoch);
    return undefined;
  }
  const flat = Array.isArray(answer.items) ? answer.items : [];
  const rows: EdgeRow[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const us = String(flat[i + 1]);
    rows.push({ userId: idOf(String(flat[i])), createdAt: pgTimestampText(us), us });
  }
  return { rows, more: answer.more };
}

/** Lists this isolate is building now: a burst of reads of a missing list sends one build, not one each. */
const building = new Set<string>();
const MAX_BUILDING = 1_000;

function buildLater(services: Pick<Services, "env" | "events" | "waitUntil">, direction: FollowDirection, userId: string, epoch: string) {
  const key = followListKeys.list(direction, userId);
  if (building.has(key) || building.size >= MAX_BUILDING) return;
  building.add(key);
  services.waitUntil(
    afterResponse(services, (s) => buildFollowList(s, direction, userId, epoch))
      .catch((err: unknown) => log.warn({ message: "follow list not built", direction, userId, error: errorText(err) }))
      .finally(() => building.delete(key)),
  );
}

/**
 * One page of edges from Postgres, newest first, keyset on (created_at, other id), `suspended`
 * (ids joined by ',') left out. The time comes as Postgres prints it (`::text`), whichever driver
 * runs the query, and in µs (exact: extract returns numeric).
 */
export async function readEdges(
  services: Pick<Services, "db">,
  direction: FollowDirection,
  userId: string,
  page: { limit: number; after?: { createdAt: string; userId: string }; suspended?: string },
): Promise<EdgeRow[]> {
  const [self, other] = direction === "followers" ? ["followee_id", "follower_id"] : ["follower_id", "followee_id"];
  const params: unknown[] = [userId];
  let where = `${self} = $1`;
  if (page.after) {
    params.push(page.after.createdAt, page.after.userId);
    where += ` AND (created_at, ${other}) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`;
  }
  if (page.suspended) {
    params.push(`{${page.suspended}}`);
    where += ` AND ${other} <> ALL($${params.length}::bigint[])`;
  }
  params.push(page.limit);
  return queryRows<EdgeRow>(
    services.db,
    `SELECT ${other}::text AS "userId", created_at::text AS "createdAt", (extract(epoch FROM created_at) * 1000000)::bigint::text AS us
     FROM follows WHERE ${where} ORDER BY created_at DESC, ${other} DESC LIMIT $${params.length}`,
    params,
  );
}

/**
 * Builds the list from Postgres (its newest `cap` edges, `#all` when that is all of them), unless a
 * write moved the epoch the missing read answered since. Not cached either when a follow time does
 * not print as `pgTimestampText` prints it (a server not in UTC): the cache could not give Postgres'
 * cursors, so Postgres keeps answering. Returns whether it stored the list.
 */
export async function buildFollowList(services: Pick<Services, "db" | "env" | "redisFor">, direction: FollowDirection, userId: string, epoch: string): Promise<boolean> {
  const cap = followListCap(services.env);
  // Every user included: a read skips the suspended, and a lift shows them again where they were.
  const rows = await readEdges(services, direction, userId, { limit: cap + 1 });
  const kept = rows.slice(0, cap);
  const odd = kept.find((r) => pgTimestampText(r.us) !== r.createdAt);
  if (odd) {
    log.warn({ message: "follow list not cached: Postgres prints follow times in another form", direction, userId, createdAt: odd.createdAt });
    return false;
  }
  const args = [epoch, String(FOLLOW_LIST_TTL_SECONDS), rows.length > cap ? FOLLOW_LIST_TOP : FOLLOW_LIST_ALL, ...kept.flatMap((r) => [r.us, memberOf(r.userId)])];
  const stored = await services
    .redisFor(userId)
    .createScript(BUILD_FOLLOW_LIST)
    .exec([followListKeys.list(direction, userId), followListKeys.epoch(direction, userId)], args);
  return Number(stored) === 1;
}

/**
 * A follow or unfollow on both lists it changes: the followee's followers and the follower's
 * following, each on its owner's database, as scripts of the event's round (one pipeline per
 * database; both start before any other I/O).
 */
export async function writeFollowEdge(s: EventServices, op: "add" | "rem", e: EventOf<"follow.created"> | EventOf<"follow.deleted">): Promise<void> {
  const cap = String(followListCap(s.env));
  const us = e.createdAtUs ?? "";
  const write = (direction: FollowDirection, owner: string, other: string) =>
    s
      .redisFor(owner)
      .createScript(WRITE_FOLLOW_EDGE)
      .exec(
        [followListKeys.list(direction, owner), followListKeys.unfollowed(direction, owner), followListKeys.epoch(direction, owner)],
        [op, memberOf(other), us, cap, String(UNFOLLOWED_TTL_SECONDS), String(UNFOLLOWED_CAP), String(FOLLOW_LIST_EPOCH_TTL_SECONDS)],
      );
  await Promise.all([write("followers", e.followeeId, e.followerId), write("following", e.followerId, e.followeeId)]);
}

/**
 * The account deletion's last social step: the user's own lists, unfollow records and epochs, both
 * directions (its follows eraser's unfollows wrote them last). Other users' unfollow records of
 * the user stay until their TTL (UNFOLLOWED_TTL_SECONDS): a late follow event of an erased edge
 * must still find them.
 */
export async function deleteFollowListKeys(services: Pick<Services, "redisFor">, userId: string): Promise<void> {
  const directions: FollowDirection[] = ["followers", "following"];
  await services.redisFor(userId).del(...directions.flatMap((d) => [followListKeys.list(d, userId), followListKeys.unfollowed(d, userId), followListKeys.epoch(d, userId)]));
}
