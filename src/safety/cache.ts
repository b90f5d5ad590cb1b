import { DependencyUnavailableError } from "../lib/errors";
import { errorText, log } from "../lib/log";
import type { Redis } from "../lib/redis";
import { commandFailure, isRedisCommandError, isRedisOutage } from "../lib/redis-failures";
import { groupByDatabase, settleEach } from "../lib/redis-topology";
import type { Services } from "../lib/services";
import { safetyNow } from "./clock";
import { isSuspended, moderationCopy } from "./copy";
import { BLOCKED_ME_CAP, EPOCH_TTL_SECONDS, NOTIFY_MUTE_PREFIX, safetyKeys, safetyKeysOf, SETS_TTL_SECONDS } from "./keys";
import { readSets, type SafetySets } from "./store";
import { WARM_SETS } from "./warm.lua";
import { HIDDEN_AMONG } from "./among.lua";
import { readOnlyScriptOf } from "../lib/read-only-scripts";
import { WRITE_SETS } from "./write.lua";

/** What reaches a user from a peer: refused or silenced by a block (either way), silenced by a mute, or nothing in the way. */
export type Verdict = "blocked" | "muted" | "ok";

/** One change to one owner's cached set (`write.lua.ts`). */
export type SetChange = { owner: string; set: "blocked" | "blockedMe" | "mutes"; op: "add" | "rem"; member: string; score?: number; cap?: number };

/**
 * Applies changes to the cached sets: one script call per database touched, in parallel (A's
 * block of B at N = 1 is one call). Called after Postgres committed, on every PUT and DELETE even
 * when nothing changed there, so a retry after an outage here (answered 503) repairs the cache.
 */
export async function writeSets(services: Pick<Services, "databases" | "redisAt">, changes: readonly SetChange[]): Promise<void> {
  const groups = groupByDatabase(changes, (c) => c.owner, services.databases);
  const settled = await settleEach(groups, (index, group) =>
    runScript(
      services.redisAt(index),
      WRITE_SETS,
      group.flatMap((c) => [safetyKeys[c.set](c.owner), safetyKeys.epoch(c.owner)]),
      [SETS_TTL_SECONDS, EPOCH_TTL_SECONDS, ...group.flatMap((c) => [c.op, c.member, c.score ?? 0, c.cap ?? 0])],
    ),
  );
  for (const result of settled.values()) if (result.status === "rejected") throw result.reason;
}

/** The changes a mute (or its end) makes to the muter's set: the muted id, and `n:{id}` when it silences notifications. */
export function muteChanges(muterId: string, mutedId: string, mute: { till: number; notifications: boolean } | undefined): SetChange[] {
  const base = { owner: muterId, set: "mutes" as const };
  if (!mute) return [{ ...base, op: "rem", member: mutedId }, { ...base, op: "rem", member: NOTIFY_MUTE_PREFIX + mutedId }];
  return [
    { ...base, op: "add", member: mutedId, score: mute.till },
    mute.notifications ? { ...base, op: "add", member: NOTIFY_MUTE_PREFIX + mutedId, score: mute.till } : { ...base, op: "rem", member: NOTIFY_MUTE_PREFIX + mutedId },
  ];
}

/**
 * Reads a user's sets from Postgres and caches them, unless a write moved the user's `epoch` (as a
 * script found it missing) since: then the cache is left for the next read to rebuild, and this
 * answer is still right for the request that asked (Postgres is the truth).
 */
export async function rebuildSets(services: Pick<Services, "db" | "env" | "redisFor">, userId: string, epoch: string): Promise<SafetySets> {
  const sets = await readSets(services.db, userId, BLOCKED_ME_CAP, safetyNow(services.env));
  const flat = (entries: Iterable<[string, number]>) => {
    const out: (string | number)[] = [];
    for (const [member, score] of entries) out.push(score, member);
    return out;
  };
  const mutes: [string, number][] = [];
  for (const [id, m] of sets.mutes) {
    mutes.push([id, m.till]);
    if (m.notifications) mutes.push([NOTIFY_MUTE_PREFIX + id, m.till]);
  }
  const args = [epoch, SETS_TTL_SECONDS, sets.blocked.size, ...flat(sets.blocked), sets.blockedMe.size, ...flat(sets.blockedMe), mutes.length, ...flat(mutes)];
  // The answer is Postgres' either way: a failed cache write only leaves the next read to rebuild.
  await runScript(services.redisFor(userId), WARM_SETS, safetyKeysOf(userId), args).catch((err: unknown) => {
    if (!isRedisOutage(err)) throw err;
    log.warn({ message: "safety sets rebuild not cached", userId, error: errorText(err) });
  });
  return sets;
}

/** What `sets` (a user's, from Postgres) say of `peer` at `nowMs`: the same rule as `safety_verdict` in Lua. */
export function verdictOf(sets: SafetySets, peer: string, nowMs: number): Verdict {
  if (sets.blocked.has(peer) || sets.blockedMe.has(peer)) return "blocked";
  const mute = sets.mutes.get(peer);
  return mute && mute.notifications && mute.till > nowMs ? "muted" : "ok";
}

/**
 * What another capability's script needs to check, inside the call it already makes on `ownerId`'s
 * database, what reaches `ownerId` from `peer`: the keys and clock to pass, and what to do when the
 * script answers that the sets are not cached (one Postgres read, which also caches them; the
 * caller then runs its script again with the verdict known).
 */
export type SafetyCheck = { peer: string; keys: string[]; now: number; known?: "suspended"; afterMiss(epoch: string): Promise<Verdict> };

/**
 * The check of what reaches `ownerId` from `peer`. A suspended `peer` (the isolate's copy: no
 * round trip) is known at once (`known: "suspended"`): the script applies nothing and answers
 * `suppressed: "suspended"` without reading the sets, so nothing they cause is counted or pushed.
 */
export async function safetyCheck(services: Pick<Services, "db" | "env" | "events" | "waitUntil" | "redis" | "redisFor">, ownerId: string, peer: string): Promise<SafetyCheck> {
  const now = safetyNow(services.env);
  const suspended = isSuspended(await moderationCopy(services), peer);
  return {
    peer,
    keys: safetyKeysOf(ownerId),
    now,
    ...(suspended ? { known: "suspended" as const } : {}),
    afterMiss: async (epoch) => verdictOf(await rebuildSets(services, ownerId, epoch), peer, now),
  };
}

async function runScript(redis: Pick<Redis, "createScript">, source: string, keys: string[], args: (string | number)[]): Promise<unknown> {
  try {
    return await redis.createScript(source).exec(keys, args.map(String));
  } catch (err) {
    // A script error is our bug (500), not an outage; an outage is a 503 the caller may retry.
    if (isRedisCommandError(err)) throw commandFailure("Safety script", err);
    if (isRedisOutage(err)) throw new DependencyUnavailableError("redis", err);
    throw err;
  }
}

/**
 * Which of `authorIds` the reader must not see (blocked either way, or muted and not ended): one
 * read-only call on the reader's database (`safety_hides` per author), for a read whose list is
 * not the reader's own (trending, shared by every reader). Sets not cached: one Postgres read
 * answers, and caches them.
 */
export function hiddenAmong(services: Pick<Services, "db" | "env" | "redisFor">, readerId: string, authorIds: readonly string[]): Promise<Set<string>> {
  return keptAway(services, readerId, authorIds, "hides");
}

/**
 * Which of `userIds` a block stands between `userId` and (either way): one read-only call on the
 * user's database (their sets hold both directions), as `hiddenAmong`. A live room's join asks it.
 */
export function blockedAmong(services: Pick<Services, "db" | "env" | "redisFor">, userId: string, userIds: readonly string[], options: { rebuild: boolean } = { rebuild: true }): Promise<Set<string>> {
  return keptAway(services, userId, userIds, "blocks", options.rebuild);
}

async function keptAway(services: Pick<Services, "db" | "env" | "redisFor">, readerId: string, authorIds: readonly string[], mode: "hides" | "blocks", rebuild = true): Promise<Set<string>> {
  const distinct = [...new Set(authorIds)].filter((a) => a !== readerId);
  if (distinct.length === 0) return new Set();
  const now = safetyNow(services.env);
  let answer: unknown;
  try {
    answer = await readOnlyScriptOf(services.redisFor(readerId), HIDDEN_AMONG).exec(safetyKeysOf(readerId), [String(now), mode, ...distinct]);
  } catch (err) {
    if (isRedisCommandError(err)) throw commandFailure("Safety script", err);
    if (isRedisOutage(err)) throw new DependencyUnavailableError("redis", err);
    throw err;
  }
  const got = (typeof answer === "string" ? JSON.parse(answer) : answer) as { miss?: boolean; epoch?: string; hidden?: unknown };
  if (got.miss) {
    // A caller that must not read Postgres (a live join) is answered "nothing known".
    if (!rebuild) return new Set();
    const sets = await rebuildSets(services, readerId, got.epoch ?? "");
    return new Set(distinct.filter((a) => sets.blocked.has(a) || sets.blockedMe.has(a) || (mode === "hides" && (sets.mutes.get(a)?.till ?? 0) > now)));
  }
  return new Set(Array.isArray(got.hidden) ? got.hidden.map(String) : []);
}

/**
 * Builds `userId`'s cached sets from Postgres now (a block does it for both users after its write),
 * so the reads that do not rebuild on a miss (a live join) know of the block while the cache lives.
 * The epoch is read first: a write racing this rebuild wins, as with any rebuild.
 */
export async function cacheSetsNow(services: Pick<Services, "db" | "env" | "redisFor">, userId: string): Promise<void> {
  const epoch = await services.redisFor(userId).get<string | number>(safetyKeys.epoch(userId));
  await rebuildSets(services, userId, epoch === null || epoch === undefined ? "" : String(epoch));
}
