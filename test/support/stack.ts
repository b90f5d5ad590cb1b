/**
 * Typed client for the test stack's control server, for tests running inside
 * workerd (they reach the stack only over fetch). The URL comes from the
 * `STACK_CONTROL_URL` binding that `vitest.config.ts` sets.
 *
 * @example
 * const chaos = await createChaos();
 * const env2 = { ...env, UPSTASH_REDIS_REST_URL: chaos.restUrl, UPSTASH_REDIS_REST_TOKEN: chaos.restToken };
 * await chaos.setRedisDown(true);
 * // … exercise the degraded path …
 * await chaos.close();
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll } from "vitest";

export interface BridgeStats {
  requests: number;
  commands: number;
  byPath: { "/": number; "/pipeline": number; "/multi-exec": number };
  /** The last 32 non-empty `upstash-sync-token` values requests carried, oldest first. */
  syncTokens: string[];
  /** Requests (and their commands) that only refreshed an isolate's admission copies: not counted above (scripts/stack/upkeep-keys.ts). */
  upkeep: { requests: number; commands: number };
}

/** What reached a chaos pair's Neon proxies: WebSocket connections and statements, HTTP requests and statements. */
export interface PostgresStats {
  ws: { connections: number; statements: number };
  /** `recent`: when each of the last requests arrived (ms since the epoch; same machine as the Worker), its statements and the start of their text. */
  http: { requests: number; statements: number; recent: { at: number; statements: number; sql: string[] }[] };
}

/** A private Upstash bridge + Neon proxies (WebSocket and HTTP) over the same Redis and Postgres, with outage switches. */
export interface Chaos {
  restUrl: string;
  restToken: string;
  wsProxy: string;
  httpProxy: string;
  /** Worker bindings that route Redis and Postgres through this pair (pass as `api(..., { env })`). */
  bindings: { UPSTASH_REDIS_REST_URL: string; UPSTASH_REDIS_REST_TOKEN: string; NEON_WS_PROXY: string; NEON_HTTP_PROXY: string };
  setRedisDown(down: boolean): Promise<void>;
  /** Postgres unreachable: the WebSocket proxy refuses and drops connections, the HTTP endpoint answers 503. */
  setPostgresDown(down: boolean): Promise<void>;
  /**
   * The next `count` requests run on Redis and then lose their answer: a 503 (as when the server
   * died after running it) or a dropped connection (`drop`).
   */
  loseAnswers(count: number, how: "503" | "drop"): Promise<void>;
  /** What reached this pair's own bridge (one request = one Redis round trip). */
  stats(): Promise<BridgeStats>;
  /** What reached this pair's own Neon proxies. */
  postgresStats(): Promise<PostgresStats>;
  close(): Promise<void>;
}

function controlUrl(path: string): string {
  const base = (env as unknown as { STACK_CONTROL_URL?: string }).STACK_CONTROL_URL;
  if (!base) throw new Error("STACK_CONTROL_URL binding is missing: run tests through vitest.config.ts");
  return `${base}${path}`;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(controlUrl(path), {
    method,
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`stack control ${method} ${path} → ${res.status} ${await res.text()}`);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/** Counts of what reached the shared bridge since the last reset (one request = one Redis round trip). */
export function bridgeStats(): Promise<BridgeStats> {
  return call("GET", "/bridge/stats");
}

/** Counts of what reached Redis database `index`'s own bridge (shared by every test using it). */
export function databaseStats(index: number): Promise<BridgeStats> {
  return call("GET", `/databases/${index}/stats`);
}

export async function resetBridgeStats(): Promise<void> {
  await call("POST", "/bridge/stats/reset");
}

/**
 * A chaos pair; `database` puts its bridge in front of that Redis database of the stack (default
 * 0), `maxCommandsPerSecond` gives the bridge a command budget (answered as Upstash answers it).
 */
export async function createChaos(database = 0, options: { maxCommandsPerSecond?: number } = {}): Promise<Chaos> {
  const body = database === 0 && options.maxCommandsPerSecond === undefined ? undefined : { database, ...options };
  const { id, restUrl, restToken, wsProxy, httpProxy } = await call<{ id: string; restUrl: string; restToken: string; wsProxy: string; httpProxy: string }>("POST", "/chaos", body);
  return {
    restUrl,
    restToken,
    wsProxy,
    httpProxy,
    bindings: { UPSTASH_REDIS_REST_URL: restUrl, UPSTASH_REDIS_REST_TOKEN: restToken, NEON_WS_PROXY: wsProxy, NEON_HTTP_PROXY: httpProxy },
    setRedisDown: (down) => call("POST", `/chaos/${id}`, { redisDown: down }),
    setPostgresDown: (down) => call("POST", `/chaos/${id}`, { postgresDown: down }),
    loseAnswers: (count, how) => call("POST", `/chaos/${id}`, { loseAnswers: { count, how } }),
    stats: () => call("GET", `/chaos/${id}`),
    postgresStats: () => call("GET", `/chaos/${id}/postgres`),
    close: () => call("DELETE", `/chaos/${id}`),
  };
}

/**
 * A chaos pair for the enclosing describe block (or file): created before its tests, healed and
 * closed after them. Read `.current` inside tests.
 */
export function useChaos(): { readonly current: Chaos } {
  let chaos: Chaos | undefined;
  beforeAll(async () => {
    chaos = await createChaos();
  });
  afterAll(async () => {
    await chaos?.setRedisDown(false);
    await chaos?.setPostgresDown(false);
    await chaos?.close();
  });
  return {
    get current() {
      if (!chaos) throw new Error("useChaos(): the chaos pair exists only inside tests");
      return chaos;
    },
  };
}
