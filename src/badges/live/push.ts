import type { Env } from "../../env";
import type { Services } from "../../lib/services";
import { HUB_HEADERS, type BigPost, type HubStamp, type PostedTo, type TallyChange } from "./protocol";
import type { CheapKind } from "./values";
import { errorText, log } from "../../lib/log";
import { writtenSyncTokens } from "../../lib/consistency";

/**
 * The Worker's side of live badges: which hub shard holds a user's sockets, and the calls that
 * tell hubs something changed. Every call is bounded by the number of shards, never by users, and
 * none touches Redis: a hub answers at once for users who are not online there.
 *
 * Pushes are best effort by design: a failed one is logged and dropped, because the socket's next
 * snapshot (reconnect, or the client sending `badges`) is exact anyway. Callers hand them to
 * `waitUntil`, after the write they report is in Redis.
 */

/** Hub shards by default: 1,000,000 sockets make ~15,600 per object, under the 32,768 an object accepts. */
export const DEFAULT_HUB_SHARDS = 64;
/** At most this many: a broadcast is one call per shard. */
export const MAX_HUB_SHARDS = 1024;

export function hubShards(env: Pick<Env, "BADGE_HUB_SHARDS">): number {
  const n = Number(env.BADGE_HUB_SHARDS ?? DEFAULT_HUB_SHARDS);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_HUB_SHARDS) : DEFAULT_HUB_SHARDS;
}

/** FNV-1a of the decimal id: stable across isolates and deploys (a user's devices meet in one object). */
export function hubShardOf(userId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) {
    h ^= userId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

export function hubStub(env: Pick<Env, "BADGE_HUBS">, shard: number) {
  return env.BADGE_HUBS.get(env.BADGE_HUBS.idFromName(`hub-${shard}`));
}

export function hubOf(env: Pick<Env, "BADGE_HUBS" | "BADGE_HUB_SHARDS">, userId: string) {
  return hubStub(env, hubShardOf(userId, hubShards(env)));
}

/** Groups items by the shard of their user. */
function byShard<T>(env: Pick<Env, "BADGE_HUB_SHARDS">, items: T[], userOf: (item: T) => string): Map<number, T[]> {
  const shards = hubShards(env);
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const shard = hubShardOf(userOf(item), shards);
    const group = groups.get(shard);
    if (group) group.push(item);
    else groups.set(shard, [item]);
  }
  return groups;
}

async function bestEffort(what: string, calls: Promise<unknown>[]) {
  const results = await Promise.allSettled(calls);
  const failed = results.filter((r) => r.status === "rejected");
  if (failed.length > 0) {
    const error = (failed[0] as PromiseRejectedResult).reason;
    log.warn({ message: `badge push failed: ${what}`, failed: failed.length, error: errorText(error) });
  }
}

/**
 * These users' badges changed (a write for them): their hubs read and push for the online ones,
 * only `kinds` when given (each has a cheap read of its own). One call per shard involved.
 */
export function pushChanged(env: Pick<Env, "BADGE_HUBS" | "BADGE_HUB_SHARDS">, userIds: string[], kinds?: CheapKind[]): Promise<void> {
  return pushChangedOnline(env, userIds, kinds).then(() => undefined);
}

/**
 * `pushChanged`, answering which of `userIds` are online (their hubs said so). A shard that failed
 * answers nobody online: its users are treated as closed apps (a push too many, never one lost).
 */
export function pushChangedOnline(env: Pick<Env, "BADGE_HUBS" | "BADGE_HUB_SHARDS">, userIds: string[], kinds?: CheapKind[]): Promise<Set<string>> {
  // The write's sync tokens go with the call: with read regions, the hub's read waits for the write.
  // Only what the request's writes answered: the hub keeps them for every user of its shard.
  const tokens = writtenSyncTokens();
  return askOnline(env, userIds, "changed", (hub, users) => hub.changed(users, kinds, tokens));
}

/**
 * Which of `userIds` have an open badges socket, read-free (`BadgeHub.online`: nothing is read or
 * pushed): one call per shard involved. A shard that failed answers nobody online (a push too
 * many, never one lost), as `pushChangedOnline` does.
 */
export function onlineAmong(env: Pick<Env, "BADGE_HUBS" | "BADGE_HUB_SHARDS">, userIds: string[]): Promise<Set<string>> {
  return askOnline(env, userIds, "online", (hub, users) => hub.online(users));
}

/** One `ask` per shard holding some of `userIds`, each answering its online ones; a failed shard answers none. */
async function askOnline(
  env: Pick<Env, "BADGE_HUBS" | "BADGE_HUB_SHARDS">,
  userIds: string[],
  what: string,
  ask: (hub: ReturnType<typeof hubStub>, users: string[]) => Promise<string[]>,
): Promise<Set<string>> {
  const groups = byShard(env, [...new Set(userIds)], (u) => u);
  const calls = [...groups].map(([shard, users]) => ask(hubStub(env, shard), users));
  await bestEffort(what, calls);
  const online = new Set<string>();
  for (const call of calls) for (const u of await call.catch(() => [] as string[])) online.add(u);
  return online;
}

/** A broadcast or a red-dot stamp: one call per shard, whatever the audience. */
export function pushStamp(env: Pick<Env, "BADGE_HUBS" | "BADGE_HUB_SHARDS">, stamp: HubStamp): Promise<void> {
  return bestEffort(stamp.kind, Array.from({ length: hubShards(env) }, (_, shard) => hubStub(env, shard).stamp(stamp)));
}

/** One fan-out page of a post (published at `publishedAt`): one call per shard holding some of the page's followers. */
export function pushPosted(env: Pick<Env, "BADGE_HUBS" | "BADGE_HUB_SHARDS">, followers: PostedTo[], publishedAt?: number): Promise<void> {
  const groups = byShard(env, followers, (f) => f.userId);
  return bestEffort("posted", [...groups].map(([shard, page]) => hubStub(env, shard).posted(page, publishedAt)));
}

/**
 * A big account's post or delete: one call per shard, whatever its follower count (its followers
 * are never walked); each hub finds its online followers among what it knows they follow.
 */
export function pushBigPost(env: Pick<Env, "BADGE_HUBS" | "BADGE_HUB_SHARDS">, post: BigPost): Promise<void> {
  return bestEffort("big post", Array.from({ length: hubShards(env) }, (_, shard) => hubStub(env, shard).bigPosted(post)));
}

/** Hands a WebSocket upgrade to the caller's hub (the token was verified by the Worker). */
export function connectLive(
  env: Pick<Env, "BADGE_HUBS" | "BADGE_HUB_SHARDS">,
  request: Request,
  socket: { userId: string; cap: number; expiresAt: number; protocol: string | null },
): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set(HUB_HEADERS.user, socket.userId);
  headers.set(HUB_HEADERS.cap, String(socket.cap));
  headers.set(HUB_HEADERS.expiresAt, String(socket.expiresAt));
  if (socket.protocol) headers.set(HUB_HEADERS.protocol, socket.protocol);
  return hubOf(env, socket.userId).fetch(new Request(request.url, { headers }));
}

/**
 * Returns a write's `result` after handing the push for `userIds` to `waitUntil` (the write is in
 * Redis by then; the response does not wait for the hubs); `then` gets the online ones, in the
 * same `waitUntil` (push notifications go to the others).
 */
export function pushing<T>(services: Pick<Services, "env" | "waitUntil">, userIds: string[], result: T, kinds?: CheapKind[], then?: (online: Set<string>) => Promise<unknown>): T {
  const online = pushChangedOnline(services.env, userIds, kinds);
  services.waitUntil(then ? online.then(then).catch((err: unknown) => log.error({ message: "after badge push failed", error: errorText(err) })) : online);
  return result;
}

/**
 * A tally write (notifications, DMs) for `userId`: its own answer is the new value, handed to the
 * user's hub as it is (one object call, no Redis). Returns `result` for the response.
 */
export function pushingTally<T>(services: Pick<Services, "env" | "waitUntil">, userId: string, change: TallyChange, result: T, then?: (online: boolean) => Promise<unknown>): T {
  // The write's sync tokens go with it (read regions): a read the hub makes next is not older.
  // Only what the request's writes answered, never what it was sent (the hub keeps them for all).
  const tallied = hubOf(services.env, userId).tallied(userId, change, writtenSyncTokens());
  services.waitUntil(bestEffort("tallied", [tallied]));
  // The hub's answer (is the user online?) decides a push notification, with no Redis command; a
  // failed call counts as offline (a push too many, never one lost).
  if (then) services.waitUntil(tallied.catch(() => false).then(then).catch((err: unknown) => log.error({ message: "after badge push failed", userId, error: errorText(err) })));
  return result;
}
