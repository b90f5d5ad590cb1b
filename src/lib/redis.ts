import { Redis } from "@upstash/redis/cloudflare";
import type { Env } from "../env";
import { DependencyUnavailableError } from "./errors";
import { assertMarker, CHECK_TOPOLOGY_MARKER, type DatabaseCredentials, type Topology, TOPOLOGY_MARKER_KEY, topologyMarker, topologyOf, TopologyError } from "./redis-topology";

/** Fail fast when Upstash is unreachable so callers can degrade instead of hanging the request. */
const REQUEST_TIMEOUT_MS = 3_000;

/**
 * Clients kept per isolate, one per (database, URL, token); a handful at most (tests point some at
 * dead URLs), plus room for every database of a setting with several.
 */
const MAX_CLIENTS = 16;
const clients = new Map<string, Redis>();

type RedisEnv = Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN"> & { UPSTASH_REDIS_DATABASES?: string };

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
  const credentials = topology.databases[index];
  if (!credentials) throw new RangeError(`no Redis database ${index} (the deployment has ${topology.n})`);
  const key = `${topology.fingerprint}\n${index}\n${credentials.url}\n${credentials.token}`;
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
    // One quick retry for a dropped connection; more would only delay the degraded answer.
    retry: { retries: 1, backoff: () => 50 },
    signal: () => AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  instrument(client, topology, index, credentials);
  if (clients.size >= MAX_CLIENTS + (topology.n > 1 ? topology.n : 0)) clients.delete(clients.keys().next().value!);
  clients.set(key, client);
  return client;
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

/**
 * Puts a hook in front of the client's HTTP requests (every command, pipeline and script of the
 * SDK goes through `client.request`): it counts rate-limited answers, and at N > 1 holds the
 * first request to a database until its marker check passed. No command is added at N = 1.
 */
function instrument(redis: Redis, topology: Topology, index: number, credentials: DatabaseCredentials): void {
  const holder = redis as unknown as { client: { request(req: unknown): Promise<unknown> } };
  const inner = holder.client;
  const checkKey = `${topology.fingerprint}\n${index}`;
  const request = async (req: unknown) => {
    if (topology.n > 1 && verified.get(checkKey) !== true) await verifyDatabase(checkKey, topology, index, credentials);
    try {
      return await inner.request(req);
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

function noteRateLimited(index: number, err: unknown): void {
  rateLimited[index] = (rateLimited[index] ?? 0) + 1;
  for (let i = 0; i < index; i++) rateLimited[i] ??= 0;
  console.warn(JSON.stringify({ level: "warn", message: "redis rate limited", database: index, error: err instanceof Error ? err.message.slice(0, 200) : String(err) }));
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
  let res: Response;
  let body: { result?: unknown; error?: string };
  try {
    res = await fetch(credentials.url, {
      method: "POST",
      headers: { authorization: `Bearer ${credentials.token}`, "content-type": "application/json" },
      body: JSON.stringify(["EVAL", CHECK_TOPOLOGY_MARKER, 1, TOPOLOGY_MARKER_KEY, topologyMarker(index, topology.n)]),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    body = (await res.json()) as typeof body;
  } catch (err) {
    throw new DependencyUnavailableError("redis", err);
  }
  if (res.status === 401 || res.status === 403) return refuse(checkKey, new TopologyError(`the token of UPSTASH_REDIS_DATABASES[${index}] is refused (HTTP ${res.status})`));
  if (!res.ok || body.error !== undefined) throw new DependencyUnavailableError("redis", new Error(`topology check of database ${index}: HTTP ${res.status} ${body.error ?? ""}`));
  try {
    assertMarker(body.result, index, topology.n);
  } catch (err) {
    if (err instanceof TopologyError) return refuse(checkKey, err);
    throw err;
  }
  verified.set(checkKey, true);
}

function refuse(checkKey: string, err: TopologyError): never {
  verified.set(checkKey, err);
  console.error(JSON.stringify({ level: "error", message: "redis topology refused", error: err.message }));
  throw err;
}

/** Checks the marker of every database of the setting now (`GET /health`); resolves per database. */
export function checkDatabase(env: RedisEnv, index: number): Promise<void> {
  const topology = topologyOf(env);
  if (topology.n === 1) return Promise.resolve();
  return verifyDatabase(`${topology.fingerprint}\n${index}`, topology, index, topology.databases[index]!);
}

export type { Redis };
