import type { Env } from "../env";
import type { Services } from "../lib/services";
import { type CounterRead, countsKey, type IdempotencyClaim, incrementCounters, type IncrementOutcome, readCounters } from "./counters";
import { type CounterDelta, type CounterEntity, fieldsOf } from "./registry";
import { errorText, log } from "../lib/log";

/**
 * The edge copy of hot counters: a per-isolate map entity → values, served for at most the
 * freshness bound (`COUNTER_EDGE_CACHE_MS`), so a hot post read by thousands of screens costs one
 * Redis read per isolate per half bound instead of one per screen.
 *
 * Why isolate memory and not the Workers Cache API: a hit here is a Map lookup (no I/O, no
 * subrequest, no serialisation) and works everywhere, `workers.dev` included; the Cache API costs
 * a subrequest per `match` and per `put`, only works on custom domains, and its entries are only
 * evicted by their max-age in whole seconds, which cannot express a bound below one second or the
 * "never older than what was already served" rule below. Its one advantage — a copy shared by
 * every isolate of a data centre — matters little for a hot entity, which is hot in every isolate.
 *
 * Rules (each one a test in test/counters/edge-cache.test.ts):
 * - **Never older than the bound.** A copy's age counts from the moment its Redis read started,
 *   and a copy is served only while that age is below the bound.
 * - **Never older than a value already served** (within one isolate). A read result replaces a
 *   copy only if the read started after the copy was stored: a read that started later than
 *   another finished saw Redis at least as late. Two overlapping reads may have run in Redis in
 *   either order, so the later-arriving one must not overwrite the earlier-stored one.
 * - **A write whose answer carries counts drops its copies** in this isolate (`forget`: increments
 *   and reactions; a view or follow answers no counts, so its copy may stay within the bound):
 *   reads that started before the write can no longer store, reads that start after it can.
 *   Otherwise a later read here could be served a value older than the write's answer.
 * - **No miss storm at expiry.** Once a copy is half the bound old, the first reader to see it
 *   refreshes it from Redis for everyone while the others are still served the copy (it is still
 *   within the bound), as long as a Redis read takes less than half the bound. No promise is
 *   shared between requests: in workerd a request must not await I/O started by another one, so
 *   the refreshing request does its own read, as a miss would (and readers arriving after expiry,
 *   before the refresh lands, read Redis themselves).
 * - **Only complete, non-stale answers are kept**: a read that fell back to Postgres (Redis down)
 *   is never cached; a miss goes to today's read path and answers what it answers.
 */
export class EdgeCounterCache {
  /**
   * Copies by entity, then by id, each map in placement order (Map keeps insertion order). Two
   * levels, not one `entity:id` key: a lookup then hashes the id string it was given, whose hash
   * the string keeps, instead of building and hashing a new key string (a ranked page at N > 1
   * looks up hundreds of copies; the key strings were most of that lookup's cost).
   */
  readonly #byEntity = new Map<CounterEntity, Map<string, Entry>>();
  #size = 0;
  /** Orders read starts, stores and forgets (one isolate is single-threaded: a plain counter). */
  #seq = 0;
  /** No read started at or before this may store: a copy still within the bound was evicted then. */
  #floor = 0;
  /** Entries placed (stored, forgotten, or moved last by a use) so far: orders the placements. */
  #placed = 0;

  constructor(
    /** Entries kept; the least recently used goes first. */
    readonly capacity = EDGE_CACHE_ENTRIES,
    /** Milliseconds; workerd's clock is that of the current event (it moves on I/O). */
    readonly now: () => number = () => Date.now(),
  ) {}

  /** Marks the start of a Redis read whose result may be stored (`store`). */
  begin(): ReadTicket {
    return { seq: ++this.#seq, at: this.now() };
  }

  /**
   * The copy of `entity` `id` if it is younger than `boundMs`, else null (the caller reads Redis).
   * A copy past half the bound is handed out as a miss to one reader (who refreshes it) and as a
   * hit to the others. `now`: the clock as of this lookup (a batch reads it once; workerd's clock
   * only moves on I/O).
   */
  lookup(entity: CounterEntity, id: string, boundMs: number, now = this.now()): { values: readonly number[]; ageMs: number } | null {
    const entries = this.#byEntity.get(entity);
    const entry = entries?.get(id);
    if (!entry?.values) return null;
    const ageMs = now - entry.fetchedAt;
    if (ageMs >= boundMs || ageMs < 0) return null;
    if (ageMs >= boundMs * REFRESH_AFTER && now - entry.refreshClaimedAt >= boundMs * REFRESH_AFTER) {
      entry.refreshClaimedAt = now;
      return null;
    }
    // Most recently used last. An entry placed among the newer half is left where it is: at
    // least half the capacity of placements away from eviction, it is moved last once a use finds
    // it past that (a move is a delete and an insert).
    if (this.#placed - entry.placed >= this.capacity / 2) {
      entries!.delete(id);
      entries!.set(id, entry);
      entry.placed = ++this.#placed;
    }
    return { values: entry.values, ageMs };
  }

  /**
   * Keeps `values` of `entity` `id` as read by the read that took `ticket`, unless a copy stored
   * (or a write forgotten) after that read started is already there, or the result is already too
   * old to serve. Returns whether it was kept.
   */
  store(entity: CounterEntity, id: string, values: readonly number[], ticket: ReadTicket, boundMs: number): boolean {
    if (this.now() - ticket.at >= boundMs || ticket.seq <= this.#floor) return false;
    const entry = this.#byEntity.get(entity)?.get(id);
    if (entry && ticket.seq <= entry.storedSeq) return false;
    this.#place(entity, id, { values, fetchedAt: ticket.at, storedSeq: ++this.#seq, refreshClaimedAt: Number.NEGATIVE_INFINITY, placed: 0 }, boundMs);
    return true;
  }

  /** Drops the copy of `entity` `id` after a write: reads that started before now may not store it again. */
  forget(entity: CounterEntity, id: string, boundMs: number): void {
    if (boundMs <= 0) return; // nothing is kept, nothing to guard
    this.#place(entity, id, { values: null, fetchedAt: this.now(), storedSeq: ++this.#seq, refreshClaimedAt: Number.NEGATIVE_INFINITY, placed: 0 }, boundMs);
  }

  get size(): number {
    return this.#size;
  }

  /** Puts `entry` last in its entity's map, then evicts down to the capacity. */
  #place(entity: CounterEntity, id: string, entry: Entry, boundMs: number) {
    let entries = this.#byEntity.get(entity);
    if (entries === undefined) this.#byEntity.set(entity, (entries = new Map()));
    if (!entries.delete(id)) this.#size++;
    entry.placed = ++this.#placed;
    entries.set(id, entry);
    this.#evict(boundMs);
  }

  #evict(boundMs: number) {
    const now = this.now();
    while (this.#size > this.capacity) {
      // The least recently placed entry is the first of one of the entities' maps (a handful).
      let oldest: { entries: Map<string, Entry>; id: string; entry: Entry } | undefined;
      for (const entries of this.#byEntity.values()) {
        const first = entries.entries().next();
        if (!first.done && (oldest === undefined || first.value[1].placed < oldest.entry.placed)) oldest = { entries, id: first.value[0], entry: first.value[1] };
      }
      if (oldest === undefined) return;
      oldest.entries.delete(oldest.id);
      this.#size--;
      // Evicting a copy that could still be served, or a recent forget, loses what guards its
      // key: from now on, reads that started before this point may not store anything. (A read
      // that started before an older entry's time is refused by its age anyway.)
      if (now - oldest.entry.fetchedAt < boundMs) this.#floor = Math.max(this.#floor, oldest.entry.storedSeq);
    }
  }
}

type Entry = {
  /** null: forgotten by a write (kept only as a guard against reads that started before it). */
  values: readonly number[] | null;
  /** When the Redis read that produced `values` started (a forget: when it was forgotten). */
  fetchedAt: number;
  storedSeq: number;
  /** When a reader last took it on itself to refresh this copy. */
  refreshClaimedAt: number;
  /** Its place among the placements (`#placed`): how far it is from eviction, and the eviction order across entities. */
  placed: number;
};

export type ReadTicket = { seq: number; at: number };

/** The largest freshness bound accepted: a hot counter is never more than a second behind. */
export const MAX_EDGE_CACHE_MS = 1000;
/** Entities one isolate keeps (~100 bytes each: well under 2 MB of a 128 MB isolate). */
export const EDGE_CACHE_ENTRIES = 10_000;
/** A copy older than this fraction of the bound is refreshed by one reader while others still use it. */
const REFRESH_AFTER = 0.5;

/** The one copy of this isolate. */
export const edgeCounters = new EdgeCounterCache();

/** The freshness bound in force: `COUNTER_EDGE_CACHE_MS` (default 1,000, at most 1,000; 0 turns the copy off). */
export function edgeCacheBoundMs(env: Pick<Env, "COUNTER_EDGE_CACHE_MS">): number {
  const raw = env.COUNTER_EDGE_CACHE_MS;
  const n = raw === undefined || raw.trim() === "" ? MAX_EDGE_CACHE_MS : Number(raw);
  if (!Number.isFinite(n)) return MAX_EDGE_CACHE_MS;
  return Math.min(MAX_EDGE_CACHE_MS, Math.max(0, Math.floor(n)));
}

/**
 * `readCounters` behind the edge copy: ids with a copy younger than the bound are answered from
 * it, the others (all of them with `fresh`) by one `readCounters` call, whose complete, non-stale
 * answers are kept for the next readers. Batches naming different ids share the copies.
 */
export async function readCountersAtEdge(
  deps: Parameters<typeof readCounters>[0],
  entity: CounterEntity,
  ids: readonly string[],
  options: { boundMs: number; fresh?: boolean; cache?: EdgeCounterCache },
): Promise<CounterRead> {
  const { boundMs, fresh = false, cache = edgeCounters } = options;
  const values = new Map<string, number[]>();
  const misses: string[] = [];
  for (const id of ids) {
    const hit = boundMs > 0 && !fresh ? cache.lookup(entity, id, boundMs) : null;
    if (hit) values.set(id, hit.values as number[]);
    else misses.push(id);
  }
  if (misses.length === 0) return { entity, fields: fieldsOf(entity), values, stale: false };
  const ticket = cache.begin();
  const read = await readCounters(deps, entity, misses);
  for (const id of misses) {
    const row = read.values.get(id);
    if (row) {
      values.set(id, row);
      // Never a copy of a Postgres fallback: only values read from a reachable database are exact.
      const stale = read.staleIds ? read.staleIds.has(id) : read.stale;
      if (!stale && boundMs > 0) cache.store(entity, id, row, ticket, boundMs);
    }
  }
  return { entity, fields: read.fields, values, stale: read.stale };
}

/** After a write of these entities in this isolate: their copies go, and reads that began before may not bring them back. */
export function forgetAtEdge(entity: CounterEntity, ids: readonly string[], boundMs: number, cache = edgeCounters): void {
  for (const id of ids) cache.forget(entity, id, boundMs);
}

/**
 * One entity's values right after the caller's write, for the write's answer: the entity's copy
 * in this isolate is dropped (reads that began before the write may not bring it back), then Redis
 * is read, which refreshes the copy. Undefined when that read failed: the write did happen, and
 * failing its answer would make the caller retry it.
 */
export async function readAfterWrite(
  deps: Parameters<typeof readCounters>[0],
  entity: CounterEntity,
  id: string,
  boundMs: number,
): Promise<CounterRead | undefined> {
  forgetAtEdge(entity, [id], boundMs);
  try {
    return await readCountersAtEdge(deps, entity, [id], { boundMs, fresh: true });
  } catch (err) {
    log.warn({ message: "counts after write unavailable", entity, id, error: errorText(err) });
    return undefined;
  }
}

/**
 * `incrementCounters` with the counts of the entity it moves, for the write's answer: the
 * increment script returns each cached entity's values after the call, so the answer costs no
 * read (no extra command, no extra round trip). An entity not cached in Redis (nobody read it for
 * 12 h, so nobody holds a copy of it either) comes back without counts — warming it would cost
 * every increment of a cold entity a Postgres statement and a second round trip — and its next
 * read warms it with this write included; likewise when Redis is down (the increment went to
 * Postgres). This isolate's copy of the entity is dropped: reads that began before the write may
 * not bring the old value back.
 */
export async function incrementWithCounts(
  services: Pick<Services, "redisAt" | "databases" | "db">,
  entity: CounterEntity,
  id: string,
  deltas: readonly CounterDelta[],
  claim: IdempotencyClaim | undefined,
  boundMs: number,
): Promise<{ outcome: IncrementOutcome; values?: number[] }> {
  try {
    const outcome = await incrementCounters(services, deltas, claim);
    return { outcome, values: outcome.counts?.get(countsKey(entity, id)) };
  } finally {
    forgetAtEdge(entity, [id], boundMs);
  }
}
