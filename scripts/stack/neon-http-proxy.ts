/**
 * A local stand-in for Neon's HTTP query endpoint (`POST /sql`), which the serverless driver's
 * `neon()` calls: one request per statement, or per batch of statements run in one transaction.
 * It answers as Neon does, over the local Postgres (through `pg`):
 *
 *   request headers  Neon-Connection-String (user, password and database are used; the host names
 *                    this endpoint), Neon-Array-Mode / Neon-Raw-Text-Output (the driver sends both
 *                    "true": rows are arrays of text values, the driver parses them by type),
 *                    Neon-Batch-Isolation-Level / -Read-Only / -Deferrable (a batch's BEGIN)
 *   body             {query, params} or {queries: [{query, params}, …]}
 *   200              {command, rowCount, rows, fields: [{name, dataTypeID, …}], rowAsArray}, or for a
 *                    batch {results: [that, …]} (all committed)
 *   400              a Postgres error: {message, code, severity, detail, …} (a batch rolled back)
 *
 * Configure the driver (local runs only; src/lib/db.ts does it per NEON_HTTP_PROXY) with
 * `neonConfig.fetchEndpoint` returning this server's `/sql` URL for its host.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { performance } from "node:perf_hooks";
import pg from "pg";

export interface NeonHttpProxy {
  /** `http://127.0.0.1:PORT/sql` (`NEON_HTTP_PROXY`). */
  url: string;
  port: number;
  /** Simulates Postgres being unreachable behind the endpoint: every request answered 503 until `setDown(false)`. */
  setDown(down: boolean): void;
  /**
   * What drivers sent since it started: requests (one round each) and statements in them; `recent`
   * holds when the last RECENT requests arrived (ms since the epoch) and their statements, so a
   * test can count what one call sent.
   */
  readonly stats: { requests: number; statements: number; recent: RecentRequest[] };
  /**
   * Records every request from now on as a span (arrival to answer, `performance.now()` of this
   * process) with its statements' first words; the returned function stops and hands them over.
   */
  trace(): () => SqlSpan[];
  close(): Promise<void>;
}

export interface NeonHttpProxyOptions {
  /** The Postgres to run statements on (`postgres://user:pass@host:port/db`); the request's user, password and database override. */
  databaseUrl: string;
  host?: string;
  port?: number;
}

/** One request the stand-in took: when it arrived (ms since the epoch), its statements and the start of each one's text. */
export type RecentRequest = { at: number; statements: number; sql: string[] };
/** A request as `trace` records it (the bench's round counting reads these beside the Redis bridges' spans). */
export type SqlSpan = { start: number; end: number; commands: string[] };

const RECENT = 256;
/** Connections per distinct (user, database): the embedded Postgres allows 300 in all. */
const POOL_SIZE = 20;
const ISOLATION = new Set(["Serializable", "ReadCommitted", "RepeatableRead", "ReadUncommitted"]);
const ERROR_FIELDS = ["severity", "code", "detail", "hint", "position", "internalPosition", "internalQuery", "where", "schema", "table", "column", "dataType", "constraint", "file", "line", "routine"] as const;

/** Every value as Postgres' text, as Neon's raw text output sends it. */
const rawText = { getTypeParser: () => (value: string) => value };

type Statement = { query: string; params?: unknown[] };

export async function startNeonHttpProxy({ databaseUrl, host = "127.0.0.1", port = 0 }: NeonHttpProxyOptions): Promise<NeonHttpProxy> {
  const target = new URL(databaseUrl);
  const pools = new Map<string, pg.Pool>();
  const sockets = new Set<Socket>();
  const stats = { requests: 0, statements: 0, recent: [] as RecentRequest[] };
  let down = false;
  let spans: SqlSpan[] | undefined;

  function poolFor(connectionString: string | undefined): pg.Pool {
    const url = new URL(databaseUrl);
    if (connectionString) {
      const asked = new URL(connectionString);
      url.username = asked.username || target.username;
      url.password = asked.password || target.password;
      url.pathname = asked.pathname && asked.pathname !== "/" ? asked.pathname : target.pathname;
    }
    const key = url.toString();
    let pool = pools.get(key);
    if (!pool) {
      pool = new pg.Pool({ connectionString: key, max: POOL_SIZE });
      pool.on("error", () => {});
      pools.set(key, pool);
    }
    return pool;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://proxy").pathname;
    if (req.method !== "POST" || path !== "/sql") return send(res, 404, { message: "POST /sql only" });
    let body: { query?: unknown; params?: unknown; queries?: unknown };
    try {
      body = JSON.parse(await readBody(req)) as typeof body;
    } catch {
      return send(res, 400, { message: "body is not JSON" });
    }
    const batch = Array.isArray(body.queries) ? (body.queries as Statement[]) : undefined;
    const statements = batch ?? [body as Statement];
    if (statements.some((s) => typeof s?.query !== "string" || (s.params !== undefined && !Array.isArray(s.params)))) {
      return send(res, 400, { message: "each statement needs a query string and a params array" });
    }
    if (spans) {
      const span: SqlSpan = { start: performance.now(), end: Number.NaN, commands: statements.map((st) => st.query.trim().split(/\s+/, 1)[0]!.toLowerCase()) };
      spans.push(span);
      res.once("finish", () => (span.end = performance.now()));
    }
    stats.requests++;
    stats.statements += statements.length;
    stats.recent.push({ at: Date.now(), statements: statements.length, sql: statements.map((st) => st.query.replace(/\s+/g, " ").trim().slice(0, 120)) });
    if (stats.recent.length > RECENT) stats.recent.shift();

    const arrayMode = header(req, "neon-array-mode") === "true";
    const rawTextOutput = header(req, "neon-raw-text-output") === "true";
    let client: pg.PoolClient;
    try {
      client = await poolFor(header(req, "neon-connection-string")).connect();
    } catch (error) {
      return send(res, 503, { message: `cannot reach Postgres: ${String(error)}` });
    }
    let inTransaction = false;
    try {
      const run = async (s: Statement) => {
        const config = { text: s.query, values: s.params ?? [], ...(arrayMode ? { rowMode: "array" } : {}), ...(rawTextOutput ? { types: rawText } : {}) };
        const result = (await client.query(config as pg.QueryConfig)) as pg.QueryResult;
        return answer(result, arrayMode);
      };
      if (!batch) return send(res, 200, await run(statements[0]!));
      const isolation = header(req, "neon-batch-isolation-level");
      if (isolation && !ISOLATION.has(isolation)) return send(res, 400, { message: `unknown isolation level ${isolation}` });
      const begin = [
        "BEGIN",
        isolation ? `ISOLATION LEVEL ${isolation.replace(/([a-z])([A-Z])/g, "$1 $2").toUpperCase()}` : "",
        header(req, "neon-batch-read-only") === "true" ? "READ ONLY" : "",
        header(req, "neon-batch-deferrable") === "true" ? "DEFERRABLE" : "",
      ].filter(Boolean).join(" ");
      await client.query(begin);
      inTransaction = true;
      const results = [];
      for (const s of batch) results.push(await run(s));
      await client.query("COMMIT");
      inTransaction = false;
      return send(res, 200, { results });
    } catch (error) {
      if (inTransaction) await client.query("ROLLBACK").catch(() => undefined);
      const e = error as Record<string, unknown> & { message?: string };
      if (typeof e.code === "string") {
        return send(res, 400, { message: e.message, ...Object.fromEntries(ERROR_FIELDS.filter((f) => e[f] !== undefined).map((f) => [f, e[f]])) });
      }
      return send(res, 500, { message: String(error) });
    } finally {
      client.release();
    }
  }

  const server = createServer((req, res) => {
    // Down: Postgres behind the endpoint is unreachable, and the endpoint says so (5xx, which the
    // driver rejects as "Server error"). Answering keeps the Worker's kept-alive connection whole:
    // a reset one fails inside the runtime's fetch as well as in the call (logged as uncaught).
    if (down) return send(res, 503, { message: "Postgres is unreachable (the stack's simulated outage)" });
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { message: String(error) });
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;

  return {
    url: `http://${host}:${actualPort}/sql`,
    port: actualPort,
    stats,
    trace() {
      const mine: SqlSpan[] = [];
      spans = mine;
      return () => {
        if (spans === mine) spans = undefined;
        return mine;
      };
    },
    setDown(value: boolean) {
      down = value;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...pools.values()].map((p) => p.end().catch(() => undefined)));
    },
  };
}

/** Neon's answer for one statement: the rows (arrays or objects) and each field's type. */
function answer(result: pg.QueryResult, arrayMode: boolean) {
  return {
    command: result.command,
    rowCount: result.rowCount,
    rows: result.rows,
    fields: result.fields.map((f) => ({ name: f.name, tableID: f.tableID, columnID: f.columnID, dataTypeID: f.dataTypeID, dataTypeSize: f.dataTypeSize, dataTypeModifier: f.dataTypeModifier, format: "text" })),
    rowAsArray: arrayMode,
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}
