/**
 * Shared benchmark harness: a fresh local stack, the Worker bundled exactly as `wrangler deploy`
 * would ship it and run in workerd through Miniflare's API (wrangler dev's Node proxy would cap
 * throughput and measure itself), a closed-loop load generator, and Redis command accounting.
 *
 * Benchmarks report ratios against a baseline run side by side in the same process: the machine
 * is shared and noisy, absolute numbers are only indicative.
 */
import { Worker } from "node:worker_threads";
import { readFileSync, readdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { Redis as IORedis } from "ioredis";
import pg from "pg";
import type { Miniflare } from "miniflare";
import { sign } from "hono/jwt";
import { startStack, type Stack } from "../stack/index.js";
import { startWorkerd } from "../stack/workerd.js";

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";

export interface BenchWorker {
  /** Base URL of the Worker (http://127.0.0.1:PORT). */
  url: string;
  stack: Stack;
  mf: Miniflare;
  /** A JWT for `sub` with `role`, valid for an hour. */
  token(sub: string, role?: "user" | "service" | "admin"): Promise<string>;
  /** Fires a cron job now (same handler the cron trigger runs). */
  scheduled(cron: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The Worker every benchmark serves: the production app plus the baselines it is compared with
 * (`scripts/bench/worker.ts`); the deployed Worker is bundled from wrangler.toml's `main` alone.
 */
export const BENCH_ENTRY = "scripts/bench/worker.ts";

/**
 * Starts a fresh stack and the bench entry in workerd. Rate limiters are left unbound (the
 * middleware fails open) so the load generator measures the handlers, not the limiter.
 */
export async function startBenchWorker(
  options: {
    vars?: Record<string, string>;
    log?: (line: string) => void;
    /** Each line the Worker writes to stdout (its JSON request and queue log lines). */
    onWorkerLog?: (line: string) => void;
    /** Redis databases of the stack (default `BENCH_REDIS_DATABASES`, else 1). */
    redisDatabases?: number;
    /** Each database's command budget per second (default `BENCH_MAX_COMMANDS_PER_SECOND`, else none). */
    maxCommandsPerSecond?: number;
    /** The Worker R ms (round trip) from the primary region (default `BENCH_FAR_REGION_MS`, else none). */
    farRegionMs?: number;
    /**
     * Point the Worker's push providers at the stack's local push services (their credentials,
     * `FCM_API_URL`, `APNS_API_URL`) with `ENVIRONMENT=development`, so that the `http://localhost`
     * endpoints of web-push-testing register. Off: no provider is configured.
     */
    push?: boolean;
    /** With `farRegionMs`: each replica's extra replication lag, each way (the stack's `farReplicationLagMs`). */
    farReplicationLagMs?: number;
  } = {},
): Promise<BenchWorker> {
  const log = options.log ?? (() => {});
  // BENCH_REDIS_DATABASES=N (or `redisDatabases`) runs a bench over N Redis databases (each its
  // own redis-server and bridge), BENCH_MAX_COMMANDS_PER_SECOND=C caps each (docs/scale.md).
  // Billed commands and requests are summed over every database (`redisCommandStats(stack)`,
  // `bridgeRequests(stack)`), so a figure at N = 3 compares with N = 1.
  const stack = await startStack({
    mode: "test",
    log,
    redisDatabases: options.redisDatabases ?? Number(process.env.BENCH_REDIS_DATABASES ?? 1),
    maxCommandsPerSecond:
      options.maxCommandsPerSecond ?? (process.env.BENCH_MAX_COMMANDS_PER_SECOND ? Number(process.env.BENCH_MAX_COMMANDS_PER_SECOND) : undefined),
    farRegionMs: options.farRegionMs ?? (process.env.BENCH_FAR_REGION_MS ? Number(process.env.BENCH_FAR_REGION_MS) : undefined),
    farReplicationLagMs: options.farReplicationLagMs,
  });
  try {
    return await serveWorker(stack, options, true);
  } catch (err) {
    // A failed bundle or Miniflare start must not leave the stack's Postgres and Redis running.
    await stack.stop();
    throw err;
  }
}

/**
 * How long each phase of a bench pass took: `phase(name)` closes the phase that began at `from`
 * (or at the previous call), `text()` lists them ("stack 5.9 s, seed 24.1 s, …").
 */
export function phaseTimer(from = performance.now()) {
  const phases: string[] = [];
  let start = from;
  return {
    phase(name: string) {
      phases.push(`${name} ${((performance.now() - start) / 1000).toFixed(1)} s`);
      start = performance.now();
    },
    text: () => phases.join(", "),
  };
}

/** Progress lines of a benchmark, printed with BENCH_DEBUG set. */
export const benchLog = (line: string) => {
  if (process.env.BENCH_DEBUG) console.error(line);
};

/**
 * `startBenchWorker` plus what every benchmark seeds and counts with: a direct Redis client and a
 * Postgres client on the same stack. `close` ends all three (call it in a `finally`).
 */
export async function startBenchWithClients(options: Parameters<typeof startBenchWorker>[0] = {}) {
  const bench = await startBenchWorker({ log: benchLog, ...options });
  const redis = new IORedis(bench.stack.redisUrl);
  const db = new pg.Client({ connectionString: bench.stack.databaseUrl });
  const close = async () => {
    redis.disconnect();
    await db.end().catch(() => {});
    await bench.stop();
  };
  try {
    await db.connect();
  } catch (err) {
    await close();
    throw err;
  }
  return { bench, redis, db, close };
}

/**
 * Another Worker on a stack already running (`startBenchWorker(…).stack`), e.g. the same data seen
 * through other bindings (`vars` replace the stack's Redis bindings): its `stop` stops only it.
 */
export function startBenchWorkerOn(stack: Stack, options: Parameters<typeof startBenchWorker>[0] = {}): Promise<BenchWorker> {
  return serveWorker(stack, options, false);
}

async function serveWorker(stack: Stack, options: Parameters<typeof startBenchWorker>[0] & {}, ownsStack: boolean): Promise<BenchWorker> {
  const jwtSecret = randomBytes(32).toString("hex");
  let rest = "";
  const worker = await startWorkerd({
    entry: BENCH_ENTRY,
    vars: {
      ...stack.redisBindings,
      DATABASE_URL: stack.databaseUrl,
      NEON_WS_PROXY: stack.wsProxy,
      NEON_HTTP_PROXY: stack.httpProxy,
      JWT_SECRET: jwtSecret,
      ENVIRONMENT: "bench",
      // The Worker's log level (wrangler.toml's `info` unless BENCH_LOG_LEVEL says otherwise);
      // a bench that reads the Worker's lines gets them whatever it says.
      ...(options.onWorkerLog ? { LOG_LEVEL: "info" } : process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}),
      ...(options.push ? { ...stack.push.vars, ENVIRONMENT: "development" } : {}),
      ...options.vars,
    },
    // Serve the Worker on its own socket, as Cloudflare's edge hands requests straight to the
    // isolate: Miniflare's default entry worker adds a second hop through workerd per request.
    socket: "direct",
    rateLimiters: false,
    // Stopped below on SIGINT/SIGTERM together with the stack (Miniflare's hook would exit first).
    callerHandlesSignals: true,
    // BENCH_INSPECT_PORT=9229 opens the V8 inspector of the Worker (CPU profiles of a run).
    inspectorPort: process.env.BENCH_INSPECT_PORT ? Number(process.env.BENCH_INSPECT_PORT) : undefined,
    // The Worker logs one JSON line per request; it is drained so logging is paid for without
    // flooding the benchmark's output. Locally that includes this process reading every line on
    // the same cores: BENCH_LOG_LEVEL=warn shows the hot paths without it (docs/development.md, Benchmarks).
    onOutput: (chunk, stream) => {
      if (stream === "stderr") {
        if (process.env.BENCH_DEBUG) process.stderr.write(chunk);
      } else if (options.onWorkerLog) {
        const lines = (rest + chunk.toString("utf8")).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) options.onWorkerLog(line);
      }
    },
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      await worker.stop();
      if (ownsStack) await stack.stop();
    })());
  // Ctrl-C or a SIGTERM mid-run: stop workerd and the stack (Postgres, Redis, temp dirs) before
  // exiting, so an interrupted benchmark leaves no server or temp dir behind. A second one exits at once.
  let signalled = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signalled > 1) process.exit(signal === "SIGINT" ? 130 : 143);
    console.error(`\n[bench] ${signal}: stopping the Worker and the stack…`);
    void stop().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  if (ownsStack) for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  else {
    // A Worker on another's stack stops with it (a signal included), before its servers go.
    const stopStack = stack.stop;
    stack.stop = async () => {
      await stop();
      await stopStack();
    };
  }
  return {
    url: worker.url,
    stack,
    mf: worker.mf,
    token: (sub, role = "user") => sign({ sub, role, exp: Math.floor(Date.now() / 1000) + 3600 }, jwtSecret, "HS256"),
    scheduled: worker.scheduled,
    stop,
  };
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export interface LoadRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Label for per-scenario figures (`LoadResult.byScenario`). */
  scenario?: string;
  /**
   * A WebSocket session instead of an HTTP request: connect to `path`, send `send` (if any), wait
   * for the first message, close. Its latency is the whole session (join and leave).
   */
  webSocket?: {
    send?: string;
    /**
     * Sent over HTTP once the first message arrived; the session then waits for the next message
     * (a push the request caused) before it closes. Its latency is the whole session.
     */
    then?: { method: string; path: string; headers?: Record<string, string>; body?: string };
  };
}

export interface LoadStats {
  requests: number;
  errors: number;
  /** Status codes of failed requests (non-2xx; `network` when no answer came), for the report. */
  errorStatuses: Record<string, number>;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

export interface LoadResult extends LoadStats {
  elapsedMs: number;
  /** Every successful request's latency, ascending (pooling runs: `combineLoads`). */
  latenciesMs: number[];
  /** The same figures per `LoadRequest.scenario` (requests without one count under ""). */
  byScenario: Record<string, LoadStats>;
}

export interface LoadProgress {
  requests: number;
  errors: number;
  elapsedMs: number;
}

/** Requests handed to the client thread at a time: enough to keep 64 clients busy between refills. */
const REQUEST_CHUNK = 256;

/**
 * Closed-loop load: `concurrency` clients each send the next request as soon as the previous one
 * answered, until `durationMs` passes or `total` requests were sent.
 *
 * The clients run in a worker thread: the Upstash bridge and the Neon proxy live on this process'
 * main thread, and clients sharing its event loop would slow them down — unlike production, where
 * Upstash and Neon are other machines. `request(i)` runs here, in order, in chunks the thread asks
 * for as it runs low, so it may close over anything (at most one chunk is built and not sent).
 * `onProgress` is called about once a second with the running totals.
 */
export async function runLoad(options: {
  baseUrl: string;
  concurrency: number;
  durationMs?: number;
  total?: number;
  request: (i: number) => LoadRequest;
  onProgress?: (progress: LoadProgress) => void;
  /**
   * A regular expression (source) tested on each 2xx HTTP answer's body: a match counts the
   * request as failed with status "degraded" (e.g. `"(degraded|stale)":true`, what the API answers
   * when Redis refused or was away). Bodies are not read as text without it.
   */
  degradedPattern?: string;
  /**
   * `[min, max]` ms: a client whose request failed waits a random time in between before its next
   * one, as an SDK backs off after a refusal. Without it (the default) clients go on at once: a
   * capped database would then be hammered by refused requests that only cost CPU.
   */
  errorBackoffMs?: [number, number];
  /**
   * A failed request is sent again (after the back-off) until it succeeds or the run ends, as an
   * app retries a screen's call: every request of the sequence is then served once, so the mix
   * served is the same whatever fails. Each attempt is recorded (its failures count as errors).
   */
  retryFailed?: boolean;
}): Promise<LoadResult> {
  const { baseUrl, concurrency, durationMs = 5_000, total = Number.POSITIVE_INFINITY, request, onProgress, degradedPattern, errorBackoffMs, retryFailed = false } = options;
  let built = 0;
  const nextChunk = () => {
    const chunk = [];
    for (; built < total && chunk.length < REQUEST_CHUNK; built++) {
      const req = request(built);
      chunk.push({
        path: req.path,
        method: req.method ?? "GET",
        // Compression happens at Cloudflare's edge, outside the Worker's CPU; locally workerd would
        // gzip every small JSON answer itself and the clients would inflate it.
        headers: { "accept-encoding": "identity", ...(req.body === undefined ? {} : { "content-type": "application/json" }), ...req.headers },
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        scenario: req.scenario ?? "",
        webSocket: req.webSocket,
      });
    }
    return chunk;
  };
  const worker = new Worker(LOAD_WORKER_SOURCE, { eval: true, env: process.env, workerData: { origin: baseUrl, first: nextChunk(), concurrency, durationMs, degradedPattern, errorBackoffMs, retryFailed } });
  const { latencies, elapsedMs } = await new Promise<{
    latencies: Record<string, { ms: Float64Array; errors: number; errorStatuses: Record<string, number> }>;
    elapsedMs: number;
  }>((resolve, reject) => {
    worker.on("message", (message: { need?: true; progress?: LoadProgress; done?: true }) => {
      if (message.need) worker.postMessage(nextChunk());
      else if (message.progress) onProgress?.(message.progress);
      else resolve(message as never);
    });
    worker.once("error", reject);
  });
  await worker.terminate();
  const statsOf = (ms: number[], errors: number, errorStatuses: Record<string, number>): LoadStats => {
    const sorted = ms.sort((a, b) => a - b);
    return {
      requests: sorted.length,
      errors,
      errorStatuses,
      rps: sorted.length / (elapsedMs / 1000),
      p50Ms: percentile(sorted, 0.5),
      p90Ms: percentile(sorted, 0.9),
      p99Ms: percentile(sorted, 0.99),
    };
  };
  const byScenario: Record<string, LoadStats> = {};
  const all: number[] = [];
  const allStatuses: Record<string, number> = {};
  let allErrors = 0;
  for (const [scenario, { ms, errors, errorStatuses }] of Object.entries(latencies)) {
    byScenario[scenario] = statsOf(Array.from(ms), errors, errorStatuses);
    for (const value of ms) all.push(value);
    allErrors += errors;
    for (const [status, n] of Object.entries(errorStatuses)) allStatuses[status] = (allStatuses[status] ?? 0) + n;
  }
  return { ...statsOf(all, allErrors, allStatuses), elapsedMs, latenciesMs: all, byScenario };
}

/**
 * The warm-up every measured page gets, at N = 1 and N = 3 alike: `readers` pages (`request(i)`),
 * pass after pass, until a pass is warm — no Postgres statement and at most 1.1 Redis requests a
 * page (timelines built, caches filled after the answers landed; at N > 1 the isolate's copies
 * hold the pages' posts, a copy coming due now and then allowed). At most 20 passes; the passes
 * taken are printed.
 */
export async function warmUp(
  bench: Pick<BenchWorker, "url" | "stack">,
  name: string,
  readers: number,
  concurrency: number,
  request: (i: number) => LoadRequest,
  /** Redis requests a page of a warm pass may take (a call that is warm at more than one). */
  { perPage = 1.1 } = {},
): Promise<void> {
  const statementsSoFar = () => postgresStatements(bench.stack);
  for (let pass = 1; ; pass++) {
    const [statements, requests] = [statementsSoFar(), bridgeRequests(bench.stack)];
    const done = await runLoad({ baseUrl: bench.url, concurrency, total: readers, request });
    await new Promise((r) => setTimeout(r, 100)); // what the pages write after their answers lands in this pass
    const requestsPerPage = (bridgeRequests(bench.stack) - requests) / readers;
    if ((done.errors === 0 && statementsSoFar() === statements && requestsPerPage <= perPage) || pass === 20) {
      console.log(`warm-up, ${name}: ${pass} passes of ${readers} pages (last: ${requestsPerPage.toFixed(2)} Redis requests a page)`);
      return;
    }
  }
}

/**
 * Several runs of one scenario pooled as one: requests and time add up, percentiles come from
 * every latency. Benchmarks that compare two scenarios run them in alternating slices and pool
 * each side, so a burst of noise on the shared machine hits both sides alike.
 */
export function combineLoads(parts: LoadResult[]): LoadResult {
  const latenciesMs = parts.flatMap((p) => p.latenciesMs).sort((a, b) => a - b);
  const elapsedMs = parts.reduce((sum, p) => sum + p.elapsedMs, 0);
  const errorStatuses: Record<string, number> = {};
  for (const part of parts) for (const [status, n] of Object.entries(part.errorStatuses)) errorStatuses[status] = (errorStatuses[status] ?? 0) + n;
  return {
    requests: latenciesMs.length,
    errors: parts.reduce((sum, p) => sum + p.errors, 0),
    errorStatuses,
    rps: latenciesMs.length / (elapsedMs / 1000),
    p50Ms: percentile(latenciesMs, 0.5),
    p90Ms: percentile(latenciesMs, 0.9),
    p99Ms: percentile(latenciesMs, 0.99),
    elapsedMs,
    latenciesMs,
    byScenario: {},
  };
}

/** The clients' loop, run in a worker thread (plain JavaScript: no loader needed there). */
const LOAD_WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { performance } = require("node:perf_hooks");
// undici's Pool rather than fetch: the WHATWG wrapper costs the clients several times the CPU,
// and on this 2-core machine the clients' CPU is taken from the services being measured.
const { Pool } = require("undici");
const WebSocket = require("ws");
const { origin, first, concurrency, durationMs, degradedPattern, errorBackoffMs, retryFailed } = workerData;
const degraded = degradedPattern ? new RegExp(degradedPattern) : null;
const pool = new Pool(origin, { connections: concurrency });
const wsOrigin = origin.replace(/^http/, "ws");
/** A WebSocket session that shows no message within this time counts as failed (status "timeout"). */
const WS_TIMEOUT_MS = 10000;
const queue = first.slice();
let exhausted = first.length === 0, refill = null;
function askForMore() {
  if (!refill && !exhausted) {
    refill = new Promise((resolve) => parentPort.once("message", (chunk) => {
      if (chunk.length === 0) exhausted = true;
      queue.push(...chunk);
      refill = null;
      resolve();
    }));
    parentPort.postMessage({ need: true });
  }
  return refill;
}
/** Resolves to null when the session went as planned, else to the status to report. */
function webSocketSession(req) {
  return new Promise((resolve) => {
    let outcome = null, settled = false;
    const ws = new WebSocket(wsOrigin + req.path, { headers: req.headers, perMessageDeflate: false });
    const finish = (status) => { if (!settled) { settled = true; clearTimeout(timer); resolve(status); } };
    const timer = setTimeout(() => { outcome = "timeout"; ws.terminate(); finish("timeout"); }, WS_TIMEOUT_MS);
    ws.on("unexpected-response", (_, res) => { res.resume(); ws.terminate(); finish(String(res.statusCode)); });
    ws.on("open", () => { if (req.webSocket.send !== undefined) ws.send(req.webSocket.send); else ws.close(1000); });
    let triggered = false;
    ws.on("message", () => {
      const then = req.webSocket.then;
      if (!then || triggered) return void ws.close(1000);
      triggered = true;
      pool.request({ path: then.path, method: then.method, headers: then.headers, body: then.body }).then(
        (res) => res.body.arrayBuffer().then(() => { if (res.statusCode >= 300) { outcome = String(res.statusCode); ws.close(1000); } }),
        () => { outcome = "network"; ws.close(1000); },
      );
    });
    ws.on("close", () => finish(outcome));
    ws.on("error", () => finish("network"));
  });
}
const byScenario = {};
let requests = 0, errors = 0;
function record(scenario, ms, status) {
  const s = byScenario[scenario] || (byScenario[scenario] = { ms: [], errors: 0, errorStatuses: {} });
  s.ms.push(ms);
  requests++;
  if (status !== null) { s.errors++; errors++; s.errorStatuses[status] = (s.errorStatuses[status] || 0) + 1; }
}
const started = performance.now();
const deadline = started + durationMs;
const progress = setInterval(() => parentPort.postMessage({ progress: { requests, errors, elapsedMs: performance.now() - started } }), 1000);
async function client() {
  while (performance.now() < deadline) {
    if (queue.length < concurrency) askForMore();
    if (queue.length === 0) {
      if (exhausted) return;
      await askForMore();
      continue;
    }
    const req = queue.shift();
    for (;;) {
      const status = await send(req);
      if (status === null) break;
      if (errorBackoffMs) {
        const [min, max] = errorBackoffMs;
        await new Promise((resolve) => setTimeout(resolve, Math.min(min + Math.random() * (max - min), Math.max(0, deadline - performance.now()))));
      }
      if (!retryFailed || performance.now() >= deadline) break;
    }
  }
}
/** Sends one request (or WebSocket session) and records it; resolves to its failure status or null. */
async function send(req) {
  const sentAt = performance.now();
  let status = null;
  try {
    if (req.webSocket) status = await webSocketSession(req);
    else {
      const res = await pool.request({ path: req.path, method: req.method, headers: req.headers, body: req.body });
      if (res.statusCode >= 300) status = String(res.statusCode);
      if (degraded && status === null) {
        if (degraded.test(await res.body.text())) status = "degraded";
      } else await res.body.arrayBuffer();
    }
  } catch {
    status = "network";
  }
  record(req.scenario, performance.now() - sentAt, status);
  return status;
}
Promise.all(Array.from({ length: concurrency }, client)).then(() => {
  clearInterval(progress);
  pool.close();
  const latencies = {};
  for (const [name, s] of Object.entries(byScenario)) latencies[name] = { ms: Float64Array.from(s.ms), errors: s.errors, errorStatuses: s.errorStatuses };
  parentPort.postMessage({ done: true, latencies, elapsedMs: performance.now() - started });
});
`;

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/**
 * Calls per Redis command since server start, from `INFO commandstats` — what Upstash bills
 * (every command, including those a script runs), counted by Redis itself. Given a stack, summed
 * over all its databases (what an account of N databases is billed); given a URL, that one only.
 */
export async function redisCommandStats(target: string | Pick<Stack, "databases">): Promise<Map<string, number>> {
  if (typeof target !== "string") {
    const calls = new Map<string, number>();
    for (const one of await Promise.all(target.databases.map((d) => redisCommandStats(d.redisUrl)))) {
      for (const [command, n] of one) calls.set(command, (calls.get(command) ?? 0) + n);
    }
    return calls;
  }
  const redis = new IORedis(target, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const info = await redis.info("commandstats");
    const calls = new Map<string, number>();
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1]!, Number(match[2]));
    return calls;
  } finally {
    redis.disconnect();
  }
}

/**
 * Loads every Lua script of the Worker (each string exported by a `.lua.ts` module under `src/`) into every
 * database's primary, as in a deployment that has run a while: a script's first use on a database
 * otherwise costs a refused EVALSHA and an EVAL, a round the call would not pay again.
 */
export async function loadEveryScript(stack: Pick<Stack, "databases">): Promise<number> {
  const root = new URL("../../src/", import.meta.url);
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".lua.ts"));
  const sources = new Set<string>();
  for (const file of files) {
    for (const value of Object.values(await import(new URL(file, root).href))) if (typeof value === "string" && value.includes("redis.call")) sources.add(value);
  }
  await Promise.all(
    stack.databases.map(async (d) => {
      const redis = new IORedis(d.redisUrl);
      try {
        for (const source of sources) await redis.script("LOAD", source);
      } finally {
        redis.disconnect();
      }
    }),
  );
  return sources.size;
}

/**
 * HTTP requests the stack's Upstash bridges received since their start (or last reset), summed over
 * every database. Parallel requests to several databases count one each (they are one round).
 */
export function bridgeRequests(stack: Pick<Stack, "databases">): number {
  return stack.databases.reduce((sum, d) => sum + d.bridge.stats.requests, 0);
}

/** Postgres statements the stack ran for the Worker so far: over Neon's HTTP endpoint and through its WebSocket proxy. */
export function postgresStatements(stack: Pick<Stack, "proxy" | "httpSql">): number {
  return stack.proxy.stats.statements + stack.httpSql.stats.statements;
}

/**
 * Waits until the bridges received nothing for `stillMs` (at most `timeoutMs`): what earlier calls
 * left to run after their answers (queued fan-outs, syncs, `waitUntil` writes) has landed, so a
 * call measured next is alone on them.
 */
export async function quiet(stack: Pick<Stack, "databases">, { stillMs = 300, timeoutMs = 15_000 } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = bridgeRequests(stack);
  let stillSince = Date.now();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = bridgeRequests(stack);
    if (now !== last) [last, stillSince] = [now, Date.now()];
    else if (Date.now() - stillSince >= stillMs) return;
  }
  console.warn("  (the bridges did not go quiet: counts may include other work)");
}

/** Resets every database's bridge counters (`bridgeRequests` starts again from 0). */
export function resetBridgeStats(stack: Pick<Stack, "databases">): void {
  for (const d of stack.databases) d.bridge.resetStats();
}

/**
 * Billed commands between two `redisCommandStats` snapshots. EVALSHA/EVAL count as one each plus
 * whatever the script ran; `info` and the stats calls themselves are excluded.
 */
export function billedCommandsBetween(before: Map<string, number>, after: Map<string, number>): { total: number; byCommand: Record<string, number> } {
  const byCommand: Record<string, number> = {};
  let total = 0;
  for (const [command, calls] of after) {
    if (command === "info") continue;
    const delta = calls - (before.get(command) ?? 0);
    if (delta > 0) {
      byCommand[command] = delta;
      total += delta;
    }
  }
  return { total, byCommand };
}

/** The workerd process Miniflare started (a descendant of this one). */
export function workerdPid(): number {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  const found = [...names].filter(([pid, name]) => name === "workerd" && mine(pid)).map(([pid]) => pid);
  if (found.length !== 1) throw new Error(`expected one workerd under this process, found ${found.length}`);
  return found[0]!;
}

/** CPU time the process has used so far (utime + stime), in clock ticks: 100 per second. */
export const cpuTicks = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100 per second)
};
/** The process' resident memory now, in bytes. */
export const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

/** Prints rows as an aligned text table. */
export function printTable(rows: Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (v: string | number | undefined) => (typeof v === "number" ? formatNumber(v) : (v ?? ""));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(cell(r[c])).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join("  ");
  console.log(line(columns));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(columns.map((c) => String(cell(row[c])))));
}

export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** `--databases 1,3` (or `--databases=1,3`; default `fallback`): the N each pass of a bench runs at, in order. */
export function databasesOption(argv: string[], fallback = "1,3"): number[] {
  const at = argv.indexOf("--databases");
  const raw = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith("--databases="))?.slice("--databases=".length);
  const list = (raw ?? fallback).split(",").map(Number);
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1 || n > 16)) throw new Error(`--databases must be a list of 1–16, not ${raw}`);
  return list;
}

/**
 * Runs `benchAt` once per N of `--databases` (each on its own fresh stack) and prints one RESULT
 * line: N = 1's keys as they always were, other N's with an `_n{N}` suffix.
 */
export async function runAtDatabases(benchAt: (databases: number) => Promise<Record<string, string | number>>): Promise<void> {
  const results: string[] = [];
  for (const n of databasesOption(process.argv.slice(2))) {
    console.log(`\n── N = ${n} Redis database${n === 1 ? "" : "s"} ──`);
    const keys = await benchAt(n);
    results.push(...Object.entries(keys).map(([key, value]) => `${key}${n === 1 ? "" : `_n${n}`}=${value}`));
  }
  console.log(`RESULT ${results.join(" ")}`);
}
