/**
 * A local stand-in for Upstash Redis: an HTTP server that speaks the Upstash
 * REST protocol (upstash/redis-js `pkg/http.ts`, upstash/docs `restapi.mdx`)
 * in front of a real Redis, so the unmodified `@upstash/redis` client works
 * against it exactly as in production.
 *
 * @example
 * const bridge = await startUpstashBridge({ redisUrl: "redis://127.0.0.1:6379", token: "t" });
 * const redis = new Redis({ url: bridge.url, token: bridge.token });
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { Redis as RedisConnection, ReplyError } from "ioredis";

export interface BridgeStats {
  /** HTTP requests that arrived, whatever their outcome. */
  requests: number;
  /** Redis commands carried by those requests (a pipeline of 5 counts 5). */
  commands: number;
  /** Requests per endpoint: one request is one Redis round trip. */
  byPath: { "/": number; "/pipeline": number; "/multi-exec": number };
  /** The last SYNC_TOKENS_KEPT non-empty `upstash-sync-token` values requests carried, oldest first. */
  syncTokens: string[];
  /** Requests that touched only `upkeepKeys`, and their commands: counted here, not above. */
  upkeep: { requests: number; commands: number };
}

export interface UpstashBridge {
  /** Base URL for `UPSTASH_REDIS_REST_URL`, e.g. `http://127.0.0.1:41234`. */
  url: string;
  token: string;
  port: number;
  /** Live counters; read them after the requests you want to count. */
  readonly stats: BridgeStats;
  /** Requests refused past the command budget (`maxCommandsPerSecond`), as Upstash refuses them. */
  readonly rateLimited: number;
  resetStats(): void;
  /**
   * Starts recording when each request arrived and when its answer was sent (`performance.now()`
   * of this process, so the bridges of one stack share a clock); the returned function stops and
   * answers them. How benches count a call's rounds of parallel requests from outside.
   */
  trace(): () => RequestSpan[];
  /** Changes the command budget (`maxCommandsPerSecond`; undefined: none) from the next request on. */
  setMaxCommandsPerSecond(limit: number | undefined): void;
  /** Simulates an Upstash outage: every request answers 503 until `setDown(false)`. */
  setDown(down: boolean): void;
  /**
   * The next `count` requests run on Redis, then lose their answer as when the server or the link
   * died after running them: `503` answers what the bridge answers when its connection to Redis
   * closed under a command (`redis unavailable: Connection is closed.`), `drop` closes the client's
   * connection without an answer (the client's fetch fails). What a client cannot tell from a
   * request that never ran.
   */
  loseAnswers(count: number, how: LostAnswer): void;
  /** Resolves once the Redis connection is (again) ready, e.g. after Redis restarted. */
  waitUntilConnected(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** How `loseAnswers` loses an answer: a 503 after the command ran, or the connection dropped. */
export type LostAnswer = "503" | "drop";

/** One request as a bridge saw it: arrival and answer, ms on this process' `performance.now()` clock. */
export interface RequestSpan {
  start: number;
  end: number;
  /** The names of its commands (`evalsha`, `get`…), once its body was read: what a round sent. */
  commands?: string[];
}

export interface UpstashBridgeOptions {
  redisUrl: string;
  token: string;
  host?: string;
  port?: number;
  /**
   * The database's command budget per second (`--max-commands-per-second`), like an Upstash plan's
   * limit: a request whose commands would take the current second past it is refused as Upstash
   * refuses it (400, `ERR max requests limit exceeded. Limit: C, Usage: U. …`) and runs nothing.
   * Every command of a request counts (a pipeline of 5 counts 5; a script counts 1). None by default.
   */
  maxCommandsPerSecond?: number;
  /**
   * How the budget counts (only with `maxCommandsPerSecond`):
   * - `request` (default): the commands a request names (a pipeline of 5 counts 5, a script 1),
   *   checked before it runs; right for a redis-server other clients share (the tests' chaos bridges);
   * - `server`: every command the redis-server runs, scripts' own commands included, as Upstash
   *   counts and bills them (INFO commandstats, read at most every METER_REFRESH_MS), taken from a
   *   bucket of C refilled at C per second; a request is refused while the bucket is empty (what
   *   ran past it is paid back, so the server averages at most C per second). Only for a redis-server this bridge alone
   *   uses (each database of a stack the stack started itself).
   */
  budgetMeter?: "request" | "server";
  /**
   * Keys whose requests are the Worker's upkeep, not any call's cost (the test stack passes its
   * isolates' admission copies, which refresh every couple of seconds in the background of
   * whichever request finds them due): a request whose every command's first key is one of them
   * is counted in `stats.upkeep` instead of `requests`, `commands` and `byPath`, so a test counting
   * what a call cost does not depend on the wall clock. Billing and budgets still count it.
   */
  upkeepKeys?: readonly string[];
}

/** A command's first key (a script's first KEYS entry), or undefined when it names none. */
export function firstKeyOf(command: readonly unknown[]): string | undefined {
  const name = String(command[0] ?? "").toLowerCase();
  if (/^eval(sha)?(_ro)?$/.test(name)) return Number(command[2]) > 0 ? String(command[3]) : undefined;
  return command.length > 1 ? String(command[1]) : undefined;
}

/** How stale the `server` meter's count may be (a request's commands land within it). */
const METER_REFRESH_MS = 20;

/** Commands a redis-server has run since it started, scripts' own included (INFO itself excluded). */
export function commandsRun(commandstats: string): number {
  let total = 0;
  for (const match of commandstats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (match[1] !== "info") total += Number(match[2]);
  return total;
}

/** Upstash's answer past a database's request limit (its wording, with the bridge's own figures). */
export function rateLimitAnswer(limit: number, usage: number): string {
  return `ERR max requests limit exceeded. Limit: ${limit}, Usage: ${usage}. See https://upstash.com/docs/redis/troubleshooting/max_requests_limit for details`;
}

/** `GET` with the bearer token: the bridge's `BridgeStats` as JSON (local tooling only). */
export const STATS_PATH = "/__bridge/stats";

/**
 * Upstash's read-your-writes header. Every answer carries one, as Upstash's do: `local:<n>`, n the
 * requests this bridge has answered (it only grows). A request sending one is answered at once: a
 * single server is always caught up with itself. The far-region stack's bridges give it meaning.
 */
export const SYNC_TOKEN_HEADER = "upstash-sync-token";
const SYNC_TOKENS_KEPT = 32;

/** Upstash's documented request size limit. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

type Arg = string | number | boolean;
type Command = [string, ...Arg[]];
type Reply = Buffer | string | number | null | Reply[] | Error;
type JsonReply = string | number | null | JsonReply[];

/** Errors that mean "Redis could not be asked", as opposed to "Redis said no". */
class RedisUnavailableError extends Error {}

class BadRequestError extends Error {}

export async function startUpstashBridge({
  redisUrl,
  token,
  host = "127.0.0.1",
  port = 0,
  maxCommandsPerSecond: initialBudget,
  budgetMeter = "request",
  upkeepKeys = [],
}: UpstashBridgeOptions): Promise<UpstashBridge> {
  const upkeep = new Set(upkeepKeys);
  /** Moves a request counted on arrival to `stats.upkeep` when all its commands touch upkeep keys. */
  const countedAsUpkeep = (path: string, commands: readonly Command[]): boolean => {
    if (upkeep.size === 0 || commands.length === 0 || !commands.every((c) => upkeep.has(firstKeyOf(c) ?? ""))) return false;
    stats.requests -= 1;
    if (path === "/" || path === "/pipeline" || path === "/multi-exec") stats.byPath[path] -= 1;
    stats.upkeep.requests += 1;
    stats.upkeep.commands += commands.length;
    return true;
  };
  let maxCommandsPerSecond = initialBudget;
  const redis = connectToRedis(redisUrl);
  const stats = emptyStats();
  let down = false;
  let lose: { count: number; how: LostAnswer } = { count: 0, how: "503" };
  // The budget's window: the current wall-clock second and the commands it has taken.
  let windowSecond = 0;
  let windowUsage = 0;
  let rateLimited = 0;
  let answered = 0; // the sync tokens' count: never reset, so they only grow
  let spans: RequestSpan[] | undefined;
  // The `server` meter: a bucket of C commands refilled at C per second, from which every command
  // the server ran is taken once read (so commands that ran past the budget, by requests admitted
  // while it was not yet reached, are paid back: over any run the server runs at most C per second
  // on average, however many requests are in flight).
  let serverTotal: number | undefined;
  let serverTokens = 0;
  let serverReadAt = 0;
  let serverReading: Promise<void> | undefined;
  async function readServerUsage(): Promise<void> {
    if (Date.now() - serverReadAt < METER_REFRESH_MS) return;
    serverReading ??= (async () => {
      try {
        const total = commandsRun(String(await redis.info("commandstats")));
        const now = Date.now();
        const limit = maxCommandsPerSecond ?? 0;
        // A smaller total than last read: the server was restarted (its count starts again at 0).
        if (serverTotal === undefined || total < serverTotal) serverTokens = limit;
        else serverTokens = Math.min(limit, serverTokens + ((now - serverReadAt) / 1000) * limit) - (total - serverTotal);
        serverTotal = total;
        serverReadAt = now;
        windowUsage = Math.max(0, Math.round(limit - serverTokens));
      } finally {
        serverReading = undefined;
      }
    })();
    await serverReading;
  }
  /** Takes `commands` from this second's budget; false (nothing taken) when they do not fit. */
  async function withinBudget(commands: number): Promise<boolean> {
    if (maxCommandsPerSecond === undefined) return true;
    if (budgetMeter === "server") {
      await readServerUsage();
      return serverTokens > 0;
    }
    const second = Math.floor(Date.now() / 1000);
    if (second !== windowSecond) [windowSecond, windowUsage] = [second, 0];
    if (windowUsage + commands > maxCommandsPerSecond) return false;
    windowUsage += commands;
    return true;
  }
  function refuse(res: ServerResponse): void {
    rateLimited += 1;
    respond(res, 400, { error: rateLimitAnswer(maxCommandsPerSecond!, windowUsage) });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      respond(res, 500, { error: `ERR bridge: ${String(error)}` });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req.url ?? "/");
    // Not Upstash's protocol: how `npm run load` counts the round trips of a running dev Worker.
    if (path === STATS_PATH && req.method === "GET" && req.headers.authorization === `Bearer ${token}`) {
      return respond(res, 200, stats);
    }
    countRequest(stats, path, req);
    const span: RequestSpan | undefined = spans ? { start: performance.now(), end: Number.NaN } : undefined;
    if (span) {
      spans!.push(span);
      res.once("finish", () => (span.end = performance.now()));
    }
    res.setHeader(SYNC_TOKEN_HEADER, `local:${++answered}`);

    if (down) return respond(res, 503, { error: "ERR upstash bridge is down (simulated outage)" });
    if (req.headers.authorization !== `Bearer ${token}`) {
      return respond(res, 401, { error: "Unauthorized" });
    }
    if (req.method !== "POST") return respond(res, 405, { error: "ERR only POST is supported" });

    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    const encode = (reply: Reply) => toJson(reply, base64);
    const lost = lose.count > 0 ? lose.how : undefined;
    if (lost) lose.count -= 1;
    // The answer of a request that ran, or its loss (`loseAnswers`).
    const answer = (res: ServerResponse, status: number, body: unknown): void => {
      if (lost === "drop") res.destroy();
      else if (lost === "503") respond(res, 503, { error: "ERR redis unavailable: Connection is closed." });
      else respond(res, status, body);
    };
    try {
      const body = await readJson(req);
      if (path === "/") {
        const command = asCommand(body);
        if (span) span.commands = commandNames([command]);
        if (!(await withinBudget(1))) return refuse(res);
        if (!countedAsUpkeep(path, [command])) stats.commands += 1;
        const reply = await runOne(command);
        if (reply instanceof Error) return answer(res, 400, { error: reply.message });
        return answer(res, 200, { result: encode(reply) });
      }
      if (path === "/pipeline" || path === "/multi-exec") {
        const commands = asCommandList(body);
        if (span) span.commands = commandNames(commands);
        if (!(await withinBudget(commands.length))) return refuse(res);
        if (!countedAsUpkeep(path, commands)) stats.commands += commands.length;
        const replies = path === "/pipeline" ? await runPipeline(commands) : await runMultiExec(commands);
        // A transaction discarded at queue time is one error, not a list.
        if (replies instanceof Error) return answer(res, 400, { error: replies.message });
        return answer(
          res,
          200,
          replies.map((reply) => (reply instanceof Error ? { error: reply.message } : { result: encode(reply) })),
        );
      }
      return answer(res, 404, { error: `ERR unknown endpoint ${path}` });
    } catch (error) {
      if (error instanceof BadRequestError) return answer(res, 400, { error: `ERR ${error.message}` });
      if (error instanceof RedisUnavailableError) return answer(res, 503, { error: `ERR ${error.message}` });
      throw error;
    }
  }

  // Command names are sent upper-case on purpose: ioredis keys its client-side reply
  // transformers by the exact name (e.g. "hgetall" → object), and the bridge must pass
  // Redis' raw reply through untouched.
  async function runOne([name, ...args]: Command): Promise<Reply> {
    try {
      return (await redis.callBuffer(name.toUpperCase(), ...args.map(toRedisArg))) as Reply;
    } catch (error) {
      return replyErrorOrThrow(error);
    }
  }

  async function runPipeline(commands: Command[]): Promise<Reply[]> {
    const pipeline = redis.pipeline();
    for (const [name, ...args] of commands) pipeline.callBuffer(name.toUpperCase(), ...args.map(toRedisArg));
    return settled(await execOrUnavailable(() => pipeline.exec()));
  }

  async function runMultiExec(commands: Command[]): Promise<Reply[] | Error> {
    // ioredis sends MULTI … EXEC back to back on the one connection, so no
    // other request's commands can land inside the transaction.
    const multi = redis.multi();
    for (const [name, ...args] of commands) multi.callBuffer(name.toUpperCase(), ...args.map(toRedisArg));
    try {
      return settled(await execOrUnavailable(() => multi.exec()));
    } catch (error) {
      if (error instanceof ReplyError) {
        // EXECABORT; the queue-time error that caused it is the useful message.
        const { message, previousErrors = [] } = error as Error & { previousErrors?: Error[] };
        return new Error(previousErrors[0]?.message ?? message);
      }
      throw error;
    }
  }

  // Without this the first requests after startup would race the connection and get 503s.
  await waitUntilConnected(redis, 5_000);
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
    get rateLimited() {
      return rateLimited;
    },
    resetStats() {
      Object.assign(stats, emptyStats());
    },
    setMaxCommandsPerSecond(limit: number | undefined) {
      maxCommandsPerSecond = limit;
      serverTotal = undefined; // the bucket starts full: what ran uncapped is not charged
      serverReadAt = 0;
    },
    trace() {
      const recorded: RequestSpan[] = (spans = []);
      return () => {
        if (spans === recorded) spans = undefined;
        return recorded;
      };
    },
    setDown(value: boolean) {
      down = value;
    },
    loseAnswers(count: number, how: LostAnswer) {
      lose = { count, how };
    },
    waitUntilConnected: (timeoutMs = 5_000) => waitUntilConnected(redis, timeoutMs),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}

/**
 * One shared connection, configured to fail fast: no offline queue (a request
 * while Redis is away errors at once instead of waiting), a short connect
 * timeout, and endless reconnects so the bridge heals when Redis returns.
 */
function connectToRedis(redisUrl: string): RedisConnection {
  const redis = new RedisConnection(redisUrl, {
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(50 * attempt, 500),
    lazyConnect: false,
  });
  // Without a listener ioredis prints every reconnect failure as unhandled.
  redis.on("error", () => {});
  return redis;
}

async function waitUntilConnected(redis: RedisConnection, timeoutMs: number): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      reject(new Error(`upstash bridge: redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once("ready", onReady);
  });
}

async function execOrUnavailable<T>(exec: () => Promise<T>): Promise<T> {
  try {
    return await exec();
  } catch (error) {
    if (error instanceof ReplyError) throw error;
    throw new RedisUnavailableError(`redis unavailable: ${(error as Error).message}`);
  }
}

function replyErrorOrThrow(error: unknown): Error {
  if (error instanceof ReplyError) return error as Error;
  throw new RedisUnavailableError(`redis unavailable: ${(error as Error).message}`);
}

/** ioredis answers pipelines as `[error, reply]` pairs; flatten to reply-or-error. */
function settled(results: [Error | null, unknown][] | null): Reply[] {
  if (!results) throw new RedisUnavailableError("redis unavailable: transaction aborted");
  return results.map(([error, reply]) => {
    if (!error) return reply as Reply;
    if (error instanceof ReplyError) return error as Error;
    throw new RedisUnavailableError(`redis unavailable: ${error.message}`);
  });
}

/**
 * Upstash's base64 encoding: every string in the result, nested arrays
 * included, is base64; integers and null stay as they are; "OK" stays plain.
 */
function toJson(reply: Reply, base64: boolean): JsonReply {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === "number") return reply;
  if (Array.isArray(reply)) return reply.map((item) => toJson(item, base64));
  if (reply instanceof Error) return reply.message; // an error nested in an EXEC reply
  const buffer = typeof reply === "string" ? Buffer.from(reply) : reply;
  if (!base64) return buffer.toString("utf8");
  return buffer.length === 2 && buffer.toString() === "OK" ? "OK" : buffer.toString("base64");
}

/** The client sends numbers and booleans as JSON; Redis wants strings. */
function toRedisArg(arg: Arg): string {
  return typeof arg === "string" ? arg : typeof arg === "object" ? JSON.stringify(arg) : String(arg);
}

function asCommand(value: unknown): Command {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    typeof value[0] !== "string" ||
    !value.every((arg) => ["string", "number", "boolean"].includes(typeof arg) || (typeof arg === "object" && arg !== null))
  ) {
    throw new BadRequestError("body must be a JSON array command like [\"GET\",\"key\"]");
  }
  return value as Command;
}

/** Each command's name in lower case (`evalsha`, `get`): what a traced request sent. */
export function commandNames(commands: readonly (readonly unknown[])[]): string[] {
  return commands.map((c) => String(c[0]).toLowerCase());
}

function asCommandList(value: unknown): Command[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new BadRequestError("body must be a non-empty 2-D JSON array of commands");
  }
  return value.map(asCommand);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BadRequestError("request body exceeds 10 MB");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new BadRequestError("body is not valid JSON");
  }
}

function respond(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** The endpoint a request URL names (`/`, `/pipeline`, …), trailing slashes and query left out. */
export function pathOf(url: string): string {
  return new URL(url, "http://bridge").pathname.replace(/\/+$/, "") || "/";
}

/** Counts a request in `stats` (by endpoint, with the sync token it carried): this bridge's and the near-region bridge's bookkeeping. */
export function countRequest(stats: BridgeStats, path: string, req: IncomingMessage): void {
  stats.requests += 1;
  if (path === "/" || path === "/pipeline" || path === "/multi-exec") stats.byPath[path] += 1;
  const syncToken = req.headers[SYNC_TOKEN_HEADER];
  if (typeof syncToken === "string" && syncToken !== "") {
    if (stats.syncTokens.push(syncToken) > SYNC_TOKENS_KEPT) stats.syncTokens.shift();
  }
}

export function emptyStats(): BridgeStats {
  return { requests: 0, commands: 0, byPath: { "/": 0, "/pipeline": 0, "/multi-exec": 0 }, syncTokens: [], upkeep: { requests: 0, commands: 0 } };
}
