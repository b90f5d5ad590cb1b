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
import { ApiError } from "./errors";

/** Slots a deployment is divided into; fixed forever (a change would move every key). */
export const SLOT_COUNT = 1024;

/** Version of the slot rule and marker layout above; a marker of another version is refused. */
export const TOPOLOGY_VERSION = 1;

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

/** CRC16-CCITT (XMODEM: poly 0x1021, init 0), the checksum Redis Cluster uses for key slots. */
export function crc16(text: string): number {
  let crc = 0;
  for (const byte of new TextEncoder().encode(text)) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
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

/** The database holding an owner's keys, out of n (0 when n is 1, without computing anything). */
export function databaseOf(ownerId: string, n: number): number {
  return n === 1 ? 0 : databaseOfSlot(slotOf(ownerId), n);
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
 * marker; adopts an EMPTY database that has none (a new deployment, or a database that lost
 * everything) by writing it; refuses a database holding keys but no marker (it belongs to
 * something else, e.g. the one database of an N = 1 deployment: going to N > 1 is a reshard).
 * Answers `{0|1, marker}` (0: just written), or `{2, ""}` when refused.
 */
export const CHECK_TOPOLOGY_MARKER = `
local key = KEYS[1]                -- topology
local marker = ARGV[1]             -- the marker this database should hold
local found = redis.call('GET', key)
if found then return {1, found} end
if redis.call('DBSIZE') > 0 then return {2, ''} end
redis.call('SET', key, marker)
return {0, marker}
`;

/** Throws a TopologyError unless the answer of CHECK_TOPOLOGY_MARKER says this is database `index` of `n`. */
export function assertMarker(answer: unknown, index: number, n: number): void {
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
  if (marker.version !== TOPOLOGY_VERSION || marker.index !== index || marker.databases !== n) {
    throw new TopologyError(
      `UPSTASH_REDIS_DATABASES[${index}] holds the marker of database ${String(marker.index)} of ${String(marker.databases)} (version ${String(marker.version)}), not of database ${index} of ${n}: the list was reordered, or the number of databases changed without a reshard`,
    );
  }
}
