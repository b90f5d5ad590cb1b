import { ApiError, DependencyUnavailableError, isRedisCommandError } from "../lib/errors";
import { readRegionsOn } from "../lib/consistency";
import { errorText, log } from "../lib/log";
import { runReadOnly } from "../lib/read-only-scripts";
import { base64UrlEncode } from "../lib/base64url";
import { commandFailure, isBudgetRefusal, isRedisOutage } from "../lib/redis-failures";
import type { ScriptRunner } from "../lib/script-batch";
import { rawCommand, type Redis } from "../lib/redis";
import { databaseOf, groupByDatabase, settleEach } from "../lib/redis-topology";
import type { Services } from "../lib/services";
import { INCREMENT_COUNTERS } from "./increment.lua";
import { CACHE_TTL_SECONDS, CALL_APPLIED_TTL_SECONDS, counterKeys, EVENT_APPLIED_TTL_SECONDS, IDEMPOTENCY_TTL_SECONDS } from "./keys";
import { unpackCounters } from "./packing";
import { READ_CACHED_COUNTERS } from "./read.lua";
import { COUNTER_REGISTRY, type CounterDelta, type CounterEntity, fieldsOf, isCounterEntity, isCounterField, MAX_ABS_DELTA } from "./registry";
import { applyDirect, mergeDeltas, readSnapshot } from "./store";
import { hourOf, trendingWeight } from "./trending";
import { READ_UNCACHED_COUNTERS, WARM_COUNTERS } from "./warm.lua";

/**
 * Counters' hot paths run scripts only, so they also run inside an event's pipelines. Every key of
 * an entity lives on the entity's database (`redisAt(databaseOf(id, databases))`), and so do the
 * pending hash and the batches its increments land in: each database has its own. `env` and
 * `waitUntil` (a request's services have both): with read regions on, a read of entities not
 * cached answers from the nearest region and sends the cache build after the answer.
 */
type Deps = {
  redisAt(index: number): ScriptRunner;
  readonly databases: number;
  db: Services["db"];
  readonly env?: { REDIS_READ_REGIONS?: string };
  waitUntil?(promise: Promise<unknown>): void;
};

/** Rethrows a failure that is not an outage; a script error loses its Upstash identity so it answers 500. */
function rethrow(err: unknown): never {
  throw isRedisCommandError(err) ? commandFailure("Counter script", err) : err;
}

/**
 * Checks deltas against the registry and the bounds; a 400 names every bad field and nothing is
 * applied. Returns the deltas without zeros (a zero moves nothing and costs a command).
 */
export function validateDeltas(entity: string, id: string, deltas: Record<string, unknown>): CounterDelta[] {
  if (!isCounterEntity(entity)) {
    throw new ApiError("bad_request", `Unknown counter entity "${entity}"`, [
      { field: "entity", message: `must be one of ${Object.keys(COUNTER_REGISTRY).join(", ")}` },
    ]);
  }
  const problems: { field: string; message: string }[] = [];
  const out: CounterDelta[] = [];
  const names = Object.keys(deltas);
  if (names.length === 0) problems.push({ field: "deltas", message: "must name at least one field" });
  for (const field of names) {
    const delta = deltas[field];
    if (!isCounterField(entity, field)) {
      problems.push({ field: `deltas.${field}`, message: `is not a ${entity} counter (${fieldsOf(entity).join(", ")})` });
    } else if (typeof delta !== "number" || !Number.isInteger(delta) || Math.abs(delta) > MAX_ABS_DELTA) {
      problems.push({ field: `deltas.${field}`, message: `must be an integer between -${MAX_ABS_DELTA} and ${MAX_ABS_DELTA}` });
    } else if (delta !== 0) {
      out.push({ entity, id, field, delta });
    }
  }
  if (problems.length > 0) throw new ApiError("bad_request", `Invalid ${problems.map((p) => p.field).join(", ")}`, problems);
  return out;
}

/** An Idempotency-Key claim: what identifies the request, and the answer to replay. */
export type IdempotencyClaim = { callerId: string; key: string; fingerprint: string; answer: string; ownerId?: string };

/**
 * `counts`: each moved entity's values right after the call (registry field order), keyed
 * `entity:id` (`countsKey`), from the increment script itself — present for entities cached in
 * Redis, absent when the increment went to Postgres (Redis down).
 */
export type IncrementOutcome =
  | { applied: true; via: "redis"; counts: ReadonlyMap<string, number[]> }
  | { applied: true; via: "postgres"; counts?: ReadonlyMap<string, number[]> }
  | { applied: false; replayed: string; counts: ReadonlyMap<string, number[]> };

export const countsKey = (entity: CounterEntity, id: string) => `${entity}:${id}`;

type Group = { entity: CounterEntity; id: string; fields: [string, number][] };

/**
 * Applies deltas: one script call per database holding a moved entity adds them to that
 * database's pending hash and cached values (one Redis round trip: one call at N = 1, or for one
 * entity; parallel calls otherwise). When a database is unreachable (or answers past its command
 * budget) its entities' deltas go straight to Postgres (and their cache entries are invalidated
 * by the next flush) — except with an idempotency key, which only Redis can remember: then 503,
 * so the caller retries later. A key reused with a different request is a 409. `once` (an event's
 * id) keys each database's part by the event: a retry of the event applies only the parts that did
 * not apply (`ctr:ev:{id}`, claimed in the same script).
 *
 * Every call is applied at most once on each database, whatever is sent again: its script claims
 * a key in the call that applies (the Idempotency-Key's, the event's, or else the call's own random
 * id, `ctr:once:{id}`), and a failure that may have come after Redis ran it (a 503, a dropped
 * connection, a timeout) is retried with the same key for up to RETRY_WINDOW_MS (`runKeyed`): a
 * database restarted from its append-only file within that window answers the call applied once,
 * never twice. Only a database still unreachable after it sends the deltas to Postgres.
 */
export async function incrementCounters(
  deps: Deps,
  deltas: readonly CounterDelta[],
  claim?: IdempotencyClaim,
  options: { trending?: boolean; once?: string } = {},
): Promise<IncrementOutcome> {
  const trending = options.trending ?? true;
  const once = options.once;
  if (once !== undefined && claim) throw new Error("An increment is keyed by an Idempotency-Key or by an event, not both");
  const merged = mergeDeltas(deltas);
  const groups = new Map<string, Group>();
  for (const d of merged) {
    const key = `${d.entity}:${d.id}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { entity: d.entity, id: d.id, fields: [] }));
    group.fields.push([d.field, d.delta]);
  }
  if (groups.size === 0 && !claim) return { applied: true, via: "redis", counts: new Map() };
  const n = deps.databases;
  const byDatabase = groupByDatabase([...groups.values()], (g) => g.id, n);
  const claimOwner = claim ? (claim.ownerId ?? [...groups.values()][0]?.id ?? "0") : undefined;
  const claimDatabase = claimOwner !== undefined ? databaseOf(claimOwner, n) : -1;
  if (claim) {
    if (byDatabase.size > 1 || (byDatabase.size === 1 && !byDatabase.has(claimDatabase))) {
      throw new Error("An idempotent increment must move entities of one database only");
    }
    if (!byDatabase.has(claimDatabase)) byDatabase.set(claimDatabase, []);
  }
  // Each database's part claims one key (one command): an event's by its id (a retry of the event
  // applies only the databases that have not applied it), else the call's own id.
  const callId = newCallId();
  const unkeyed = once !== undefined ? eventMarker(once) : callMarker(callId);
  const hour = hourOf(Date.now());
  // A call is sent again only to the database its entities still live on (a reshard may move them).
  const stillOn = (index: number, list: readonly Group[]) => () =>
    list.every((g) => databaseOf(g.id, n) === index) && (index !== claimDatabase || databaseOf(claimOwner!, n) === index);
  const settled = await settleEach(byDatabase, (index, list) =>
    runKeyed(deps.redisAt(index), list, index === claimDatabase ? claimMarker(claim!, callId) : unkeyed, trending, hour, stillOn(index, list)),
  );

  const counts = new Map<string, number[]>();
  let direct: CounterDelta[] = [];
  let replay: { stored: string } | undefined;
  for (const [index, list] of byDatabase) {
    const outcome = settled.get(index)!;
    if (outcome.status === "rejected") {
      const err = outcome.reason;
      if (!isRedisOutage(err)) rethrow(err);
      if (index === claimDatabase) throw new DependencyUnavailableError("redis", err);
      const part = merged.filter((d) => list.some((g) => g.entity === d.entity && g.id === d.id));
      // The one case counted twice: Redis ran it, and comes back with it after the window. Said, for the operator.
      if (mayHaveRun(err)) log.warn({ message: "counter increment sent to Postgres after its Redis answer was lost", database: index, deltas: part.slice(0, 10), error: errorText(err).slice(0, 200) });
      direct = direct.concat(part);
      continue;
    }
    const result = outcome.value;
    // Rows follow the status (and, on a replay, the stored answer) in group order.
    const rows = result.slice(result[0] === 1 ? 1 : 2);
    list.forEach((g, i) => {
      const row = decodeCachedCounters(rows[i], fieldsOf(g.entity).length);
      if (row) counts.set(countsKey(g.entity, g.id), row);
    });
    // Not applied: an Idempotency-Key's replay, or (keyed by an event) this database's part of
    // the event applied before — its rows are the counts as they are now.
    if (result[0] !== 1 && claim) replay = { stored: String(result[1] ?? "") };
  }
  if (direct.length > 0) {
    await applyDirect(deps.db, direct);
    return { applied: true, via: "postgres", counts };
  }
  if (!replay) return { applied: true, via: "redis", counts };
  // fingerprint "\n" first answer "\n" the id of the call that stored it (none in keys stored before it was added)
  const [fingerprint, answer = "", by] = replay.stored.split("\n");
  // This call's own attempt whose answer was lost: applied by this call, not a replay.
  if (by === callId) return { applied: true, via: "redis", counts };
  if (!claim || fingerprint !== claim.fingerprint) {
    throw new ApiError("conflict", "This Idempotency-Key was already used for a different request", [
      { field: "Idempotency-Key", message: "was used within 24 h for another entity, id or deltas" },
    ]);
  }
  return { applied: false, replayed: answer, counts };
}

/**
 * What makes one database's increment apply at most once: a key the script claims (`SET NX EX`)
 * in the same call that applies, its value and TTL. An Idempotency-Key's remembers the first
 * answer for 24 h (and which call stored it, so that call's own retry is not taken for a replay);
 * an event's (`ctr:ev:{id}`) only that this database applied its part; a call's (`ctr:once:{id}`)
 * that this database applied it.
 */
type Marker = { key: string; value: string; ttlSeconds: number };

const claimMarker = (claim: IdempotencyClaim, callId: string): Marker => ({
  key: counterKeys.idempotency(claim.callerId, claim.key),
  value: `${claim.fingerprint}\n${claim.answer}\n${callId}`,
  ttlSeconds: IDEMPOTENCY_TTL_SECONDS,
});
const eventMarker = (eventId: string): Marker => ({ key: counterKeys.eventApplied(eventId), value: "1", ttlSeconds: EVENT_APPLIED_TTL_SECONDS });
const callMarker = (callId: string): Marker => ({ key: counterKeys.callApplied(callId), value: "1", ttlSeconds: CALL_APPLIED_TTL_SECONDS });

/** 96 random bits: no two calls within the key's life share an id. */
function newCallId(): string {
  return base64UrlEncode(crypto.getRandomValues(new Uint8Array(12)));
}

/**
 * How long a call whose script may have run keeps sending it again (with the same key, so it is
 * applied once) before its deltas go to Postgres: long enough for a database restarted from its
 * append-only file (the dev stack's supervisor brings one back within a second or two), short
 * enough for the degraded answer of a real outage. The waits between attempts, in order.
 */
export const RETRY_WINDOW_MS = 3_000;
const RETRY_WAITS_MS = [100, 200, 400, 800, 1_500] as const;

/**
 * When each client's calls started failing and last failed (none succeeded since), per isolate:
 * once a database has been failing for longer than the window, a call that fails goes to Postgres
 * at once, so a long outage costs each increment one failed request, not the window. A failure
 * more than a window after the last one starts a new failing period.
 */
const failing = new WeakMap<object, { since: number; last: number }>();

/**
 * A failure after which Redis may have run the call: an outage (a 5xx, a dropped connection, a
 * timeout) that is not one refused before anything was sent (the client's own checks throw a
 * DependencyUnavailableError; a call past the command budget is refused unrun).
 */
function mayHaveRun(err: unknown): boolean {
  return isRedisOutage(err) && !(err instanceof DependencyUnavailableError) && !isBudgetRefusal(err);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `runIncrement`, sent again with the same marker while its failures may have come after Redis ran
 * it, within RETRY_WINDOW_MS of the client's first failure, and while its entities still live on
 * that database (`stillOn`: a reshard moving them ends the retries, as the key is that database's).
 * Its script refuses a second application of the marker, so however many attempts reached Redis
 * the call is applied once (an attempt after an applied one answers the counts as they are). A
 * failure that certainly ran nothing, before any attempt that may have, is thrown at once: nothing
 * to find out.
 */
async function runKeyed(
  redis: ScriptRunner,
  list: readonly Group[],
  marker: Marker,
  trending: boolean,
  hour: number,
  stillOn: () => boolean,
): Promise<unknown[]> {
  let unsure = false;
  for (const wait of [...RETRY_WAITS_MS, undefined]) {
    try {
      const result = await runIncrement(redis, list, marker, trending, hour);
      failing.delete(redis);
      return result;
    } catch (err) {
      if (!isRedisOutage(err)) throw err;
      unsure ||= mayHaveRun(err);
      const now = Date.now();
      const before = failing.get(redis);
      const since = before && now - before.last <= RETRY_WINDOW_MS ? before.since : now;
      failing.set(redis, { since, last: now });
      if (!unsure || wait === undefined || now + wait - since > RETRY_WINDOW_MS || !stillOn()) throw err;
      await sleep(wait);
    }
  }
  throw new Error("unreachable");
}

/** The increment script on one database, for the entities that live there, claiming `marker` in the call that applies. */
function runIncrement(redis: ScriptRunner, list: readonly Group[], marker: Marker, trending: boolean, hour: number): Promise<unknown[]> {
  const keys = [counterKeys.pending(), ...list.map((g) => counterKeys.cache(g.entity, g.id))];
  const args: (string | number)[] = [list.length, marker.value, marker.ttlSeconds];
  for (const g of list) {
    const weight = trending ? trendingWeight(g.fields.map(([field, delta]) => ({ entity: g.entity, field, delta }))) : 0;
    const registered = fieldsOf(g.entity);
    args.push(counterKeys.pendingField(g.entity, g.id, ""), weight, registered.length, g.fields.length);
    for (const [field, delta] of g.fields) args.push(field, registered.indexOf(field) + 1, delta);
  }
  keys.push(marker.key);
  // Each database keeps the trending bucket of its own posts (a read merges their top lists: src/feed/trending.ts).
  keys.push(counterKeys.trendingBucket(hour));
  return redis.createScript<unknown[]>(INCREMENT_COUNTERS).exec(keys, args.map(String));
}

/**
 * What clients are shown of one entity's raw values: field → value, never below zero (the stored
 * truth may dip below zero when an unfollow flushed before its follow was repaired); zeros for an
 * unknown entity.
 */
export function shownCounts(fields: readonly string[], row: readonly number[] | undefined): Record<string, number> {
  return Object.fromEntries(fields.map((f, i) => [f, Math.max(0, row?.[i] ?? 0)]));
}

/**
 * Raw (unclamped) values of one entity kind, in registry field order, per requested id. `stale`:
 * some values come from Postgres alone (their database was unreachable); `staleIds` names them
 * when only some did (N > 1), the others are exact.
 */
export type CounterRead = {
  entity: CounterEntity;
  fields: readonly string[];
  values: Map<string, number[]>;
  stale: boolean;
  staleIds?: ReadonlySet<string>;
  /** With `cachedOnly`: the ids not cached, left out of `values` for the caller to complete. */
  misses?: readonly string[];
};

/**
 * One row of `read_counter_caches` (`read.lua.ts`) as raw values in registry field order, or null
 * when the entity is not (completely) cached and must be warmed.
 */
export function decodeCachedCounters(row: unknown, fieldCount: number): number[] | null {
  if (!Array.isArray(row) || row.length !== fieldCount || !row.every((v) => v !== null && v !== undefined && v !== false)) return null;
  return row.map(Number);
}

/** How often a warm re-reads Postgres when a flush committed between its read and its script. */
const WARM_ATTEMPTS = 3;

/**
 * Reads every field of up to 100 entities: one script call per database holding some of them,
 * in parallel (one call at N = 1), when all are cached; otherwise one Postgres statement for all
 * misses (values + each database's watermark in one snapshot) and one script call per database
 * that completes and caches them. A database unreachable: its entities' Postgres values, marked
 * stale; the others' are exact. `cachedOnly`: the cached values and the `misses`, nothing read or
 * cached for them (a database unreachable is still answered from Postgres).
 */
export async function readCounters(deps: Deps, entity: CounterEntity, ids: readonly string[], options: { cachedOnly?: boolean } = {}): Promise<CounterRead> {
  const fields = fieldsOf(entity);
  const values = new Map<string, number[]>();
  const byDatabase = groupByDatabase(ids, (id) => id, deps.databases);
  // N = 1: the read-only read script (EVALSHA_RO + MGET). N > 1: a bare MGET per database, decoded
  // here by the same packing rule (`packing.ts`), so a read spread over N databases bills N
  // commands — one per extra database — instead of 2N. Both are what a read region answers.
  const settled = await settleEach(byDatabase, async (index, list): Promise<(unknown[] | null)[]> => {
    const keys = list.map((id) => counterKeys.cache(entity, id));
    const redis = deps.redisAt(index);
    if (deps.databases === 1 || !("mget" in redis)) return runReadOnly<(unknown[] | null)[]>(redis, READ_CACHED_COUNTERS, keys, [...fields]);
    // Raw: the values are packed text, decoded below (the SDK would try JSON on each).
    const packed = (await rawCommand(redis as Redis, ["MGET", ...keys])) as unknown[];
    return packed.map((value) => unpackCounters(value, fields.length));
  });
  const misses: string[] = [];
  const unreachable: string[] = [];
  for (const [index, list] of byDatabase) {
    const outcome = settled.get(index)!;
    if (outcome.status === "rejected") {
      if (!isRedisOutage(outcome.reason)) rethrow(outcome.reason);
      unreachable.push(...list);
      continue;
    }
    list.forEach((id, i) => {
      const row = decodeCachedCounters(outcome.value[i], fields.length);
      if (row) values.set(id, row);
      else misses.push(id);
    });
  }
  // The caller completes the misses itself once it knows they are worth it (a post's detail, for
  // a post that turns out deleted, must not cache its counters back).
  if (options.cachedOnly && unreachable.length === 0) return { entity, fields, values, stale: false, misses };
  if (misses.length > 0) {
    try {
      const warmed = readsNear(deps) ? await completeNear(deps, entity, misses) : await completeWhereReachable(deps, entity, misses, "warm");
      for (const [id, vals] of warmed.completed) values.set(id, vals);
      if (warmed.unreachable) unreachable.push(...warmed.unreachable.ids);
    } catch (err) {
      if (err instanceof ApiError || !isRedisOutage(err)) rethrow(err);
      unreachable.push(...misses.filter((id) => !values.has(id)));
    }
  }
  if (unreachable.length === 0) return { entity, fields, values, stale: false };
  for (const [id, vals] of await postgresValues(deps, entity, unreachable)) values.set(id, vals);
  return { entity, fields, values, stale: true, staleIds: unreachable.length < ids.length ? new Set(unreachable) : undefined };
}

/**
 * True values of entities a read found not cached (in a cache read of its own): with read regions
 * completed near and cached after the answer (`completeNear`), else warmed on the primary first, as
 * `readCounters` completes its misses. Throws when a database holding some of them is unreachable.
 */
export async function completeForRead(deps: Deps, entity: CounterEntity, ids: readonly string[]): Promise<Map<string, number[]>> {
  const done = readsNear(deps) ? await completeNear(deps, entity, ids) : await completeWhereReachable(deps, entity, ids, "warm");
  if (done.unreachable) throw done.unreachable.error;
  return done.completed;
}

/** Deps of a request whose reads may be answered by a read region (`REDIS_READ_REGIONS` on). */
type NearDeps = Deps & { waitUntil(promise: Promise<unknown>): void };

function readsNear(deps: Deps): deps is NearDeps {
  return deps.env !== undefined && deps.waitUntil !== undefined && readRegionsOn(deps.env);
}

/**
 * With read regions: the true values of entities not cached, answered near the caller. One
 * Postgres snapshot (as a warm reads), then READ_UNCACHED_COUNTERS on each database's nearest
 * region (EVALSHA_RO), and the cache build sent to the primary after the answer (`waitUntil`: the
 * warm script with the same snapshot, which caches only where no complete entry exists and only if
 * no flush committed since). So a read never waits for the primary, even on a miss, and reads that
 * follow find the cache once the warm has reached their region; until then they complete from
 * Postgres the same way. The entities a region refused (it is behind the snapshot, or a flush
 * committed since) are warmed on the primary before answering, as without read regions.
 */
async function completeNear(deps: NearDeps, entity: CounterEntity, ids: readonly string[]): ReturnType<typeof completeWhereReachable> {
  const databases = [...groupByDatabase(ids, (id) => id, deps.databases).keys()];
  const snapshot = await readSnapshot(deps.db, entity, ids, databases);
  const near = await completeSnapshotParts(deps, entity, ids, snapshot, "read");
  if (near.completed.size > 0) deps.waitUntil(warmAfterAnswer(deps, entity, [...near.completed.keys()], snapshot));
  if (near.refused.length === 0) return { completed: near.completed, unreachable: near.unreachable };
  const primary = await completeWhereReachable(deps, entity, near.refused, "warm");
  for (const [id, row] of primary.completed) near.completed.set(id, row);
  const unreachable = [...(near.unreachable?.ids ?? []), ...(primary.unreachable?.ids ?? [])];
  return { completed: near.completed, unreachable: unreachable.length > 0 ? { ids: unreachable, error: primary.unreachable?.error ?? near.unreachable?.error } : undefined };
}

/**
 * The cache build of a read answered near: never fails the read it follows. A refused warm (a
 * flush committed since the snapshot) leaves the entity uncached; its next read warms it.
 */
async function warmAfterAnswer(deps: Deps, entity: CounterEntity, ids: string[], snapshot: CounterSnapshotRead): Promise<void> {
  try {
    await completeSnapshotParts(deps, entity, ids, snapshot, "warm");
  } catch (err) {
    log.warn({ message: "counter warm after a near read failed", entity, ids: ids.length, error: errorText(err) });
  }
}

/**
 * True values (Postgres at W + unapplied batches + pending) of some entities, read consistently;
 * "warm" also caches them (only where no complete cache entry exists), "peek" only reads. At
 * N > 1 each database's part is completed against that database's own watermark; a database
 * that refuses (a flush committed there after the snapshot) has its part read again.
 */
export async function completeFromSnapshot(
  deps: Deps,
  entity: CounterEntity,
  ids: readonly string[],
  mode: "warm" | "peek",
): Promise<Map<string, number[]>> {
  const { completed, unreachable } = await completeWhereReachable(deps, entity, ids, mode);
  if (unreachable) throw unreachable.error;
  return completed;
}

/**
 * `completeFromSnapshot`, except that a database that cannot be reached does not fail the others:
 * its ids come back in `unreachable` with the outage.
 */
async function completeWhereReachable(
  deps: Deps,
  entity: CounterEntity,
  ids: readonly string[],
  mode: "warm" | "peek",
): Promise<{ completed: Map<string, number[]>; unreachable?: { ids: string[]; error: unknown } }> {
  const completed = new Map<string, number[]>();
  let unreachable: { ids: string[]; error: unknown } | undefined;
  let left = [...ids];
  for (let attempt = 0; attempt < WARM_ATTEMPTS && left.length > 0; attempt++) {
    const databases = [...groupByDatabase(left, (id) => id, deps.databases).keys()];
    const snapshot = await readSnapshot(deps.db, entity, left, databases);
    const parts = await completeSnapshotParts(deps, entity, left, snapshot, mode);
    for (const [id, row] of parts.completed) completed.set(id, row);
    if (parts.unreachable) unreachable = { ids: [...(unreachable?.ids ?? []), ...parts.unreachable.ids], error: parts.unreachable.error };
    left = parts.refused; // a flush committed a batch after our snapshot there: read again
  }
  if (left.length > 0) throw new ApiError("unavailable", "Counters are being flushed; retry shortly");
  return { completed, unreachable };
}

/**
 * The script half of `completeFromSnapshot`: null when the snapshot is stale for any of the
 * databases involved (a batch above its watermark was applied and dropped since, or the snapshot
 * has no watermark of that database), in which case nothing of that database was cached.
 */
export async function completeSnapshot(
  deps: Pick<Deps, "redisAt" | "databases">,
  entity: CounterEntity,
  ids: readonly string[],
  snapshot: CounterSnapshotRead,
  mode: "warm" | "peek",
): Promise<Map<string, number[]> | null> {
  const parts = await completeSnapshotParts(deps, entity, ids, snapshot, mode);
  if (parts.unreachable) throw parts.unreachable.error;
  return parts.refused.length > 0 ? null : parts.completed;
}

/** Postgres values with the watermark of database 0 (`watermark`) and, at N > 1, of each database read (`watermarks`). */
export type CounterSnapshotRead = { watermark: number; watermarks?: ReadonlyMap<number, number>; values: Map<string, Map<string, number>> };

/**
 * Each database's part of a snapshot completed by a script there: "warm" and "peek" with
 * WARM_COUNTERS on the primary, "read" with READ_UNCACHED_COUNTERS (read-only, the nearest region).
 */
async function completeSnapshotParts(
  deps: Pick<Deps, "redisAt" | "databases">,
  entity: CounterEntity,
  ids: readonly string[],
  snapshot: CounterSnapshotRead,
  mode: "warm" | "peek" | "read",
): Promise<{ completed: Map<string, number[]>; refused: string[]; unreachable?: { ids: string[]; error: unknown } }> {
  const fields = fieldsOf(entity);
  const byDatabase = groupByDatabase(ids, (id) => id, deps.databases);
  const completed = new Map<string, number[]>();
  const refused: string[] = [];
  let unreachable: { ids: string[]; error: unknown } | undefined;
  const settled = await settleEach(byDatabase, async (index, list) => {
    const watermark = snapshot.watermarks?.get(index) ?? (index === 0 ? snapshot.watermark : undefined);
    if (watermark === undefined) return null;
    const keys = [counterKeys.pending(), counterKeys.unappliedBatches(), counterKeys.batchSeq(), ...list.map((id) => counterKeys.cache(entity, id))];
    const args: (string | number)[] = [watermark, CACHE_TTL_SECONDS, mode, counterKeys.batchPrefix(), fields.length, ...fields];
    for (const id of list) {
      const pg = snapshot.values.get(id);
      args.push(counterKeys.pendingField(entity, id, ""), ...fields.map((f) => pg?.get(f) ?? 0));
    }
    const redis = deps.redisAt(index);
    if (mode === "read") return runReadOnly<[number, ...unknown[][]]>(redis, READ_UNCACHED_COUNTERS, keys, args.map(String));
    return redis.createScript<[number, ...unknown[][]]>(WARM_COUNTERS).exec(keys, args.map(String));
  });
  for (const [index, list] of byDatabase) {
    const outcome = settled.get(index)!;
    if (outcome.status === "rejected") {
      if (!isRedisOutage(outcome.reason)) throw outcome.reason;
      unreachable = { ids: [...(unreachable?.ids ?? []), ...list], error: outcome.reason };
      continue;
    }
    const result = outcome.value;
    if (!result || result[0] !== 1) {
      refused.push(...list);
      continue;
    }
    list.forEach((id, i) => completed.set(id, ((result[i + 1] ?? []) as unknown[]).map(Number)));
  }
  return { completed, refused, unreachable };
}

/** Postgres values only (Redis down): misses whatever Redis still buffers, hence `stale`. */
async function postgresValues(deps: Deps, entity: CounterEntity, ids: readonly string[]): Promise<Map<string, number[]>> {
  const fields = fieldsOf(entity);
  const snapshot = await readSnapshot(deps.db, entity, ids);
  return new Map(ids.map((id) => [id, fields.map((f) => snapshot.values.get(id)?.get(f) ?? 0)]));
}
