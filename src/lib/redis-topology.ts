/**
 * Where a key lives when the deployment has several Redis databases.
 *
 * Every key has an owner (a user or an entity, named by each capability's `keys.ts`). An owner
 * id maps to one of SLOT_COUNT fixed slots, and a slot to one database:
 *
 *   slot(id)     = CRC16(decimal id string) mod 1024   (CRC16-CCITT/XMODEM, as Redis Cluster)
 *   database(id) = slot(id) mod N
 *
 * The same two lines run in the Worker, its Durable Objects and the Node scripts (this module
 * has no Workers-only import). A reshard moves whole slots, never single keys.
 *
 * N = 1 is today's deployment: `UPSTASH_REDIS_REST_URL`/`_TOKEN`, no marker, no extra command.
 * N > 1: the secret `UPSTASH_REDIS_DATABASES`, a JSON array of `{"url","token"}`, database 0
 * first. Each database then holds a small marker (`topology`: its index, N and the rule's
 * version); a database is used only after its marker was checked once per isolate (see
 * `redis.ts`), so a wrong setting can answer errors but never writes keys to the wrong database.
 */
import { ApiError, DependencyUnavailableError } from "./errors";

/** Slots a deployment is divided into; fixed forever (a change would move every key). */
export const SLOT_COUNT = 1024;

/**
 * Version of the slot rule and marker layout written now. 2 added the reshard state (below) read
 * with database 0's marker; markers of version 1 (same layout, written before) are accepted.
 */
export const TOPOLOGY_VERSION = 2;
const ACCEPTED_VERSIONS: readonly unknown[] = [1, 2];

/** The key of each database's marker. */
export const TOPOLOGY_MARKER_KEY = "topology";

/** Workers keep at most 6 outbound connections per invocation: never start more requests at once. */
export const MAX_PARALLEL_DATABASES = 6;

export type DatabaseCredentials = { url: string; token: string };

/** The parsed setting: databases in index order; `n === 1` is the single-database deployment. */
export type Topology = { n: number; databases: readonly DatabaseCredentials[]; fingerprint: string };

/** A Redis setting that cannot be right; answered 503 with this message, and shown by `GET /health`. */
export class TopologyError extends ApiError {
  constructor(message: string) {
    super("unavailable", `Redis setting: ${message}`);
    this.name = "TopologyError";
  }
}

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

/** One encoder for every slot computed (an owner id's slot is computed on every call at N > 1). */
const UTF8 = new TextEncoder();

/** CRC16-CCITT (XMODEM: poly 0x1021, init 0) of the UTF-8 bytes of `text`, the checksum Redis Cluster uses for key slots. */
export function crc16(text: string): number {
  let crc = 0;
  // Owner ids are decimal ASCII, whose UTF-8 bytes are their char codes: no encoding, no array
  // (a ranked page at N > 1 places 300 ids).
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return crc16Bytes(UTF8.encode(text));
    crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ code) & 0xff]!;
  }
  return crc;
}

function crc16Bytes(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The slot of an owner id (a user or entity id as its decimal string). */
export function slotOf(ownerId: string): number {
  return crc16(ownerId) % SLOT_COUNT;
}

/** The database holding a slot, out of n. */
export function databaseOfSlot(slot: number, n: number): number {
  return slot % n;
}

/**
 * The database index `databaseOf` answers for an owner whose slot is being moved by a reshard: no
 * client answers it (`redisAt` gives one whose every call fails as an outage), so the existing
 * outage paths answer degraded for exactly the owners of moving slots, for the seconds a step takes.
 */
export const UNAVAILABLE_DATABASE = 1024; // past any database index, and not -1 (callers use -1 for "none")

/**
 * While a reshard runs, an isolate re-reads its state (one GET on database 0) before a request
 * when its copy is older than this (`redis.ts`).
 */
export const ROUTING_REFRESH_MS = 1_000;

/**
 * How long a reshard waits after marking slots moving before it flushes and copies them: longer
 * than an isolate's refresh period plus a request's flight, so no isolate still writes to a moving
 * slot's old home once the step starts. Also how long a slot is degraded at least.
 */
export const RESHARD_FENCE_MS = 2 * ROUTING_REFRESH_MS + 500;

/**
 * The key of the reshard state (JSON `ReshardState`), read with the marker. Database 0's is the
 * one routing follows; every other database holds a copy written when a reshard is planned and
 * when it is done, so its check knows whether it must ask database 0.
 */
export const RESHARD_STATE_KEY = "topology:reshard";

/**
 * A reshard from `from` to `to` databases (`scripts/reshard/`), kept in database 0 while it runs
 * and after it ended (`done`), so that a setting listing either number of databases routes right:
 *  - `prepared`: nothing moved yet; every slot at its `from` home. Isolates with the `to`-database
 *    setting may start (the operator deploys it now).
 *  - `moving`: `moved[s] === "1"` slots live at `s mod to`; the `moving` slots are unavailable (their
 *    pending deltas are being flushed and their Redis-only keys copied); the rest at `s mod from`.
 *  - `done`: every slot at `s mod to`.
 * `rev` grows with every write: an isolate that re-reads the state and finds another `rev` knows
 * its table was out of date.
 */
export type ReshardState = {
  from: number;
  to: number;
  phase: "prepared" | "moving" | "done";
  rev: number;
  /** Slots being moved by the running step. */
  moving: number[];
  /** SLOT_COUNT characters, "1" for a slot already at its new home. */
  moved: string;
  updatedAt: number;
};

/** Parses the reshard state as stored; null when absent; a TopologyError when unreadable. */
export function parseReshardState(raw: unknown): ReshardState | null {
  if (raw === null || raw === undefined || raw === "" || raw === false) return null;
  try {
    const state = (typeof raw === "string" ? JSON.parse(raw) : raw) as ReshardState;
    if (Number.isInteger(state.from) && Number.isInteger(state.to) && typeof state.moved === "string" && Array.isArray(state.moving)) return state;
  } catch {
    // falls through
  }
  throw new TopologyError(`database 0 holds an unreadable reshard state (${RESHARD_STATE_KEY}): rerun \`npm run reshard\``);
}

/** Where slot `slot` lives under a reshard state, for a setting of `n` databases (UNAVAILABLE_DATABASE while it moves, or when the setting lacks its home). */
export function homeOfSlot(slot: number, state: ReshardState, n: number): number {
  if (state.phase !== "done" && state.moving.includes(slot)) return UNAVAILABLE_DATABASE;
  const home = state.phase === "done" || state.moved[slot] === "1" ? slot % state.to : slot % state.from;
  return home < n ? home : UNAVAILABLE_DATABASE;
}

/**
 * The routing table of this isolate, installed by database 0's marker check (`redis.ts`) when a
 * reshard state is there and differs from the plain rule: one per setting size n (a Worker has
 * one setting). Absent — the plain rule `slot mod n` — in every steady state with the setting of
 * the last reshard's `to`, so routing then costs nothing.
 */
let routing: { n: number; homes: Int16Array; live: boolean; rev: number; inUse: number } | undefined;

/** Installs (or, with no state, removes) the routing table for settings of `n` databases. */
export function installRouting(n: number, state: ReshardState | null): void {
  if (!state || (state.phase === "done" && state.to === n)) {
    if (routing?.n === n) routing = undefined;
    return;
  }
  const homes = new Int16Array(SLOT_COUNT);
  for (let slot = 0; slot < SLOT_COUNT; slot++) homes[slot] = homeOfSlot(slot, state, n);
  routing = { n, homes, live: state.phase !== "done", rev: state.rev, inUse: databasesInUseBy(state, n) };
}

/**
 * How many of a setting's `n` databases belong to the deployment under a reshard state: all of
 * them while a reshard is planned or running (a shrink's leaving databases still hold owners
 * until it is done), the first `to` once it is done. A setting that still lists the databases a
 * shrink left (docs/resharding.md allows it) never sends them anything again: not an owner's key, not
 * a key written to every database, not a flush.
 */
export function databasesInUseBy(state: ReshardState | null, n: number): number {
  return state?.phase === "done" ? Math.min(n, state.to) : n;
}

/** `databasesInUseBy` of the state installed in this isolate for settings of `n` databases: what "every database" means now. */
export function databasesInUse(n: number): number {
  return routing?.n === n ? routing.inUse : n;
}

/**
 * A call to a database that a done shrink took out of the deployment (`databasesInUse`): never
 * sent. An outage to the callers that see it (a request routed before its isolate read the
 * reshard state); `settleEveryDatabase` leaves such a database out of its answer.
 */
export class DepartedDatabaseError extends DependencyUnavailableError {
  constructor(index: number, inUse: number) {
    super("redis", new Error(`database ${index} left the deployment (a reshard to ${inUse} databases is done): nothing is sent to it`));
  }
}

/**
 * Whether a slot that `before` (an earlier `routingHomes(n)`) placed on database `index` lives
 * elsewhere under the table installed now: a request routed by `before` to `index` may then be
 * for an owner that left it.
 */
export function movedAwayFrom(index: number, before: Int16Array | undefined, n: number): boolean {
  const now = routing?.n === n ? routing.homes : undefined;
  for (let slot = 0; slot < SLOT_COUNT; slot++) {
    const was = before ? before[slot]! : slot % n;
    if (was === index && (now ? now[slot]! : slot % n) !== index) return true;
  }
  return false;
}

/** The installed table's home of every slot for settings of `n` databases (undefined: the plain rule). Never mutated: a change installs a new one. */
export function routingHomes(n: number): Int16Array | undefined {
  return routing?.n === n ? routing.homes : undefined;
}

/** The reshard revision the installed table of settings of `n` databases follows, and whether a reshard is running (then the table is re-read about every second). */
export function installedRouting(n: number): { rev: number; live: boolean } | undefined {
  return routing?.n === n ? { rev: routing.rev, live: routing.live } : undefined;
}

/**
 * The database holding an owner's keys, out of n (0 when n is 1, without computing anything):
 * `slot mod n`, or during (and after) a reshard the installed table's home of the slot, which is
 * UNAVAILABLE_DATABASE for a slot being moved.
 */
export function databaseOf(ownerId: string, n: number): number {
  if (n === 1) return 0;
  const slot = slotOf(ownerId);
  return routing !== undefined && routing.n === n ? routing.homes[slot]! : databaseOfSlot(slot, n);
}

/**
 * Groups items by the database of their owner, in first-seen order. At n = 1 everything is one
 * group (database 0).
 */
export function groupByDatabase<T>(items: readonly T[], ownerOf: (item: T) => string, n: number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const index = databaseOf(ownerOf(item), n);
    let group = groups.get(index);
    if (!group) groups.set(index, (group = []));
    group.push(item);
  }
  return groups;
}

/**
 * Runs `task` for every entry, at most `limit` at a time (Workers' 6 outbound connections), and
 * settles every one of them: a failing database never hides the others' results.
 */
export async function settleEach<K, T, R>(
  entries: Iterable<[K, T]>,
  task: (key: K, value: T) => Promise<R>,
  limit = MAX_PARALLEL_DATABASES,
): Promise<Map<K, PromiseSettledResult<R>>> {
  const list = [...entries];
  const results = new Map<K, PromiseSettledResult<R>>();
  let next = 0;
  async function worker() {
    while (next < list.length) {
      const [key, value] = list[next++]!;
      try {
        results.set(key, { status: "fulfilled", value: await task(key, value) });
      } catch (reason) {
        results.set(key, { status: "rejected", reason });
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, list.length) }, worker));
  return results;
}

/**
 * Runs `task` once for every database of the deployment (but `except`), at most 6 at once, and
 * settles each: the writes and reads that every database takes (global keys, per-database flush,
 * trending trim, red-dot catch-up, status). "Every database" is `databasesInUse(n)`: after a done
 * shrink, the first M of a setting that still lists N. A database found to have left only when
 * its call was made (an isolate's first call, before it read the reshard state) is left out of
 * the answer, as if it were not listed. Answers in index order; one database failing never hides
 * the others' results.
 */
export async function settleEveryDatabase<R>(n: number, task: (index: number) => Promise<R>, except = -1): Promise<Map<number, PromiseSettledResult<R>>> {
  const indexes: [number, number][] = [];
  for (let i = 0; i < databasesInUse(n); i++) if (i !== except) indexes.push([i, i]);
  const settled = await settleEach(indexes, (index) => task(index));
  const ordered = new Map<number, PromiseSettledResult<R>>();
  for (const [index] of indexes) {
    const result = settled.get(index)!;
    if (result.status === "rejected" && result.reason instanceof DepartedDatabaseError) continue;
    ordered.set(index, result);
  }
  return ordered;
}

type TopologyEnv = { UPSTASH_REDIS_REST_URL?: string; UPSTASH_REDIS_REST_TOKEN?: string; UPSTASH_REDIS_DATABASES?: string };

const parsed = new Map<string, Topology | TopologyError>();

/**
 * The deployment's databases from its bindings, parsed once per isolate per setting. Throws a
 * TopologyError naming what is wrong: bad JSON, not an array, an entry without a URL or a token,
 * or `UPSTASH_REDIS_REST_URL` naming another database than database 0 (a half-done change).
 */
export function topologyOf(env: TopologyEnv): Topology {
  const raw = env.UPSTASH_REDIS_DATABASES?.trim();
  if (!raw) {
    return { n: 1, databases: [{ url: env.UPSTASH_REDIS_REST_URL ?? "", token: env.UPSTASH_REDIS_REST_TOKEN ?? "" }], fingerprint: "" };
  }
  const cacheKey = `${raw}\n${env.UPSTASH_REDIS_REST_URL ?? ""}`;
  let topology = parsed.get(cacheKey);
  if (!topology) {
    topology = parseDatabases(raw, env.UPSTASH_REDIS_REST_URL);
    if (parsed.size >= 16) parsed.delete(parsed.keys().next().value!);
    parsed.set(cacheKey, topology);
  }
  if (topology instanceof TopologyError) throw topology;
  return topology;
}

function parseDatabases(raw: string, restUrl: string | undefined): Topology | TopologyError {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return new TopologyError('UPSTASH_REDIS_DATABASES is not valid JSON (expected [{"url":"https://…","token":"…"}, …])');
  }
  if (!Array.isArray(value) || value.length === 0) return new TopologyError("UPSTASH_REDIS_DATABASES must be a non-empty JSON array of {url, token}");
  const databases: DatabaseCredentials[] = [];
  for (const [i, entry] of value.entries()) {
    const { url, token } = (entry ?? {}) as { url?: unknown; token?: unknown };
    if (typeof url !== "string" || !/^https?:\/\/\S+$/.test(url)) return new TopologyError(`UPSTASH_REDIS_DATABASES[${i}].url must be an http(s) URL`);
    if (typeof token !== "string" || token.trim() === "") return new TopologyError(`UPSTASH_REDIS_DATABASES[${i}].token is missing`);
    databases.push({ url, token });
  }
  if (new Set(databases.map((d) => d.url)).size !== databases.length) return new TopologyError("UPSTASH_REDIS_DATABASES names one URL twice");
  if (restUrl && restUrl !== databases[0]!.url) {
    return new TopologyError("UPSTASH_REDIS_REST_URL names another database than UPSTASH_REDIS_DATABASES[0] (database 0 must stay where it was; unset it or make them equal)");
  }
  return { n: databases.length, databases, fingerprint: databases.map((d) => d.url).join(" ") };
}

/** The marker database `index` of `n` holds. */
export function topologyMarker(index: number, n: number): string {
  return JSON.stringify({ index, databases: n, slots: SLOT_COUNT, version: TOPOLOGY_VERSION });
}

/**
 * One call per database, run once per isolate before the database's first command: reads the
 * marker (and, given KEYS[2], the database's copy of the reshard state); adopts an EMPTY database that has
 * none (a new deployment, or a database that lost everything) by writing it; refuses a database
 * holding keys but no marker (it belongs to something else, e.g. the one database of an N = 1
 * deployment: going to N > 1 is a reshard). Answers `{0|1, marker, state}` (0: just written;
 * state "" when none), or `{2, "", state}` when refused. With ARGV[2] = "ask" an empty database
 * is not adopted but answered `{3, "", ""}`: the caller first learns from database 0 whether it is
 * one a done shrink left (emptied by the reshard, and to stay so).
 */
export const CHECK_TOPOLOGY_MARKER = `
local key = KEYS[1]                -- topology
local marker = ARGV[1]             -- the marker this database should hold
local state = ''
if KEYS[2] then state = redis.call('GET', KEYS[2]) or '' end  -- topology:reshard
local found = redis.call('GET', key)
if found then return {1, found, state} end
if redis.call('DBSIZE') > 0 then return {2, '', state} end
if ARGV[2] == 'ask' then return {3, '', ''} end
redis.call('SET', key, marker)
return {0, marker, state}
`;

/**
 * Throws a TopologyError unless the answer of CHECK_TOPOLOGY_MARKER says this is database `index`
 * of `n` — or, while database 0 holds a reshard state from F to T (`state`), database `index` of F
 * or of T with a setting of F or T databases.
 */
export function assertMarker(answer: unknown, index: number, n: number, state: ReshardState | null = null): void {
  const [status, found] = Array.isArray(answer) ? answer : [];
  if (status === 2) {
    throw new TopologyError(
      `database ${index} holds keys but no topology marker: it is not a database of this ${n}-database setting (changing the number of databases needs a reshard)`,
    );
  }
  let marker: { index?: unknown; databases?: unknown; version?: unknown };
  try {
    marker = JSON.parse(String(found)) as typeof marker;
  } catch {
    throw new TopologyError(`database ${index} holds an unreadable topology marker`);
  }
  if (state) {
    const sizes = [state.from, state.to];
    if (!sizes.includes(n)) {
      throw new TopologyError(`a reshard from ${state.from} to ${state.to} databases is ${state.phase === "done" ? "done" : "running"}, but UPSTASH_REDIS_DATABASES lists ${n}: list ${state.to === 1 ? "the one database" : `the ${Math.max(state.from, state.to)} databases`} of the reshard`);
    }
    if (ACCEPTED_VERSIONS.includes(marker.version) && marker.index === index && sizes.includes(marker.databases as number)) return;
  }
  if (!ACCEPTED_VERSIONS.includes(marker.version) || marker.index !== index || marker.databases !== n) {
    throw new TopologyError(
      `UPSTASH_REDIS_DATABASES[${index}] holds the marker of database ${String(marker.index)} of ${String(marker.databases)} (version ${String(marker.version)}), not of database ${index} of ${n}: the list was reordered, or the number of databases changed without a reshard`,
    );
  }
}
