import { Client, neon, neonConfig, Pool, types, type NeonQueryFunction } from "@neondatabase/serverless";
import { drizzle as drizzleHttp, type NeonHttpDatabase } from "drizzle-orm/neon-http";
import { drizzle as drizzlePool, type NeonDatabase } from "drizzle-orm/neon-serverless";
import * as schema from "../db/schema";
import type { Env } from "../env";

/**
 * The request path's Postgres: Neon's HTTP query path. Every call is one HTTPS request (a
 * statement, or a batch of them in one non-interactive transaction: `db.batch([...])`,
 * `queryBatch`); there is no connection to open, so a user far from the database pays one round
 * per call instead of the WebSocket's set-up and a round per statement.
 */
export type Database = NeonHttpDatabase;
/**
 * A WebSocket `Pool` for the few calls that need an interactive transaction (a statement whose
 * parameters depend on what an earlier one answered, under a lock): `services.pooledDb`.
 */
export type PooledDatabase = NeonDatabase<typeof schema>;
/** What `queryRows` takes: either handle, or an interactive transaction's `tx`. */
export type AnyDatabase = Database | PooledDatabase | Parameters<Parameters<PooledDatabase["transaction"]>[0]>[0];

type DatabaseEnv = Pick<Env, "DATABASE_URL" | "NEON_HTTP_PROXY">;

/** Per-request pool size: Workers allow 6 simultaneous outbound connections per invocation. */
const MAX_CONNECTIONS = 4;
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Opens a WebSocket Pool handle for one request (or one cron run). Workers must not reuse a
 * WebSocket across requests, so the pool lives exactly as long as the invocation: the caller hands
 * `close` to `waitUntil`.
 */
export function openDatabase(env: Pick<Env, "DATABASE_URL" | "NEON_WS_PROXY">): { db: PooledDatabase; pool: Pool; close: () => Promise<void> } {
  const pool = new Pool({
    connectionString: env.DATABASE_URL,
    max: MAX_CONNECTIONS,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  if (env.NEON_WS_PROXY) {
    // Local runs only: the driver speaks to a cleartext WebSocket-to-TCP proxy instead of Neon's.
    // Configured per client (not on the global neonConfig) so two proxies can coexist in one isolate.
    pool.Client = localClient(env.NEON_WS_PROXY);
  }
  // An idle connection dropping (as every one does when the request ends and the pool closes) is
  // not an error of any request: queries fail on their own. The listener only keeps the event
  // from being thrown as uncaught.
  pool.on("error", () => {});
  return { db: drizzlePool(pool, { schema }), pool, close: () => pool.end().catch(() => undefined) };
}

/**
 * An HTTP handle on `env`'s database. It holds no connection (each call is a fetch), so opening
 * one costs nothing but the object; each invocation's services open their own.
 */
export function httpDatabase(env: DatabaseEnv): Database {
  let connectionString = env.DATABASE_URL;
  if (env.NEON_HTTP_PROXY) {
    // Local runs only: the driver picks its endpoint from the connection string's host, as Neon's
    // api.<host> is; the stand-in's address takes the host's place and maps to its URL.
    const endpoint = new URL(env.NEON_HTTP_PROXY);
    const url = new URL(env.DATABASE_URL);
    url.host = endpoint.host;
    connectionString = url.toString();
    routeLocalEndpoint(endpoint);
  }
  const plain = neon(connectionString);
  // `query` without options is a raw statement (queryRows: the driver's own parsers, as over the
  // Pool); drizzle always passes options, and gets its text timestamps per query.
  const client: HttpClient = {
    query: (text, params, options) => (options === undefined ? plain.query(text, params) : plain.query(text, params, { ...options, types: drizzleTypes })),
    transaction: (queries, options) => plain.transaction(queries, options),
  };
  const saved = TEXT_FOR_DRIZZLE.map((oid) => [oid, types.getTypeParser(oid, "text")] as const);
  // drizzle calls through `client` at each query (not a copy of its functions), so what
  // `$client` is, is what every query of the handle goes through.
  const forDrizzle = { query: (...args: Parameters<HttpClient["query"]>) => client.query(...args), transaction: (...args: Parameters<HttpClient["transaction"]>) => client.transaction(...args) };
  // No schema: nothing uses drizzle's relational queries (`db.query`), and extracting their config
  // is most of a handle's cost (≈ 0.14 ms of CPU a request).
  const db = drizzleHttp({ client: forDrizzle as unknown as NeonQueryFunction<false, false> });
  for (const [oid, parser] of saved) types.setTypeParser(oid, parser);
  (db as unknown as { $client: HttpClient }).$client = client;
  plainOf.set(db, plain);
  return db;
}

/** What `$client` of an HTTP handle is. */
type HttpClient = {
  query: (text: string, params?: unknown[], options?: Record<string, unknown>) => ReturnType<NeonQueryFunction<false, false>["query"]>;
  transaction: NeonQueryFunction<false, false>["transaction"];
};
/** Each HTTP handle's driver function (batches need its own query objects). */
const plainOf = new WeakMap<object, NeonQueryFunction<false, false>>();

/**
 * Timestamp, date and interval types (and their arrays) that drizzle reads as text. Its neon-http
 * driver sets them on the driver's GLOBAL type parsers when constructed, which would change what
 * every raw query (over HTTP or the Pool) answers; the globals are put back and drizzle's queries
 * get the same parsers per query instead.
 */
// timestamptz, timestamp, date, interval; numeric[], timestamp[], timestamptz[], interval[], date[].
const TEXT_FOR_DRIZZLE: number[] = [1184, 1114, 1082, 1186, 1231, 1115, 1185, 1187, 1182];
const drizzleTypes = {
  getTypeParser: (oid: number, format?: "text" | "binary") => (TEXT_FOR_DRIZZLE.includes(oid) ? (value: string) => value : types.getTypeParser(oid, (format ?? "text") as "text")),
};

/** Local stand-ins' `host:port` → their `/sql` URL; empty in production (Neon's own endpoints). */
const localEndpoints = new Map<string, string>();
const neonEndpoint = neonConfig.fetchEndpoint;

function routeLocalEndpoint(endpoint: URL): void {
  if (localEndpoints.size === 0) {
    neonConfig.fetchEndpoint = (host, port, options) => {
      const local = localEndpoints.get(`${host}:${port}`);
      if (local) return local;
      return typeof neonEndpoint === "function" ? neonEndpoint(host, port, options) : neonEndpoint;
    };
  }
  localEndpoints.set(endpoint.host, endpoint.toString());
}

/**
 * One raw SQL statement with positional parameters, its rows as they come. Raw SQL over arrays
 * keeps a statement ONE statement whatever the number of values (drizzle's `sql` would expand a
 * JS array into a parameter list).
 */
export async function queryRows<Row>(db: AnyDatabase, text: string, params: unknown[]): Promise<Row[]> {
  const client = (db as unknown as { $client: HttpClient | Pool }).$client;
  try {
    if (plainOf.has(db)) return (await (client as HttpClient).query(text, params)) as Row[];
    // drizzle() sets $client (the Pool) at runtime; a transaction's tx has its session's client.
    const pooled = (client ?? (db as unknown as { session: { client: Pool } }).session.client) as Pool;
    const result = await pooled.query(text, params);
    return result.rows as Row[];
  } catch (err) {
    throw asDatabaseError(err);
  }
}

/**
 * Several raw statements in ONE request and one non-interactive transaction (all or nothing): the
 * rows of each, in order. Statements cannot use what an earlier one answered; CTEs and
 * `RETURNING` within a statement can.
 */
export async function queryBatch(db: Database, statements: { text: string; params: unknown[] }[]): Promise<unknown[][]> {
  const plain = plainOf.get(db);
  if (!plain) throw new Error("queryBatch needs an HTTP handle (services.db)");
  try {
    return (await plain.transaction(statements.map((s) => plain.query(s.text, s.params)))) as unknown[][];
  } catch (err) {
    throw asDatabaseError(err);
  }
}

/**
 * The Neon driver rejects with the WebSocket's ErrorEvent when it cannot connect. Hono's error
 * handler only sees Errors, so wrap it (as drizzle does) and keep it as the cause, where
 * `isDependencyFailure` finds it and answers 503.
 */
export function asDatabaseError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error("Failed query: Postgres unreachable", { cause: err });
}

function localClient(proxy: string): typeof Client {
  return class LocalProxyClient extends Client {
    constructor(config?: ConstructorParameters<typeof Client>[0]) {
      super(config);
      const cfg = this.neonConfig;
      cfg.wsProxy = (host, port) => `${proxy}?address=${host}:${port}`;
      cfg.useSecureWebSocket = false;
      cfg.pipelineTLS = false;
      cfg.pipelineConnect = false;
    }
  };
}
