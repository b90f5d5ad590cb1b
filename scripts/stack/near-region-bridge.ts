/**
 * The Upstash REST endpoint of a read region of a Global database, as a Worker far from the primary
 * region sees it (`far-region.ts` builds the rest of that world):
 * - a request whose commands all only read (`READ_COMMANDS`, the Worker's own list in
 *   `src/lib/consistency.ts`, `EVAL_RO`/`EVALSHA_RO`/`FCALL_RO` included) is answered by the
 *   region's replica, at once;
 * - any other request (a write, `EVAL`/`EVALSHA`, `SCRIPT LOAD`, or a pipeline or transaction with
 *   at least one such command: it goes whole, since its commands must run in order on one server)
 *   is forwarded to the primary region, which costs one far round trip;
 * - every answer carries an `upstash-sync-token` header: for a forwarded request the primary's
 *   replication offset just after it ran, for a read the replica's (at least the request's own);
 * - a request sending `upstash-sync-token` (what `@upstash/redis` does with `readYourWrites`, the
 *   token of its last answer; "" when it has none) is answered only once the replica has applied the
 *   primary's stream up to that offset; past `syncTimeoutMs` it is answered 503 with an error
 *   saying so. A token that is not one of ours is refused (400).
 *
 * The protocol is the local bridge's (`upstash-bridge.ts`): requests are passed through to a bridge
 * in front of the replica or of the primary, bodies and statuses untouched, so the two can never
 * answer differently. The offsets are read with INFO on a connection of this process' own: the
 * model's bookkeeping, not commands the Worker pays for.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis as RedisConnection } from "ioredis";
import { READ_COMMANDS } from "../../src/lib/consistency.js";
import { performance } from "node:perf_hooks";
import { commandNames, countRequest, emptyStats as emptyBridgeStats, MAX_BODY_BYTES, pathOf, STATS_PATH, SYNC_TOKEN_HEADER, type BridgeStats, type RequestSpan } from "./upstash-bridge.js";

export { SYNC_TOKEN_HEADER };

/** Where a request is answered: by the region's replica or the primary, a far round trip away. */
export type Route = "replica" | "primary";

/** The rule above, for a request's commands (unparseable bodies go to the replica's bridge, which refuses them). */
export function routeOf(commands: unknown[][]): Route {
  return commands.every((command) => READ_COMMANDS.has(String(command[0]).toUpperCase())) ? "replica" : "primary";
}

/** A point in a primary's replication stream: its replication id (one history) and byte offset. */
export interface SyncPoint {
  replid: string;
  offset: number;
}

const TOKEN_PATTERN = /^([0-9a-f]{40}):(\d{1,18})$/;

/** Opaque to clients; self-describing enough to refuse one that is not ours. */
export function formatSyncToken({ replid, offset }: SyncPoint): string {
  return `${replid}:${offset}`;
}

/** undefined for no token (absent or "": `@upstash/redis` before its first answer); throws if malformed. */
export function parseSyncToken(header: string | string[] | undefined): SyncPoint | undefined {
  if (header === undefined || header === "") return undefined;
  const match = typeof header === "string" ? TOKEN_PATTERN.exec(header) : null;
  if (!match) throw new MalformedSyncTokenError(`malformed ${SYNC_TOKEN_HEADER}: expected one this database answered (replication id:offset)`);
  return { replid: match[1]!, offset: Number(match[2]) };
}

export class MalformedSyncTokenError extends Error {}

/** A server's place in the replication stream, from its INFO replication (primary or replica alike). */
export function syncPointOf(infoReplication: string): SyncPoint {
  const replid = /^master_replid:([0-9a-f]{40})/m.exec(infoReplication)?.[1];
  const offset = /^master_repl_offset:(\d+)/m.exec(infoReplication)?.[1];
  if (!replid || offset === undefined) throw new Error("INFO replication has no master_replid/master_repl_offset");
  return { replid, offset: Number(offset) };
}

/** The bridge's own counts (what the Worker sent this region: `npm run load` reads them at `STATS_PATH`), and where they went. */
export interface NearRegionBridgeStats extends BridgeStats {
  /** Requests answered by the replica, and forwarded to the primary (one far round trip each). */
  replica: number;
  primary: number;
  /** Requests that carried a token the replica had not reached yet when they arrived. */
  waitedForToken: number;
  /** Requests refused because the replica did not reach their token within `syncTimeoutMs`. */
  tokenTimeouts: number;
}

export interface NearRegionBridge {
  url: string;
  token: string;
  port: number;
  readonly stats: NearRegionBridgeStats;
  resetStats(): void;
  /**
   * Starts recording the requests this region forwarded to the primary, each from its arrival here
   * to its answer leaving (so each spans at least the round trip R, as the Worker waits for it);
   * the returned function stops and answers them. Requests the Worker sent at once overlap here
   * whatever order they reach the primary in: how `bench:geo` counts a write's primary rounds.
   */
  trace(): () => RequestSpan[];
  close(): Promise<void>;
}

export interface NearRegionBridgeOptions {
  /** Bridge (`upstash-bridge.ts`) in front of the region's replica, and in front of the primary. */
  replicaBridgeUrl: string;
  primaryBridgeUrl: string;
  /** The two servers themselves, for their replication offsets. */
  replicaRedisUrl: string;
  primaryRedisUrl: string;
  /** Round trip to the primary region, added to every forwarded request (half each way). */
  farRoundTripMs: number;
  /** Longest wait for the replica to reach a request's token (default 5 s). */
  syncTimeoutMs?: number;
  /** The REST token the two bridges share (the near bridge answers 401 exactly as they do). */
  token: string;
  host?: string;
  port?: number;
}

/** How often a request waiting for its token looks at the replica's offset again. */
const SYNC_POLL_MS = 2;

export async function startNearRegionBridge({
  replicaBridgeUrl,
  primaryBridgeUrl,
  replicaRedisUrl,
  primaryRedisUrl,
  farRoundTripMs,
  syncTimeoutMs = 5_000,
  token,
  host = "127.0.0.1",
  port = 0,
}: NearRegionBridgeOptions): Promise<NearRegionBridge> {
  const replica = infoConnection(replicaRedisUrl);
  const primary = infoConnection(primaryRedisUrl);
  const stats = emptyStats();
  const oneWay = farRoundTripMs / 2;

  // One INFO in flight at a time, shared by every request waiting on the replica.
  let replicaReading: Promise<SyncPoint> | undefined;
  const replicaPoint = () =>
    (replicaReading ??= replica
      .info("replication")
      .then(syncPointOf)
      .finally(() => (replicaReading = undefined)));
  const primaryPoint = async () => syncPointOf(await primary.info("replication"));

  /**
   * Resolves with the replica's point once it has applied `wanted`; undefined past the bound. A
   * token of another history than the replica's (the primary restarted with empty data and a new
   * replication id since it was issued) promises data that no longer exists: taken as reached.
   */
  async function replicaReaching(wanted: SyncPoint | undefined): Promise<{ point: SyncPoint; waited: boolean } | undefined> {
    const deadline = Date.now() + syncTimeoutMs;
    let waited = false;
    for (;;) {
      const point = await replicaPoint();
      if (!wanted || point.replid !== wanted.replid || point.offset >= wanted.offset) return { point, waited };
      if (Date.now() >= deadline) return undefined;
      waited = true;
      await sleep(SYNC_POLL_MS);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      error instanceof BodyTooLargeError
        ? respond(res, 400, JSON.stringify({ error: `ERR ${error.message}` }))
        : respond(res, 503, JSON.stringify({ error: `ERR near-region bridge: ${String(error)}` })),
    );
  });

  let spans: RequestSpan[] | undefined;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = performance.now();
    const path = pathOf(req.url ?? "/");
    if (path === STATS_PATH && req.method === "GET" && req.headers.authorization === `Bearer ${token}`) return respond(res, 200, JSON.stringify(stats));
    countRequest(stats, path, req);
    const body = await readBody(req);
    let wanted: SyncPoint | undefined;
    try {
      wanted = parseSyncToken(req.headers[SYNC_TOKEN_HEADER]);
    } catch (error) {
      if (!(error instanceof MalformedSyncTokenError)) throw error;
      return respond(res, 400, JSON.stringify({ error: `ERR ${error.message}` }));
    }
    const commands = req.method === "POST" ? commandsOf(path, body) : undefined;
    const route: Route = commands ? routeOf(commands) : "replica";
    stats.commands += commands?.length ?? 0;

    if (route === "primary") {
      stats.primary += 1;
      if (spans) {
        const span: RequestSpan = { start: arrivedAt, end: Number.NaN, commands: commandNames(commands!) };
        spans.push(span);
        res.once("finish", () => (span.end = performance.now()));
      }
      await sleep(oneWay);
      const answer = await forward(primaryBridgeUrl, req, body);
      // Scripts are not replicated (Redis 7): a read region has the ones loaded through it.
      for (const command of commands!) if (isScriptLoad(command)) await replica.call("SCRIPT", "LOAD", String(command[2])).catch(() => {});
      const point = await primaryPoint();
      await sleep(oneWay);
      return respond(res, answer.status, answer.body, formatSyncToken(point));
    }

    stats.replica += 1;
    const reached = await replicaReaching(wanted);
    if (!reached) {
      stats.tokenTimeouts += 1;
      const at = await replicaPoint();
      return respond(
        res,
        503,
        JSON.stringify({
          error: `ERR ${SYNC_TOKEN_HEADER} not reached: this read region's replica is at offset ${at.offset} of the primary's replication stream, the token asks for ${wanted!.offset}; gave up after ${syncTimeoutMs} ms`,
        }),
        formatSyncToken(wanted!),
      );
    }
    if (reached.waited) stats.waitedForToken += 1;
    const answer = await forward(replicaBridgeUrl, req, body);
    // The answer reflects at least the replica's point before it ran, and the client replaces its
    // token with this one: never lower than what the request sent.
    const point = wanted && wanted.replid === reached.point.replid && wanted.offset > reached.point.offset ? wanted : reached.point;
    return respond(res, answer.status, answer.body, formatSyncToken(point));
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${actualPort}`,
    token,
    port: actualPort,
    stats,
    resetStats: () => Object.assign(stats, emptyStats()),
    trace() {
      const recorded: RequestSpan[] = (spans = []);
      return () => {
        if (spans === recorded) spans = undefined;
        return recorded;
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      replica.disconnect();
      primary.disconnect();
    },
  };
}

function emptyStats(): NearRegionBridgeStats {
  return { ...emptyBridgeStats(), replica: 0, primary: 0, waitedForToken: 0, tokenTimeouts: 0 };
}

function infoConnection(url: string): RedisConnection {
  const connection = new RedisConnection(url, { maxRetriesPerRequest: 1, retryStrategy: (attempt) => Math.min(50 * attempt, 500) });
  connection.on("error", () => {});
  return connection;
}

/** The commands of a request on the bridge's endpoints; undefined when the body is not one (the bridge refuses it). */
function commandsOf(path: string, body: Buffer): unknown[][] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  if (path === "/") return [parsed];
  if ((path === "/pipeline" || path === "/multi-exec") && parsed.every(Array.isArray)) return parsed as unknown[][];
  return undefined;
}

function isScriptLoad(command: unknown[]): boolean {
  return String(command[0]).toUpperCase() === "SCRIPT" && String(command[1]).toUpperCase() === "LOAD" && command.length === 3;
}

/** The same request to a bridge: what the two bridges need of it (auth, encoding), body as it came. */
async function forward(baseUrl: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = {};
  for (const name of ["authorization", "content-type", "upstash-encoding"]) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const response = await fetch(new URL(req.url ?? "/", baseUrl), {
    method: req.method,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
  });
  return { status: response.status, body: await response.text() };
}

class BodyTooLargeError extends Error {}

/** The body, up to the bridge's (Upstash's) size limit; past it the request is refused, read no further. */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError("request body exceeds 10 MB");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function respond(res: ServerResponse, status: number, body: string, syncToken?: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...(syncToken ? { [SYNC_TOKEN_HEADER]: syncToken } : {}) });
  res.end(body);
}
