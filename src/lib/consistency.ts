import { AsyncLocalStorage } from "node:async_hooks";
import { newerSyncToken, type SyncTokens } from "./consistency-token";

/**
 * Read your own writes across requests on a Global Redis database (docs/regions.md#read-your-own-writes).
 *
 * With read regions (`REDIS_READ_REGIONS = "on"`) a read is answered by the region nearest the
 * Worker, as fresh as that region has it. A request that wrote answers `X-Consistency-Token`: the
 * sync token Upstash answered for each database it wrote. A request sending it back has every Redis
 * call to those databases carry that database's token (`upstash-sync-token`), so the region waits
 * until it has applied those writes before answering.
 *
 * The isolate's Redis clients are shared by its requests (`redis.ts`), so the token a call carries
 * cannot live on the client, as `@upstash/redis` keeps it: it lives in the request's scope, found
 * through AsyncLocalStorage by the client's request hook (`sendCarryingToken`), and no request's
 * token is ever written to the shared client. The header is read, verified and answered by
 * `consistency-header.ts`; its tags are `consistency-signing.ts`'s.
 *
 * Off (the default, and every single-region deployment): the header is not read, nothing is
 * answered, the clients are built and called exactly as without this module.
 */

/** Whether the deployment's Redis databases have read regions (the token is on). */
export function readRegionsOn(env: { REDIS_READ_REGIONS?: string }): boolean {
  return env.REDIS_READ_REGIONS === "on";
}

/**
 * One request's sync tokens: what it was sent, brought forward by what its writes answered. What it
 * was sent serves this request's own reads only; what its writes answered (`written`) is all it
 * may hand to state other requests read (a badge hub's), so no caller's token holds back another's reads.
 */
export class ConsistencyScope {
  private readonly newest: SyncTokens;
  private readonly wroteTo: SyncTokens = [];
  constructor(sent: SyncTokens) {
    this.newest = sent;
  }
  /** The token a call to database `index` carries (undefined: none, the call is not held back). */
  tokenFor(index: number): string | undefined {
    return this.newest[index];
  }
  /** Keeps the sync token a write to database `index` answered: later calls of the request wait for it too. */
  noteWrite(index: number, token: string): void {
    this.newest[index] = newerSyncToken(this.newest[index], token);
    this.wroteTo[index] = newerSyncToken(this.wroteTo[index], token);
  }
  /** The tokens held now (a copy): what this request's own later work must wait for. */
  held(): SyncTokens {
    return [...this.newest];
  }
  /** The tokens the request's writes answered (a copy), nothing it was sent: what another object may keep. */
  written(): SyncTokens {
    return [...this.wroteTo];
  }
  /** The sync tokens `X-Consistency-Token` answers: set only when the request wrote (merged with what it was sent). */
  answer(): SyncTokens | undefined {
    return this.wroteTo.length > 0 ? [...this.newest] : undefined;
  }
}

const scopes = new AsyncLocalStorage<ConsistencyScope>();

/** Runs `next` (the rest of a request) in `scope`: its Redis calls carry and collect the scope's tokens. */
export function runInScope<T>(scope: ConsistencyScope, next: () => T): T {
  return scopes.run(scope, next);
}

/**
 * The sync tokens the current request holds (what it was sent, brought forward by its writes), for
 * its own later reads. Undefined outside a request's scope (read regions off, cron, queues) or when
 * it holds none.
 */
export function heldSyncTokens(): SyncTokens | undefined {
  const held = scopes.getStore()?.held();
  return held && held.some((t) => t !== undefined) ? held : undefined;
}

/**
 * The sync tokens the current request's writes answered, for work it hands to a Durable Object: a
 * hub that reads a user's badges because of this request's write must read at least that write,
 * and a read region does not know it unless told. Never what the request was sent: the hub keeps
 * what it is told for every user of its shard, and a caller's own token must hold back only that
 * caller's reads. Undefined outside a request's scope or when it wrote nothing.
 */
export function writtenSyncTokens(): SyncTokens | undefined {
  const written = scopes.getStore()?.written();
  return written && written.some((t) => t !== undefined) ? written : undefined;
}

/**
 * Commands a read region answers itself (Upstash Global; the local read region,
 * `scripts/stack/near-region-bridge.ts`, routes by this same list). Everything else goes to the
 * primary: a read missing here only costs a far round trip, a write wrongly here would be refused by
 * the read-only replica. Scripts are writes unless sent as EVAL_RO/EVALSHA_RO/FCALL_RO.
 */
export const READ_COMMANDS: ReadonlySet<string> = new Set([
  // strings, keys
  "GET", "MGET", "GETRANGE", "STRLEN", "EXISTS", "TYPE", "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME",
  "SCAN", "KEYS", "RANDOMKEY", "DBSIZE", "GETBIT", "BITCOUNT", "BITPOS",
  // hashes
  "HGET", "HMGET", "HGETALL", "HEXISTS", "HKEYS", "HVALS", "HLEN", "HSTRLEN", "HRANDFIELD", "HSCAN",
  // lists
  "LRANGE", "LLEN", "LINDEX", "LPOS",
  // sets
  "SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "SRANDMEMBER", "SSCAN", "SINTER", "SUNION", "SDIFF", "SINTERCARD",
  // sorted sets
  "ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZCOUNT", "ZLEXCOUNT",
  "ZSCORE", "ZMSCORE", "ZRANK", "ZREVRANK", "ZCARD", "ZSCAN", "ZRANDMEMBER", "ZINTER", "ZUNION", "ZDIFF", "ZINTERCARD",
  // streams, geo
  "XRANGE", "XREVRANGE", "XLEN", "GEOPOS", "GEODIST", "GEOHASH", "GEOSEARCH",
  // server
  "PING", "ECHO", "INFO", "TIME",
  // read-only scripts (`#!lua flags=no-writes`, functions declared no-writes)
  "EVAL_RO", "EVALSHA_RO", "FCALL_RO",
]);

/**
 * Whether an Upstash REST request (one command, or a pipeline/transaction of several) writes: has
 * a command the read region does not answer, whose answer's sync token the request keeps. SCRIPT
 * (LOAD, EXISTS) goes to the primary but changes no data.
 */
export function writesData(body: unknown): boolean {
  if (!Array.isArray(body)) return true;
  const commands = Array.isArray(body[0]) ? (body as unknown[][]) : [body];
  return commands.some((command) => {
    const name = String(command[0]).toUpperCase();
    return name !== "SCRIPT" && !READ_COMMANDS.has(name);
  });
}

/** What `@upstash/redis`'s HttpClient is, as far as the hook below touches it. */
export interface SdkHttpClient {
  headers: Record<string, string>;
  readYourWrites: boolean;
  request(req: { body?: unknown }): Promise<unknown>;
}

/**
 * Sends one request of a shared client (built with `readYourWrites: false`) inside the current
 * request's scope: the SDK's own read-your-writes logic runs on a per-call view of the client
 * whose sync token is the scope's — sent when the scope has one for database `index` (absent
 * otherwise, so the region answers at once), and kept from the answer when the call wrote. Outside
 * a request (cron, queues, objects) the call goes out as it is.
 */
export function sendCarryingToken(inner: SdkHttpClient, index: number, req: { body?: unknown }): Promise<unknown> {
  const scope = scopes.getStore();
  if (!scope) return inner.request(req);
  const call = Object.create(inner) as SdkHttpClient;
  call.headers = { ...inner.headers }; // the SDK writes the token into its headers object
  call.readYourWrites = true;
  Object.defineProperty(call, "upstashSyncToken", {
    // undefined, not "": the SDK's header merge then leaves the header out.
    get: () => scope.tokenFor(index),
    set: (answered: string) => {
      if (answered && writesData(req.body)) scope.noteWrite(index, answered);
    },
  });
  return call.request(req);
}
