/**
 * The reshard itself: moves whole slots from N to M Redis databases while the Worker serves
 * (`npm run reshard -- --to M`, `scripts/reshard.ts`; the tests run it in-process). Imports nothing
 * Node-only, so it runs in workerd too. docs/resharding.md is the operator's side.
 *
 * The state lives in database 0 (`topology:reshard`, `ReshardState`), read by every isolate with
 * its marker check and, while a reshard runs, re-read about every second. Per step (a group of
 * slots whose home changes, `slot mod N` ≠ `slot mod M`):
 *  1. mark the group `moving` (their owners' calls fail as an outage: degraded answers), then wait
 *     RESHARD_FENCE_MS so that no isolate still routes them to their old home;
 *  2. flush the counters of each old home (cut + apply every batch, exactly once per
 *     (database, batch) as the cron does), until its pending hash holds nothing of the group:
 *     after this no delta of a moving owner is anywhere in Redis, only in Postgres;
 *  3. per key of the group (`key-owners.ts`): copy Redis-only state to the new home, delete
 *     caches Postgres rebuilds (on the old home, and any stale copy on the new one), move the
 *     group's members of per-database sorted sets (trending buckets);
 *  4. mark the group moved (its owners now live at `slot mod M`).
 * Every step is idempotent, and the state says which slots are done and which were moving, so a
 * rerun after an interruption redoes the interrupted step and goes on. Last, every marker is
 * rewritten to M databases and the state becomes `done`; a shrink then empties the databases it
 * left of the deployment's keys (after a fence: from `done` on no isolate sends them anything), so
 * a setting may keep listing them, and a later grow takes them back as new databases.
 */
import { Redis } from "@upstash/redis/cloudflare";
import { flushDatabase } from "../../src/counters/flush";
import { badgeKeys } from "../../src/badges/keys";
import { counterKeys } from "../../src/counters/keys";
import { clearStaleMarks, readStaleMarks } from "../../src/counters/store";
import type { Database } from "../../src/lib/db";
import { classifyKey } from "../../src/lib/key-owners";
import {
  homeOfSlot,
  parseReshardState,
  RESHARD_FENCE_MS,
  RESHARD_STATE_KEY,
  type DatabaseCredentials,
  type ReshardState,
  SLOT_COUNT,
  slotOf,
  TOPOLOGY_MARKER_KEY,
  topologyMarker,
} from "../../src/lib/redis-topology";

/** Slots moved per step by default: each step costs one SCAN of the databases involved. */
export const DEFAULT_SLOTS_PER_STEP = 128;
const SCAN_COUNT = 1000;

export type ReshardDeps = {
  /** Every database of the larger setting (of N and M), database 0 first, as `UPSTASH_REDIS_DATABASES` lists them. */
  databases: readonly DatabaseCredentials[];
  db: Database;
  log?: (line: string) => void;
  /** Wait after marking slots moving (default RESHARD_FENCE_MS). */
  fenceMs?: number;
  slotsPerStep?: number;
};

export type ReshardOptions = {
  to: number;
  /** Only record the plan (`prepared`): the operator deploys the M-database setting next. */
  prepareOnly?: boolean;
  /** Tests: stop (throw) in step `step` (1-based, of this run) right after `after`, as a crash would. */
  interruptAt?: { step: number; after: "mark" | "flush" | "copy" };
};

export type ReshardReport = {
  from: number;
  to: number;
  phase: ReshardState["phase"];
  steps: number;
  slotsMoved: number;
  batchesFlushed: number;
  keysCopied: number;
  keysDropped: number;
  membersMoved: number;
  unknownKeys: number;
};

export class ReshardInterrupted extends Error {}

type Marker = { index?: number; databases?: number };

function parseMarker(raw: unknown): Marker | null {
  if (raw === null || raw === undefined) return null;
  try {
    return (typeof raw === "string" ? JSON.parse(raw) : raw) as Marker;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs (or resumes) a reshard to `to` databases. Throws with a message naming the problem when the databases given cannot be right. */
export async function reshard(deps: ReshardDeps, options: ReshardOptions): Promise<ReshardReport> {
  const { log = () => {}, fenceMs = RESHARD_FENCE_MS, slotsPerStep = DEFAULT_SLOTS_PER_STEP } = deps;
  const clients = connect(deps.databases);
  const databases = clients.raw;
  const { to } = options;
  if (!Number.isInteger(to) || to < 1 || to > 64) throw new Error(`--to must be an integer from 1 to 64, not ${to}`);
  const db0 = databases[0]!;
  /** Database 0's plan is the one isolates route by; `everywhere` also updates each database's copy (plan and end). */
  const writeState = async (next: ReshardState, everywhere = false) => {
    await db0.set(RESHARD_STATE_KEY, JSON.stringify(next));
    if (everywhere) for (const other of databases.slice(1)) await other.set(RESHARD_STATE_KEY, JSON.stringify(next));
    return next;
  };
  let state = parseReshardState(await db0.get(RESHARD_STATE_KEY));
  const report: ReshardReport = { from: 0, to, phase: "prepared", steps: 0, slotsMoved: 0, batchesFlushed: 0, keysCopied: 0, keysDropped: 0, membersMoved: 0, unknownKeys: 0 };

  if (!state || state.phase === "done") {
    const marker0 = parseMarker(await db0.get(TOPOLOGY_MARKER_KEY));
    const from = state?.to ?? marker0?.databases ?? 1;
    report.from = from;
    if (from === to) {
      report.phase = "done";
      // A run stopped between `done` and emptying the databases a shrink left: finished now.
      if (state) await emptyLeftDatabases({ ...clients, db: deps.db }, state, fenceMs, log);
      log(`nothing to do: the databases are already resharded to ${to}`);
      return report;
    }
    if (databases.length !== Math.max(from, to)) {
      throw new Error(`a reshard from ${from} to ${to} needs the ${Math.max(from, to)} databases of the larger setting, database 0 first; ${databases.length} given`);
    }
    for (let i = 0; i < databases.length; i++) {
      const marker = parseMarker(await databases[i]!.get(TOPOLOGY_MARKER_KEY));
      if (i < from) {
        if (marker ? marker.index !== i || ![from, to].includes(marker.databases!) : !(i === 0 && from === 1)) {
          throw new Error(`database ${i} holds the marker ${JSON.stringify(marker)}, not that of database ${i} of ${from}: the list is not the deployment's, database 0 first`);
        }
      } else {
        // A database a done shrink left (growing back) may hold what this deployment wrote there
        // as its member: cleared, it is as empty as a new one.
        const cleared = await clearDepartedMember(databases[i]!, i, state);
        if (cleared > 0) log(`database ${i} left the deployment in the last reshard (${state!.from} → ${state!.to}): cleared the ${cleared} keys it kept of it`);
        const held = cleared > 0 ? null : marker;
        const size = await databases[i]!.dbsize();
        const plan = (await databases[i]!.exists(RESHARD_STATE_KEY)) as number;
        if (size > (held ? 1 : 0) + plan || (held && held.index !== i)) throw new Error(`database ${i} is new to the deployment but is not empty (${size} keys): give an empty database`);
        // Its marker before its copy of the plan: a database with a key and no marker is refused.
        if (!held) await databases[i]!.set(TOPOLOGY_MARKER_KEY, topologyMarker(i, to));
      }
    }
    if (!marker0) await db0.set(TOPOLOGY_MARKER_KEY, topologyMarker(0, from));
    state = await writeState({ from, to, phase: "prepared", rev: (state?.rev ?? 0) + 1, moving: [], moved: "0".repeat(SLOT_COUNT), updatedAt: Date.now() }, true);
    log(`prepared: ${from} → ${to} databases; deploy the ${to === 1 ? "one-database" : `${to}-database`} setting, then run the command again to move the slots`);
  } else if (state.to !== to) {
    throw new Error(`a reshard from ${state.from} to ${state.to} databases is ${state.phase}: finish it first (npm run reshard -- --to ${state.to})`);
  }
  report.from = state.from;
  // Every database's copy of the plan again (a first run stopped between writing them is completed).
  await writeState(state, true);
  if (options.prepareOnly) return report;
  if (databases.length !== Math.max(state.from, state.to)) {
    throw new Error(`a reshard from ${state.from} to ${state.to} needs the ${Math.max(state.from, state.to)} databases of the larger setting, database 0 first; ${databases.length} given`);
  }

  const { from } = state;
  const pendingSlots = Array.from({ length: SLOT_COUNT }, (_, s) => s).filter((s) => s % from !== s % to && state!.moved[s] !== "1" && !state!.moving.includes(s));
  const groups: number[][] = [];
  if (state.moving.length > 0) groups.push([...state.moving]);
  for (let i = 0; i < pendingSlots.length; i += slotsPerStep) groups.push(pendingSlots.slice(i, i + slotsPerStep));
  const total = groups.length;
  // Databases joining get the global keys every database holds before any owner lands on them.
  if (to > from) {
    const merged = await copyEverywhereKeys(databases, from, to);
    log(`global keys merged into the joining databases ${from}..${to - 1}: ${merged}`);
  }
  if (state.moving.length > 0) log(`resuming: step of slots ${describeSlots(state.moving)} was interrupted; redoing it`);

  for (const [k, group] of groups.entries()) {
    const started = Date.now();
    const step = k + 1;
    const interrupt = (after: "mark" | "flush" | "copy") => {
      if (options.interruptAt?.step === step && options.interruptAt.after === after) throw new ReshardInterrupted(`interrupted in step ${step} after ${after}`);
    };
    state = await writeState({ ...state, phase: "moving", moving: group, rev: state.rev + 1, updatedAt: Date.now() });
    log(`step ${step}/${total}: ${group.length} slots (${describeSlots(group)}) moving; waiting ${fenceMs} ms for every isolate to see it`);
    interrupt("mark");
    await sleep(fenceMs);
    await invalidateStaleCaches({ ...clients, db: deps.db }, state);
    const slots = new Set(group);
    const sources = [...new Set(group.map((s) => s % from))];
    let batches = 0;
    for (const source of sources) batches += await drainCounters({ ...clients, db: deps.db }, source, slots);
    interrupt("flush");
    const moved = { copied: 0, dropped: 0, members: 0, unknown: 0 };
    const involved = [...new Set([...sources, ...group.map((s) => s % to)])].sort((a, b) => a - b);
    for (const index of involved) {
      const counts = await moveKeysOf(databases, index, slots, from, to);
      moved.copied += counts.copied;
      moved.dropped += counts.dropped;
      moved.members += counts.members;
      moved.unknown += counts.unknown;
    }
    interrupt("copy");
    const done = state.moved.split("");
    for (const s of group) done[s] = "1";
    state = await writeState({ ...state, moving: [], moved: done.join(""), rev: state.rev + 1, updatedAt: Date.now() });
    report.steps += 1;
    report.slotsMoved += group.length;
    report.batchesFlushed += batches;
    report.keysCopied += moved.copied;
    report.keysDropped += moved.dropped;
    report.membersMoved += moved.members;
    report.unknownKeys += moved.unknown;
    log(
      `step ${step}/${total}: ${group.length} slots live on their new databases; flushed ${batches} counter batches, copied ${moved.copied} keys, dropped ${moved.dropped} caches, moved ${moved.members} trending members` +
        `${moved.unknown ? `, left ${moved.unknown} keys of unknown shape` : ""} (${Date.now() - started} ms degraded)`,
    );
  }

  // Increments sent through Postgres by isolates that still saw the last group moving have landed
  // within the fence: the cache entries warmed on the new homes before them are dropped.
  if (total > 0) {
    await sleep(fenceMs);
    await invalidateStaleCaches({ ...clients, db: deps.db }, state);
  }
  // Databases leaving the deployment (to < from) keep nothing of an owner now; their pending deltas are flushed last.
  for (let i = to; i < from; i++) await drainCounters({ ...clients, db: deps.db }, i, new Set());
  for (let i = 0; i < to; i++) await databases[i]!.set(TOPOLOGY_MARKER_KEY, topologyMarker(i, to));
  state = await writeState({ ...state, phase: "done", moving: [], moved: "1".repeat(SLOT_COUNT), rev: state.rev + 1, updatedAt: Date.now() }, true);
  await emptyLeftDatabases({ ...clients, db: deps.db }, state, fenceMs, log);
  report.phase = "done";
  log(`done: ${from} → ${to} databases${to < from ? `; databases ${to}..${from - 1} are out of the deployment and empty: drop them from UPSTASH_REDIS_DATABASES and deploy (a setting that keeps listing them sends them nothing)` : ""}`);
  return report;
}

/**
 * The flush's invalidation of stale cache entries, routed by the reshard state: while a slot
 * moves, its owners' increments go to Postgres directly and mark their cache entries stale; an
 * entry warmed on the new home between its activation and such an increment landing would miss
 * it, so after each fence (which outlasts those increments) every marked entry is deleted where it
 * lives now. Marks of a slot still moving wait for the next round (or the cron's flush).
 */
async function invalidateStaleCaches(deps: Clients, state: ReshardState): Promise<void> {
  const marks = await readStaleMarks(deps.db);
  const n = deps.raw.length;
  const byHome = new Map<number, typeof marks>();
  for (const mark of marks) {
    const home = homeOfSlot(slotOf(mark.id), state, n);
    if (home >= n) continue;
    let list = byHome.get(home);
    if (!list) byHome.set(home, (list = []));
    list.push(mark);
  }
  const done: typeof marks = [];
  for (const [home, list] of byHome) {
    await deps.raw[home]!.del(...list.map((m) => counterKeys.cache(m.entity, m.id)));
    done.push(...list);
  }
  await clearStaleMarks(deps.db, done);
}

type Clients = { raw: Redis[]; flush: Redis[]; db: Database };

/**
 * Two clients per database: `raw` answers values as Redis holds them (copies must not turn a JSON
 * string into an object and back); `flush` is the Worker's kind, for the counters' own flush code.
 */
function connect(credentials: readonly DatabaseCredentials[]): Omit<Clients, "db"> {
  const base = { enableTelemetry: false, enableAutoPipelining: false } as const;
  return {
    raw: credentials.map((c) => new Redis({ url: c.url, token: c.token, ...base, automaticDeserialization: false })),
    flush: credentials.map((c) => new Redis({ url: c.url, token: c.token, ...base })),
  };
}

/** Slot list for a log line: ranges are not contiguous (slot mod N), so the first few and a count. */
function describeSlots(slots: readonly number[]): string {
  return slots.length <= 6 ? slots.join(", ") : `${slots.slice(0, 4).join(", ")}, … ${slots[slots.length - 1]}`;
}

/**
 * Flushes database `index`'s counters (cut + apply every batch, exactly once) until its pending
 * hash holds no delta of an owner in `slots`: a write sent before the fence and landed after the
 * cut is flushed by the next round. Returns the batches applied.
 */
async function drainCounters(deps: Clients, index: number, slots: ReadonlySet<number>): Promise<number> {
  const services = { redisAt: (i: number) => deps.flush[i]!, db: deps.db };
  let applied = 0;
  for (let round = 0; round < 10; round++) {
    for (let i = 0; i < 100; i++) {
      const report = await flushDatabase(services, index, { maxBatches: 100 });
      applied += report.applied.length;
      if (report.remaining === 0) break;
    }
    const fields = ((await deps.raw[index]!.hkeys(counterKeys.pending())) ?? []) as string[];
    if (!fields.some((field) => slots.has(slotOf(field.split(":")[1] ?? "")))) return applied;
  }
  throw new Error(`database ${index}: deltas of moving slots keep arriving after the fence; is an isolate running with an old setting? (rerun to resume)`);
}

type Counts = { copied: number; dropped: number; members: number; unknown: number };

/** One SCAN of database `index`: copies, drops and moves what belongs to `slots` (see the module comment). */
async function moveKeysOf(databases: readonly Redis[], index: number, slots: ReadonlySet<number>, from: number, to: number): Promise<Counts> {
  const redis = databases[index]!;
  const counts: Counts = { copied: 0, dropped: 0, members: 0, unknown: 0 };
  let cursor = "0";
  do {
    const [next, keys] = (await redis.scan(cursor, { count: SCAN_COUNT })) as [string | number, string[]];
    cursor = String(next);
    const classified = keys.map((key) => ({ key, owner: classifyKey(key) }));
    const needValue = classified.filter((c) => c.owner.fromValue || c.owner.keepIf);
    const values = needValue.length ? ((await redis.mget(...needValue.map((c) => c.key))) as (string | null)[]) : [];
    const valueOf = new Map(needValue.map((c, i) => [c.key, values[i] ?? null]));
    const copies = new Map<number, string[]>();
    const drops: string[] = [];
    for (const { key, owner } of classified) {
      if (owner.action === "unknown") counts.unknown += 1;
      if (owner.action === "members") {
        counts.members += await moveMembers(databases, index, key, slots, from, to);
        continue;
      }
      if (owner.action !== "copy" && owner.action !== "drop") continue;
      const value = valueOf.get(key) ?? null;
      const id = owner.owner ?? (value !== null ? owner.fromValue?.(value) : undefined);
      if (!id) continue;
      const slot = slotOf(id);
      if (!slots.has(slot)) continue;
      const keep = owner.action === "copy" || (value !== null && owner.keepIf?.(value));
      if (index === slot % from) {
        if (keep) {
          const dest = slot % to;
          let list = copies.get(dest);
          if (!list) copies.set(dest, (list = []));
          list.push(key);
        } else drops.push(key);
      } else if (index === slot % to && !keep) drops.push(key); // a stale cache an earlier topology left on the new home
    }
    for (const [dest, list] of copies) {
      await copyKeys(redis, databases[dest]!, list);
      // A key kept by its value (a post's tombstone) is one every database holds: the old home keeps its copy.
      const moved = list.filter((key) => classifyKey(key).action === "copy");
      if (moved.length) await redis.del(...moved);
      counts.copied += list.length;
    }
    if (drops.length) {
      await redis.del(...drops);
      counts.dropped += drops.length;
    }
  } while (cursor !== "0");
  return counts;
}

/**
 * After a shrink is `done`: no isolate sends a database it left anything any more
 * (`databasesInUse`), and one that still routed by the running plan re-reads it within the fence.
 * So after the fence, each such database (of those given) gets a last flush, and the deployment's
 * own keys there (marker, plan copy, the keys every database holds, per-database bookkeeping) are
 * deleted: a setting still listing it finds it empty and sends it nothing, and a later reshard may
 * take it back as a new database. Idempotent (a database already empty costs one DBSIZE).
 */
async function emptyLeftDatabases(deps: Clients, state: ReshardState, fenceMs: number, log: (line: string) => void): Promise<void> {
  // Writes the databases that stay recorded for a leaving one (it was down) are owed to no one now:
  // replayed into it if it joined again, they would apply twice over the global keys it is given then.
  for (let i = state.to; i < state.from; i++) for (const stays of deps.raw.slice(0, state.to)) await stays.del(badgeKeys.owed(i));
  const left: number[] = [];
  for (let i = state.to; i < Math.min(state.from, deps.raw.length); i++) if (Number(await deps.raw[i]!.dbsize()) > 0) left.push(i);
  if (left.length === 0) return;
  await sleep(fenceMs);
  for (const i of left) {
    await drainCounters(deps, i, new Set());
    const { deleted, kept } = await clearDeploymentKeys(deps.raw[i]!);
    log(`database ${i} left the deployment: deleted the ${deleted} keys it held of it${kept ? `; left ${kept} keys that are not the deployment's or hold counter deltas` : ""}`);
  }
}

/** Counter deltas a database may hold: never cleared with the rest (they would be lost). */
const PENDING_DELTAS = /^ctr:(pending|batches|batch:\d+)$/;

/**
 * Deletes from a database the deployment no longer uses every key of a shape this deployment
 * writes (`classifyKey` knows it), its marker and plan copy included. Left (and counted): keys of
 * unknown shape, and counter deltas the flush before it (`drainCounters`) did not take (none,
 * unless a write came from outside the deployment's routing).
 */
async function clearDeploymentKeys(redis: Redis): Promise<{ deleted: number; kept: number }> {
  let deleted = 0;
  let kept = 0;
  let cursor = "0";
  do {
    const [next, keys] = (await redis.scan(cursor, { count: SCAN_COUNT })) as [string | number, string[]];
    cursor = String(next);
    const ours = keys.filter((key) => classifyKey(key).action !== "unknown" && !PENDING_DELTAS.test(key));
    kept += keys.length - ours.length;
    if (ours.length) deleted += Number(await redis.del(...ours));
  } while (cursor !== "0");
  return { deleted, kept };
}

/**
 * Clears database `index`, joining the deployment, when it holds only what this deployment wrote
 * there as database `index` before the last reshard (`state`, database 0's, done) took it out:
 * its marker (`index` of a larger setting), that reshard's plan copy, the keys written to every
 * database and per-database bookkeeping (the Worker of an earlier version kept writing those to a
 * database the setting still listed). Anything else (no such marker, an owner's key, pending
 * counter deltas, a key of unknown shape) leaves it untouched, and the caller refuses it as not
 * empty. Answers the keys deleted (0: not such a database).
 */
async function clearDepartedMember(redis: Redis, index: number, state: ReshardState | null): Promise<number> {
  if (!state || state.phase !== "done" || !(state.to <= index && index < state.from)) return 0;
  const marker = parseMarker(await redis.get(TOPOLOGY_MARKER_KEY));
  if (!marker || marker.index !== index || !(Number(marker.databases) > index)) return 0;
  const plan = await redis.get(RESHARD_STATE_KEY);
  if (plan !== null) {
    const copy = parseMarker(plan) as Partial<ReshardState> | null;
    if (copy?.from !== state.from || copy?.to !== state.to) return 0;
  }
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, page] = (await redis.scan(cursor, { count: SCAN_COUNT })) as [string | number, string[]];
    cursor = String(next);
    for (const key of page) {
      const action = classifyKey(key).action;
      if ((action !== "everywhere" && action !== "database") || PENDING_DELTAS.test(key)) return 0;
      keys.push(key);
    }
  } while (cursor !== "0");
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  return keys.length;
}

/**
 * Merges database 0's `everywhere` keys (`key-owners.ts`) into databases from..to-1, keeping what
 * the Worker already wrote there (it writes such keys to every database of its setting): HSETNX
 * per field, ZADD NX per member, SET NX, and the TTL only where the key had none. Idempotent.
 */
async function copyEverywhereKeys(databases: readonly Redis[], from: number, to: number): Promise<number> {
  const source = databases[0]!;
  let merged = 0;
  let cursor = "0";
  do {
    const [next, keys] = (await source.scan(cursor, { count: SCAN_COUNT })) as [string | number, string[]];
    cursor = String(next);
    for (const key of keys.filter((k) => classifyKey(k).action === "everywhere")) {
      const type = String(await source.type(key));
      const ttl = Number(await source.pttl(key));
      const value = type === "hash" ? await source.hgetall(key) : type === "zset" ? await source.zrange(key, 0, -1, { withScores: true }) : type === "string" ? await source.get(key) : null;
      if (value === null || value === undefined) continue;
      const entries = type === "string" ? [] : pairs(value as unknown[]);
      if (type !== "string" && entries.length === 0) continue;
      for (let i = from; i < to; i++) {
        const dest = databases[i]!;
        const hadTtl = Number(await dest.pttl(key)) > 0;
        const write = dest.pipeline();
        if (type === "hash") for (const [f, v] of entries) write.hsetnx(key, String(f), String(v));
        else if (type === "zset") for (const [m, sc] of entries) write.zadd(key, { nx: true }, { member: String(m), score: zsetScore(sc) });
        else write.set(key, String(value), { nx: true });
        if (ttl > 0 && !hadTtl) write.pexpire(key, ttl);
        await write.exec();
      }
      merged += 1;
    }
  } while (cursor !== "0");
  return merged;
}

/**
 * A sorted-set score as Redis answered it, for a ZADD: a number, or `+inf`/`-inf` as Redis spells
 * them (sentinel members use them; `Number("inf")` would be NaN and sent as null).
 */
function zsetScore(raw: unknown): number {
  const text = String(raw);
  if (/^[+-]?inf$/i.test(text)) return (text.startsWith("-") ? "-inf" : "+inf") as unknown as number;
  return Number(text);
}

/** Copies keys with their type, contents and expiry (no DUMP: its binary payload does not survive a JSON REST API). */
async function copyKeys(source: Redis, dest: Redis, keys: readonly string[]): Promise<void> {
  const meta = source.pipeline();
  for (const key of keys) meta.type(key).pttl(key);
  const types = (await meta.exec()) as unknown[];
  const read = source.pipeline();
  const kinds: string[] = [];
  keys.forEach((key, i) => {
    const type = String(types[i * 2]);
    kinds.push(type);
    if (type === "string") read.get(key);
    else if (type === "hash") read.hgetall(key);
    else if (type === "zset") read.zrange(key, 0, -1, { withScores: true });
    else if (type === "set") read.smembers(key);
    else if (type === "list") read.lrange(key, 0, -1);
    else read.exists(key); // gone meanwhile (expired) or a type no capability writes: nothing to copy
  });
  const contents = (await read.exec()) as unknown[];
  const write = dest.pipeline();
  let commands = 0;
  keys.forEach((key, i) => {
    const value = contents[i];
    const ttl = Number(types[i * 2 + 1]);
    const kind = kinds[i];
    if (value === null || value === undefined || ttl === -2) return;
    write.del(key);
    if (kind === "string") write.set(key, String(value));
    else if (kind === "hash") {
      // A flat [field, value, …] array as Redis answers it (no automatic deserialization), or an object.
      const entries = Array.isArray(value) ? pairs(value) : Object.entries(value as Record<string, unknown>);
      if (entries.length === 0) return;
      write.hset(key, Object.fromEntries(entries.map(([f, v]) => [String(f), String(v)])));
    } else if (kind === "zset") {
      const flat = value as unknown[];
      if (flat.length === 0) return;
      const members: { score: number; member: string }[] = [];
      for (let j = 0; j < flat.length; j += 2) members.push({ member: String(flat[j]), score: zsetScore(flat[j + 1]) });
      write.zadd(key, members[0]!, ...members.slice(1));
    } else if (kind === "set") {
      const members = (value as unknown[]).map(String);
      if (members.length === 0) return;
      write.sadd(key, members[0]!, ...members.slice(1));
    } else if (kind === "list") {
      const items = (value as unknown[]).map(String);
      if (items.length === 0) return;
      write.rpush(key, ...items);
    } else return;
    if (ttl > 0) write.pexpire(key, ttl);
    commands += 1;
  });
  if (commands > 0) await write.exec();
}

function pairs(flat: readonly unknown[]): [unknown, unknown][] {
  const out: [unknown, unknown][] = [];
  for (let j = 0; j + 1 < flat.length; j += 2) out.push([flat[j], flat[j + 1]]);
  return out;
}

/**
 * Moves the members of sorted set `key` on database `index` whose owner (the member, a post id)
 * is in `slots` and lives here, to the same key on their new database: ZADD there (not ZINCRBY,
 * so a redone step sets the same score again), then ZREM here.
 */
async function moveMembers(databases: readonly Redis[], index: number, key: string, slots: ReadonlySet<number>, from: number, to: number): Promise<number> {
  const source = databases[index]!;
  const flat = (await source.zrange(key, 0, -1, { withScores: true })) as unknown[];
  const byDest = new Map<number, { member: string; score: number }[]>();
  for (let j = 0; j < flat.length; j += 2) {
    const member = String(flat[j]);
    const slot = slotOf(member);
    if (!slots.has(slot) || slot % from !== index) continue;
    let list = byDest.get(slot % to);
    if (!list) byDest.set(slot % to, (list = []));
    list.push({ member, score: zsetScore(flat[j + 1]) });
  }
  if (byDest.size === 0) return 0;
  const ttl = Number(await source.pttl(key));
  let moved = 0;
  for (const [dest, list] of byDest) {
    const write = databases[dest]!.pipeline();
    write.zadd(key, list[0]!, ...list.slice(1));
    if (ttl > 0) write.pexpire(key, ttl);
    await write.exec();
    await source.zrem(key, ...list.map((m) => m.member));
    moved += list.length;
  }
  return moved;
}
