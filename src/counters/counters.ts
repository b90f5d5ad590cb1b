import { ApiError, DependencyUnavailableError, isRedisCommandError } from "../lib/errors";
import { commandFailure, isRedisOutage } from "../lib/redis-failures";
import type { ScriptRunner } from "../lib/script-batch";
import type { Services } from "../lib/services";
import { INCREMENT_COUNTERS } from "./increment.lua";
import { CACHE_TTL_SECONDS, counterKeys, IDEMPOTENCY_TTL_SECONDS } from "./keys";
import { READ_CACHED_COUNTERS } from "./read.lua";
import { COUNTER_REGISTRY, type CounterDelta, type CounterEntity, fieldsOf, isCounterEntity, isCounterField, MAX_ABS_DELTA } from "./registry";
import { applyDirect, mergeDeltas, readSnapshot } from "./store";
import { hourOf, trendingWeight } from "./trending";
import { WARM_COUNTERS } from "./warm.lua";

/** Counters' hot paths run scripts only, so they also run inside an event's one pipeline. */
type Deps = { redis: ScriptRunner; db: Services["db"] };

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
export type IdempotencyClaim = { callerId: string; key: string; fingerprint: string; answer: string };

/**
 * `counts`: each moved entity's values right after the call (registry field order), keyed
 * `entity:id` (`countsKey`), from the increment script itself — present for entities cached in
 * Redis, absent when the increment went to Postgres (Redis down).
 */
export type IncrementOutcome =
  | { applied: true; via: "redis"; counts: ReadonlyMap<string, number[]> }
  | { applied: true; via: "postgres"; counts?: undefined }
  | { applied: false; replayed: string; counts: ReadonlyMap<string, number[]> };

export const countsKey = (entity: CounterEntity, id: string) => `${entity}:${id}`;

/**
 * Applies deltas: one script call adds them to the pending hash and to cached values (one Redis
 * round trip for any number of entities and fields). When Redis is unreachable the deltas go
 * straight to Postgres (and the touched cache entries are invalidated by the next flush) — except
 * with an idempotency key, which only Redis can remember: then 503, so the caller retries later.
 * A key reused with a different request is a 409.
 */
export async function incrementCounters(
  deps: Deps,
  deltas: readonly CounterDelta[],
  claim?: IdempotencyClaim,
  options: { trending?: boolean } = {},
): Promise<IncrementOutcome> {
  const trending = options.trending ?? true;
  const merged = mergeDeltas(deltas);
  const groups = new Map<string, { entity: CounterEntity; id: string; fields: [string, number][] }>();
  for (const d of merged) {
    const key = `${d.entity}:${d.id}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { entity: d.entity, id: d.id, fields: [] }));
    group.fields.push([d.field, d.delta]);
  }
  if (groups.size === 0 && !claim) return { applied: true, via: "redis", counts: new Map() };
  const keys = [counterKeys.pending(), ...[...groups.values()].map((g) => counterKeys.cache(g.entity, g.id))];
  const args: (string | number)[] = [groups.size, claim ? `${claim.fingerprint}\n${claim.answer}` : "", IDEMPOTENCY_TTL_SECONDS];
  for (const g of groups.values()) {
    const weight = trending ? trendingWeight(g.fields.map(([field, delta]) => ({ entity: g.entity, field, delta }))) : 0;
    const registered = fieldsOf(g.entity);
    args.push(counterKeys.pendingField(g.entity, g.id, ""), weight, registered.length, g.fields.length);
    for (const [field, delta] of g.fields) args.push(field, registered.indexOf(field) + 1, delta);
  }
  if (claim) keys.push(counterKeys.idempotency(claim.callerId, claim.key));
  keys.push(counterKeys.trendingBucket(hourOf(Date.now())));
  let result: unknown[];
  try {
    result = await deps.redis.createScript<unknown[]>(INCREMENT_COUNTERS).exec(keys, args.map(String));
  } catch (err) {
    if (!isRedisOutage(err)) rethrow(err);
    if (claim) throw new DependencyUnavailableError("redis", err);
    if (merged.length > 0) await applyDirect(deps.db, merged);
    return { applied: true, via: "postgres" };
  }
  // Rows follow the status (and, on a replay, the stored answer) in group order.
  const rows = result.slice(result[0] === 1 ? 1 : 2);
  const counts = new Map<string, number[]>();
  [...groups.values()].forEach((g, i) => {
    const row = decodeCachedCounters(rows[i], fieldsOf(g.entity).length);
    if (row) counts.set(countsKey(g.entity, g.id), row);
  });
  if (result[0] === 1) return { applied: true, via: "redis", counts };
  const stored = String(result[1] ?? "");
  const cut = stored.indexOf("\n");
  if (!claim || stored.slice(0, cut) !== claim.fingerprint) {
    throw new ApiError("conflict", "This Idempotency-Key was already used for a different request", [
      { field: "Idempotency-Key", message: "was used within 24 h for another entity, id or deltas" },
    ]);
  }
  return { applied: false, replayed: stored.slice(cut + 1), counts };
}

/**
 * What clients are shown of one entity's raw values: field → value, never below zero (the stored
 * truth may dip below zero when an unfollow flushed before its follow was repaired); zeros for an
 * unknown entity.
 */
export function shownCounts(fields: readonly string[], row: readonly number[] | undefined): Record<string, number> {
  return Object.fromEntries(fields.map((f, i) => [f, Math.max(0, row?.[i] ?? 0)]));
}

/** Raw (unclamped) values of one entity kind, in registry field order, per requested id. */
export type CounterRead = { entity: CounterEntity; fields: readonly string[]; values: Map<string, number[]>; stale: boolean };

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
 * Reads every field of up to 100 entities: one script call when all are cached; otherwise one
 * Postgres statement for all misses (values + watermark in one snapshot) and one script call that
 * completes and caches them. Redis unreachable: Postgres values, marked stale.
 */
export async function readCounters(deps: Deps, entity: CounterEntity, ids: readonly string[]): Promise<CounterRead> {
  const fields = fieldsOf(entity);
  const values = new Map<string, number[]>();
  let cached: (unknown[] | null)[];
  try {
    cached = await deps.redis
      .createScript<(unknown[] | null)[]>(READ_CACHED_COUNTERS)
      .exec(ids.map((id) => counterKeys.cache(entity, id)), [...fields]);
  } catch (err) {
    if (!isRedisOutage(err)) rethrow(err);
    return { entity, fields, values: await postgresValues(deps, entity, ids), stale: true };
  }
  const misses: string[] = [];
  ids.forEach((id, i) => {
    const row = decodeCachedCounters(cached[i], fields.length);
    if (row) values.set(id, row);
    else misses.push(id);
  });
  if (misses.length === 0) return { entity, fields, values, stale: false };
  try {
    const warmed = await completeFromSnapshot(deps, entity, misses, "warm");
    for (const [id, vals] of warmed) values.set(id, vals);
    return { entity, fields, values, stale: false };
  } catch (err) {
    if (err instanceof ApiError || !isRedisOutage(err)) rethrow(err);
    for (const [id, vals] of await postgresValues(deps, entity, misses)) values.set(id, vals);
    return { entity, fields, values, stale: true };
  }
}

/**
 * True values (Postgres at W + unapplied batches + pending) of some entities, read consistently;
 * "warm" also caches them (only where no complete cache hash exists), "peek" only reads.
 */
export async function completeFromSnapshot(
  deps: Deps,
  entity: CounterEntity,
  ids: readonly string[],
  mode: "warm" | "peek",
): Promise<Map<string, number[]>> {
  for (let attempt = 0; attempt < WARM_ATTEMPTS; attempt++) {
    const completed = await completeSnapshot(deps, entity, ids, await readSnapshot(deps.db, entity, ids), mode);
    if (completed) return completed; // else a flush committed a batch after our snapshot: read again
  }
  throw new ApiError("unavailable", "Counters are being flushed; retry shortly");
}

/**
 * The script half of `completeFromSnapshot`: null when the snapshot is stale (a batch above its
 * watermark was applied and dropped since), in which case nothing was cached.
 */
export async function completeSnapshot(
  deps: { redis: ScriptRunner },
  entity: CounterEntity,
  ids: readonly string[],
  snapshot: Awaited<ReturnType<typeof readSnapshot>>,
  mode: "warm" | "peek",
): Promise<Map<string, number[]> | null> {
  const fields = fieldsOf(entity);
  const keys = [counterKeys.pending(), counterKeys.unappliedBatches(), counterKeys.batchSeq(), ...ids.map((id) => counterKeys.cache(entity, id))];
  const args: (string | number)[] = [snapshot.watermark, CACHE_TTL_SECONDS, mode, counterKeys.batchPrefix(), fields.length, ...fields];
  for (const id of ids) {
    const pg = snapshot.values.get(id);
    args.push(counterKeys.pendingField(entity, id, ""), ...fields.map((f) => pg?.get(f) ?? 0));
  }
  const result = await deps.redis.createScript<[number, ...unknown[][]]>(WARM_COUNTERS).exec(keys, args.map(String));
  if (result[0] !== 1) return null;
  return new Map(ids.map((id, i) => [id, ((result[i + 1] ?? []) as unknown[]).map(Number)]));
}

/** Postgres values only (Redis down): misses whatever Redis still buffers, hence `stale`. */
async function postgresValues(deps: Deps, entity: CounterEntity, ids: readonly string[]): Promise<Map<string, number[]>> {
  const fields = fieldsOf(entity);
  const snapshot = await readSnapshot(deps.db, entity, ids);
  return new Map(ids.map((id) => [id, fields.map((f) => snapshot.values.get(id)?.get(f) ?? 0)]));
}
