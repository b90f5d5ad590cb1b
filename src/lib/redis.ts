import { errors, Redis } from "@upstash/redis/cloudflare";
import type { Env } from "../env";
import { DependencyUnavailableError } from "./errors";
import {
  assertMarker,
  CHECK_TOPOLOGY_MARKER,
  type DatabaseCredentials,
  databasesInUse,
  DepartedDatabaseError,
  installedRouting,
  installRouting,
  movedAwayFrom,
  parseReshardState,
  RESHARD_STATE_KEY,
  type ReshardState,
  RESHARD_FENCE_MS,
  ROUTING_REFRESH_MS,
  routingHomes,
  type Topology,
  TOPOLOGY_MARKER_KEY,
  topologyMarker,
  topologyOf,
  TopologyError,
  UNAVAILABLE_DATABASE,
} from "./redis-topology";
import { errorText, log } from "./log";
import { readRegionsOn, sendCarryingToken, type SdkHttpClient, writesData } from "./consistency";

/** Fail fast when Upstash is unreachable so callers can degrade instead of hanging the request. */
const REQUEST_TIMEOUT_MS = 3_000;


/**
 * Clients kept per isolate, one per (database, URL, token); a handful at most (tests point some at
 * dead URLs), plus room for every database of a setting with several.
 */
const MAX_CLIENTS = 16;
const clients = new Map<string, Redis>();

type RedisEnv = Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN"> & { UPSTASH_REDIS_DATABASES?: string; REDIS_READ_REGIONS?: string };

/**
 * The isolate's Upstash client for database 0 — the only one at N = 1 — built on first use and
 * then shared by every request of the isolate. Building one is not free: the SDK defines each of
 * its ~250 commands as a closure per instance, and a client per request cost about 9% of the
 * Worker's CPU on a live join (CPU profile of `npm run bench:live`). Sharing is safe: the client
 * holds no connection and no I/O object (each command's fetch and timeout signal belong to the
 * request that sends it), and with auto-pipelining off it never batches one request's command with
 * another's. The one state it keeps is Upstash's read-your-writes sync token, which then covers the
 * isolate instead of one request: a read waits for every write this isolate has seen acknowledged,
 * never for less.
 *
 * Every capability not yet split by owner keeps all its keys here (database 0) at N > 1.
 */
export function redisFor(env: RedisEnv): Redis {
  return redisAt(env, 0);
}

/**
 * The client of database `index` of the deployment's topology (`redis-topology.ts`). At N > 1
 * its first command in this isolate waits for the database's marker check (one call, once per
 * isolate); until that check passed, nothing is sent to it. Throws a TopologyError for a
 * setting that cannot be right.
 */
export function redisAt(env: RedisEnv, index: number): Redis {
  const topology = topologyOf(env);
  if (index === UNAVAILABLE_DATABASE) return unavailableClient(topology);
  const credentials = topology.databases[index];
  if (!credentials) throw new RangeError(`no Redis database ${index} (the deployment has ${topology.n})`);
  const carry = readRegionsOn(env);
  const key = `${carry ? "read regions\n" : ""}${topology.fingerprint}\n${index}\n${credentials.url}\n${credentials.token}`;
  let client = clients.get(key);
  if (client) return client;
  client = new Redis({
    url: credentials.url,
    token: credentials.token,
    enableTelemetry: false,
    // No auto-pipelining: a hot request is one EVALSHA anyway, and wrapping every command in an
    // implicit pipeline cost the counters benchmark a quarter of its throughput (the Worker's CPU
    // is the bottleneck). Code that needs several commands in one round trip says so with
    // `redis.pipeline()`/`multi()` or a script. It is also what keeps a shared client's commands
    // inside the request that sends them (Workers forbid one request awaiting another's fetch).
    enableAutoPipelining: false,
    // No retry in the SDK: it would send a write again whose first attempt Redis may have run (the
    // connection dropped after the server applied it), counting an increment twice. The request
    // hook (`instrument`) retries reads once instead; each write caller decides (`retryFailedRead`).
    retry: { retries: 0 },
    signal: () => AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    // Replies as plain JSON strings. The SDK's default asks for base64 and then decodes every
    // string of every reply (atob, a byte copy and a new TextDecoder each): Worker CPU on every
    // request, the more so on a feed page's hundreds of strings. Base64 only matters for values
    // that are not UTF-8, and the project stores none (JSON, decimal numbers, ids; no DUMP).
    responseEncoding: false,
    // With read regions the sync token is the request's, not the isolate's: the request hook sends
    // and keeps it (`consistency.ts`). Without, the SDK's own isolate-wide token, as always.
    ...(carry ? { readYourWrites: false } : {}),
  });
  instrument(client, topology, index, credentials, carry);
  reuseScripts(client);
  return remember(key, client, topology);
}

/** Scripts kept per client: the project's Lua sources are a few dozen module constants. */
const MAX_SCRIPTS_PER_CLIENT = 256;

/**
 * Makes `client.createScript(source)` answer the same Script for the same source (and the same
 * read-only flag). The SDK builds a new one per call, and each new Script hashes its source (SHA-1
 * for EVALSHA) before it can run: a digest of a few KB of Lua on every hot request, about 3% of the
 * Worker's CPU on an increment (CPU profile of `npm run bench:counters`). A Script holds no I/O
 * object (each exec is a command of the request that runs it), and its hash, once computed, is
 * shared as `script-batch.ts` shares its digests. Read-only scripts (EVALSHA_RO, what a read region
 * answers) are kept in a map of their own, keyed by the source as it is: no key is built per call.
 */
function reuseScripts(client: Redis): void {
  const scripts = new Map<string, unknown>();
  const readOnly = new Map<string, unknown>();
  const create = client.createScript.bind(client) as (source: string, opts?: { readonly?: boolean }) => unknown;
  client.createScript = ((source: string, opts?: { readonly?: boolean }) => {
    const kept = opts?.readonly ? readOnly : scripts;
    let script = kept.get(source);
    if (!script) {
      if (kept.size >= MAX_SCRIPTS_PER_CLIENT) kept.clear();
      kept.set(source, (script = create(source, opts)));
    }
    return script;
  }) as Redis["createScript"];
}

/**
 * Sends one command through `redis`'s own requester (the marker check, retries, timeout and budget
 * counting all apply) and answers the reply as the REST API gave it: strings stay strings. The
 * SDK's commands JSON-parse every string of a reply; on a bulk read of cache values that is one
 * parse per value, and a value that is not JSON (a packed counter, "3,0,1,0,0") throws and is
 * caught on the way. For reads whose values the caller decodes itself.
 */
export async function rawCommand(redis: Redis, command: readonly (string | number)[]): Promise<unknown> {
  const requester = (redis as unknown as { client: { request(req: { body: string[] }): Promise<{ result?: unknown; error?: string }> } }).client;
  const { result, error } = await requester.request({ body: command.map(String) });
  if (error) throw new errors.UpstashError(error);
  return result;
}

/**
 * Keeps `client` under `key`, first dropping the oldest clients until there is room under the
 * bound of `topology`'s setting. A loop, not one drop: a setting with more databases may have
 * filled the map past the bound of the one asking now.
 */
function remember(key: string, client: Redis, topology: Topology): Redis {
  const bound = MAX_CLIENTS + (topology.n > 1 ? topology.n : 0);
  while (clients.size >= bound) clients.delete(clients.keys().next().value!);
  clients.set(key, client);
  return client;
}

/**
 * The client `databaseOf` points a moving slot's owners at (UNAVAILABLE_DATABASE): every call
 * fails as an outage at once, without a request, so the callers' outage paths answer degraded
 * (counter reads stale from Postgres, increments applied through Postgres) while the slot moves.
 */
function unavailableClient(topology: Topology): Redis {
  const key = `${topology.fingerprint}\nunavailable`;
  let client = clients.get(key);
  if (client) return client;
  client = new Redis({ url: topology.databases[0]!.url, token: topology.databases[0]!.token, enableTelemetry: false, enableAutoPipelining: false, retry: false });
  const holder = client as unknown as { client: { request(req: unknown): Promise<unknown> } };
  holder.client = new Proxy(holder.client, {
    get: (target, prop) =>
      prop === "request" ? () => Promise.reject(new DependencyUnavailableError("redis", new Error("this owner's slot is being moved to another database (reshard)"))) : Reflect.get(target, prop, target),
  });
  return remember(key, client, topology);
}

/** Answers past a database's command budget, per database index, since this isolate started. */
const rateLimited: number[] = [];

/** How many answers past a database's command budget (`ERR max requests limit exceeded`) this isolate got, per database. */
export function rateLimitedAnswers(): readonly number[] {
  return rateLimited;
}

/** Upstash's answer when a database's commands per second (or its plan's quota) are used up. */
export function isRedisRateLimited(err: unknown): boolean {
  return err instanceof Error && /max (daily )?requests limit exceeded/i.test(err.message);
}

/** Marker checks passed (true) or refused (the error, kept: a wrong setting stays wrong until a deploy), per database. */
const verified = new Map<string, true | TopologyError>();
/** Database 0's reshard state as its check (or the last refresh) read it, per setting. */
const reshardStates = new Map<string, ReshardState | null>();
/** When the routing table was last read, per setting (only while a reshard runs). */
const routingReadAt = new Map<string, number>();

/**
 * Re-reads the reshard state (one GET on database 0) and installs it. When it moved on since the
 * table this request was routed by (`rev`), that table is too old for the reshard's fence to cover
 * it, and some slot it placed on this request's database `index` lives elsewhere now, the request
 * may be headed for a slot's old home: it fails as an outage (a degraded answer) instead of being
 * sent.
 */
async function refreshRouting(topology: Topology, rev: number, index: number): Promise<void> {
  const db0 = topology.databases[0]!;
  let state: ReshardState | null;
  try {
    const res = await fetch(db0.url, {
      method: "POST",
      headers: { authorization: `Bearer ${db0.token}`, "content-type": "application/json" },
      body: JSON.stringify(["GET", RESHARD_STATE_KEY]),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = (await res.json()) as { result?: unknown; error?: string };
    if (!res.ok || body.error !== undefined) throw new Error(`HTTP ${res.status} ${body.error ?? ""}`);
    state = parseReshardState(body.result);
  } catch (err) {
    throw new DependencyUnavailableError("redis", err);
  }
  const age = Date.now() - (routingReadAt.get(topology.fingerprint) ?? 0);
  const before = routingHomes(topology.n);
  reshardStates.set(topology.fingerprint, state);
  routingReadAt.set(topology.fingerprint, Date.now());
  installRouting(topology.n, state);
  // A table read less than RESHARD_FENCE_MS - FLIGHT_MARGIN_MS ago is covered by the reshard's
  // fence: a change made since then is followed by that wait before any slot is touched. An older
  // one (an isolate idle for a while) may have routed this request to a slot's old home.
  if (age >= RESHARD_FENCE_MS - FLIGHT_MARGIN_MS && (state?.rev ?? -1) !== rev && movedAwayFrom(index, before, topology.n)) {
    throw new DependencyUnavailableError("redis", new Error(`the reshard moved on (revision ${rev} → ${state?.rev ?? "none"}): routed again by the next call`));
  }
}

/** Time left within the fence for a request to reach its database after its routing was checked. */
const FLIGHT_MARGIN_MS = 500;

/**
 * Puts a hook in front of the client's HTTP requests (every command, pipeline and script of the
 * SDK goes through `client.request`): it counts rate-limited answers, and at N > 1 holds the
 * first request to a database until its marker check passed. No command is added at N = 1. With
 * read regions (`carry`) each request carries the consistency token of the request sending it.
 */
function instrument(redis: Redis, topology: Topology, index: number, credentials: DatabaseCredentials, carry: boolean): void {
  const holder = redis as unknown as { client: SdkHttpClient };
  const inner = holder.client;
  const checkKey = `${topology.fingerprint}\n${index}`;
  const request = async (req: { body?: unknown }) => {
    if (topology.n > 1) {
      if (verified.get(checkKey) !== true) {
        const before = routingHomes(topology.n);
        await verifyDatabase(checkKey, topology, index, credentials);
        // This request was routed before the check installed a reshard's table (a new isolate
        // during a reshard): if the table takes slots away from this database, it may be for one.
        const after = routingHomes(topology.n);
        if (after !== before && movedAwayFrom(index, before, topology.n)) {
          throw new DependencyUnavailableError("redis", new Error("routed before the reshard's table was read: routed again by the next call"));
        }
      }
      const installed = installedRouting(topology.n);
      if (installed?.live && Date.now() - (routingReadAt.get(topology.fingerprint) ?? 0) >= ROUTING_REFRESH_MS) await refreshRouting(topology, installed.rev, index);
      assertInUse(topology, index);
    }
    const send = () => (carry ? sendCarryingToken(inner, index, req) : inner.request(req));
    try {
      return await send().catch(async (err: unknown) => {
        if (!retryFailedRead(err, req.body)) throw err;
        await new Promise((resolve) => setTimeout(resolve, READ_RETRY_BACKOFF_MS));
        return send();
      });
    } catch (err) {
      if (isRedisRateLimited(err)) noteRateLimited(index, err);
      throw err;
    }
  };
  holder.client = new Proxy(inner, {
    get: (target, prop) => (prop === "request" ? request : Reflect.get(target, prop, target)),
    set: (target, prop, value) => Reflect.set(target, prop, value, target),
  });
}

/** The wait before a failed read's one retry; more would only delay the degraded answer. */
const READ_RETRY_BACKOFF_MS = 50;

/**
 * Whether a request that failed is sent once more: only when its fetch itself failed (a dropped
 * connection: no answer, no timeout — an answer, even a 5xx, or the 3 s budget spent are final)
 * and it only reads (`writesData`: a command, pipeline or transaction of reads, EVALSHA_RO). A
 * write is never sent again here: the server may have run it before the connection dropped. An
 * increment retries with its own call id, which its script refuses to apply twice (`counters.ts`);
 * every other write fails as an outage.
 */
export function retryFailedRead(err: unknown, body: unknown): boolean {
  if (err instanceof errors.UpstashError || !(err instanceof Error)) return false;
  if (err.name === "TimeoutError" || err.name === "AbortError") return false;
  return !writesData(body);
}

function noteRateLimited(index: number, err: unknown): void {
  rateLimited[index] = (rateLimited[index] ?? 0) + 1;
  for (let i = 0; i < index; i++) rateLimited[i] ??= 0;
  log.warn({ message: "redis rate limited", database: index, error: errorText(err).slice(0, 200) });
}

/**
 * Checks (and on an empty database, writes) database `index`'s marker, with a plain fetch so it
 * never goes through the hook it guards. Not shared between requests (Workers forbid one request
 * awaiting another's I/O): concurrent first requests each check, which is harmless. An
 * unreachable database is an outage (the request degrades, and the next one checks again); a
 * marker that disagrees, or a refused token, is a TopologyError kept for the isolate's life.
 */
export async function verifyDatabase(checkKey: string, topology: Topology, index: number, credentials: DatabaseCredentials): Promise<void> {
  const known = verified.get(checkKey);
  if (known === true) return;
  if (known) throw known;
  // A database a done shrink left is not even checked: nothing at all is sent to it.
  if (reshardStates.has(topology.fingerprint)) assertInUse(topology, index);
  // Until this isolate knows database 0's reshard state, an empty database is not adopted: it may
  // be one a done shrink left and emptied, which must receive nothing (`databasesInUse`).
  const ask = index > 0 && !reshardStates.has(topology.fingerprint);
  let res: Response;
  let body: { result?: unknown; error?: string };
  try {
    res = await fetch(credentials.url, {
      method: "POST",
      headers: { authorization: `Bearer ${credentials.token}`, "content-type": "application/json" },
      body: JSON.stringify(["EVAL", CHECK_TOPOLOGY_MARKER, 2, TOPOLOGY_MARKER_KEY, RESHARD_STATE_KEY, topologyMarker(index, topology.n), ...(ask ? ["ask"] : [])]),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    body = (await res.json()) as typeof body;
  } catch (err) {
    throw new DependencyUnavailableError("redis", err);
  }
  if (res.status === 401 || res.status === 403) return refuse(checkKey, new TopologyError(`the token of UPSTASH_REDIS_DATABASES[${index}] is refused (HTTP ${res.status})`));
  if (!res.ok || body.error !== undefined) {
    const err = new Error(`topology check of database ${index}: HTTP ${res.status} ${body.error ?? ""}`);
    // Refused for the budget, the check counts like any other call past it (status, /health):
    // concurrent first requests of an isolate each check, and may use up the budget themselves.
    if (isRedisRateLimited(err)) noteRateLimited(index, err);
    throw new DependencyUnavailableError("redis", err);
  }
  if (Array.isArray(body.result) && body.result[0] === 3) {
    // Empty and not adopted: database 0's check reads the state; a database it says left stays empty.
    await verifyDatabase(`${topology.fingerprint}\n0`, topology, 0, topology.databases[0]!);
    assertInUse(topology, index);
    return verifyDatabase(checkKey, topology, index, credentials);
  }
  try {
    // Every database holds a copy of the reshard plan (the command writes it to all); database 0's
    // is the one routing follows. A database whose copy says no reshard, or one that is done,
    // is judged by its own copy, so an outage of database 0 does not stop the others' checks; while
    // a reshard is prepared or running, database 0 is checked first and its plan decides.
    const own = parseReshardState(Array.isArray(body.result) ? body.result[2] : null);
    let state = own;
    if (index > 0 && own && own.phase !== "done") {
      await verifyDatabase(`${topology.fingerprint}\n0`, topology, 0, topology.databases[0]!);
      state = reshardStates.get(topology.fingerprint) ?? own;
    }
    assertMarker(body.result, index, topology.n, state);
    if (index === 0 || !reshardStates.has(topology.fingerprint)) {
      reshardStates.set(topology.fingerprint, state);
      routingReadAt.set(topology.fingerprint, Date.now());
      installRouting(topology.n, state);
    }
  } catch (err) {
    if (err instanceof TopologyError) return refuse(checkKey, err);
    throw err;
  }
  verified.set(checkKey, true);
}

function refuse(checkKey: string, err: TopologyError): never {
  verified.set(checkKey, err);
  log.error({ message: "redis topology refused", error: err.message });
  throw err;
}

/** Refuses (DepartedDatabaseError) a call to a database a done shrink took out of the deployment. */
function assertInUse(topology: Topology, index: number): void {
  const inUse = databasesInUse(topology.n);
  if (index >= inUse) throw new DepartedDatabaseError(index, inUse);
}

/**
 * Checks the marker of every database of the setting now (`GET /health`); resolves per database.
 * Throws DepartedDatabaseError for a database a done shrink left.
 */
export async function checkDatabase(env: RedisEnv, index: number): Promise<void> {
  const topology = topologyOf(env);
  if (topology.n === 1) return;
  await verifyDatabase(`${topology.fingerprint}\n${index}`, topology, index, topology.databases[index]!);
  assertInUse(topology, index);
}

export type { Redis };
