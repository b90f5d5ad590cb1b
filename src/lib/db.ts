import { Client, Pool } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import * as schema from "../db/schema";
import type { Env } from "../env";

export type Database = NeonDatabase<typeof schema>;

/** Per-request pool size: Workers allow 6 simultaneous outbound connections per invocation. */
const MAX_CONNECTIONS = 4;
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Opens a Postgres handle for one request (or one cron run). Workers must not reuse a WebSocket
 * across requests, so the pool lives exactly as long as the invocation: the caller hands `close`
 * to `waitUntil`.
 */
export function openDatabase(env: Pick<Env, "DATABASE_URL" | "NEON_WS_PROXY">): { db: Database; pool: Pool; close: () => Promise<void> } {
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
  return { db: drizzle(pool, { schema }), pool, close: () => pool.end().catch(() => undefined) };
}

/**
 * One raw SQL statement with positional parameters, its rows as they come. Raw SQL over arrays
 * keeps a statement ONE statement whatever the number of values (drizzle's `sql` would expand a
 * JS array into a parameter list).
 */
export async function queryRows<Row>(db: Database, text: string, params: unknown[]): Promise<Row[]> {
  try {
    // drizzle() sets $client (the Pool) at runtime; NeonDatabase's type does not declare it.
    const result = await (db as unknown as { $client: Pool }).$client.query(text, params);
    return result.rows as Row[];
  } catch (err) {
    // The Neon driver rejects with the WebSocket's ErrorEvent when it cannot connect. Hono's error
    // handler only sees Errors, so wrap it (as drizzle does) and keep it as the cause, where
    // `isDependencyFailure` finds it and answers 503.
    if (err instanceof Error) throw err;
    throw new Error("Failed query: Postgres unreachable", { cause: err });
  }
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
