/**
 * A tiny HTTP API, used by tests running inside workerd (which can only reach
 * the stack over fetch), to read bridge stats, simulate outages and restart
 * Redis. Test mode only: it can break things on purpose.
 *
 *   GET    /bridge/stats            → BridgeStats of the shared bridge
 *   POST   /bridge/stats/reset      → 204
 *   POST   /chaos                   → { id, restUrl, restToken, wsProxy, httpProxy } (a private bridge and
 *                                     Neon proxies: WebSocket and HTTP);
 *                                     body { database: i } puts the bridge in front of Redis database i,
 *                                     { maxCommandsPerSecond: C } gives it a command budget
 *   GET    /databases/:i/stats      → BridgeStats of database i's own bridge
 *   POST   /chaos/:id               ← { redisDown?: boolean, postgresDown?: boolean,
 *                                       loseAnswers?: { count, how: "503" | "drop" } } → 204
 *   GET    /chaos/:id               → BridgeStats of the pair's own bridge (no noise from other tests)
 *   GET    /chaos/:id/postgres      → { ws: { connections, statements }, http: { requests, statements, recent } }
 *                                     of the pair's own Neon proxies
 *   DELETE /chaos/:id               → 204
 *   POST   /redis-server/restart    → 204, or 409 when the stack does not own redis-server
 *   PUT    /jwks/:name              ← { keys, cacheControl?, down? } → 204 (an identity provider's JWKS)
 *   GET    /jwks/:name.json         → { keys } with that Cache-Control, or 503 while down (counted)
 *   GET    /jwks/:name/stats        → { fetches }
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import type { UpstashBridge } from "./upstash-bridge.js";
import type { NeonWsProxy } from "./neon-ws-proxy.js";
import type { NeonHttpProxy } from "./neon-http-proxy.js";

export interface ChaosPair {
  bridge: UpstashBridge;
  proxy: NeonWsProxy;
  httpSql: NeonHttpProxy;
}

export interface ControlServerDeps {
  bridge: UpstashBridge;
  /** Every Redis database's own bridge, database 0 (`bridge`) first. */
  databases?: UpstashBridge[];
  /** Starts a fresh bridge+proxy pair over the same Redis (database `database`, default 0) and Postgres. */
  createChaosPair(database?: number, maxCommandsPerSecond?: number): Promise<ChaosPair>;
  /** Restarts the stack's own redis-server; undefined when Redis is external. */
  restartRedis?: () => Promise<void>;
}

export interface ControlServer {
  url: string;
  close(): Promise<void>;
}

export async function startControlServer(deps: ControlServerDeps): Promise<ControlServer> {
  const pairs = new Map<string, ChaosPair>();
  /** Stand-ins for identity providers' JWKS endpoints, one per test (at most 1,000 per run). */
  const jwks = new Map<string, { keys: unknown[]; cacheControl?: string; down: boolean; fetches: number }>();

  async function route(req: IncomingMessage): Promise<[number, unknown?, Record<string, string>?]> {
    const path = new URL(req.url ?? "/", "http://control").pathname;
    const method = req.method ?? "GET";
    if (method === "GET" && path === "/bridge/stats") return [200, deps.bridge.stats];
    if (method === "POST" && path === "/bridge/stats/reset") {
      deps.bridge.resetStats();
      return [204];
    }
    const statsOf = path.match(/^\/databases\/(\d+)\/stats$/)?.[1];
    if (method === "GET" && statsOf !== undefined) {
      const bridge = (deps.databases ?? [deps.bridge])[Number(statsOf)];
      return bridge ? [200, bridge.stats] : [404, { error: `no Redis database ${statsOf}` }];
    }
    if (method === "POST" && path === "/chaos") {
      const id = randomBytes(6).toString("hex");
      const { database = 0, maxCommandsPerSecond } = (await readJson(req)) as { database?: unknown; maxCommandsPerSecond?: unknown };
      if (maxCommandsPerSecond !== undefined && (typeof maxCommandsPerSecond !== "number" || !(maxCommandsPerSecond > 0))) {
        return [400, { error: "maxCommandsPerSecond must be a positive number" }];
      }
      const count = (deps.databases ?? [deps.bridge]).length;
      if (typeof database !== "number" || !Number.isInteger(database) || database < 0 || database >= count) {
        return [400, { error: `database must be an integer from 0 to ${count - 1}` }];
      }
      const pair = await deps.createChaosPair(database, maxCommandsPerSecond as number | undefined);
      pairs.set(id, pair);
      return [200, { id, restUrl: pair.bridge.url, restToken: pair.bridge.token, wsProxy: pair.proxy.wsProxy, httpProxy: pair.httpSql.url }];
    }
    const postgresOf = path.match(/^\/chaos\/([0-9a-f]+)\/postgres$/)?.[1];
    if (method === "GET" && postgresOf) {
      const pair = pairs.get(postgresOf);
      return pair ? [200, { ws: pair.proxy.stats, http: pair.httpSql.stats }] : [404, { error: `no chaos pair ${postgresOf}` }];
    }
    const chaosId = path.match(/^\/chaos\/([0-9a-f]+)$/)?.[1];
    if (chaosId) {
      const pair = pairs.get(chaosId);
      if (!pair) return [404, { error: `no chaos pair ${chaosId}` }];
      if (method === "POST") {
        const body = (await readJson(req)) as { redisDown?: unknown; postgresDown?: unknown; loseAnswers?: { count?: unknown; how?: unknown } };
        if (typeof body.redisDown === "boolean") pair.bridge.setDown(body.redisDown);
        if (body.loseAnswers !== undefined) {
          const { count, how } = body.loseAnswers;
          if (typeof count !== "number" || !Number.isInteger(count) || count < 0 || (how !== "503" && how !== "drop")) {
            return [400, { error: 'loseAnswers must be { count: a whole number, how: "503" | "drop" }' }];
          }
          pair.bridge.loseAnswers(count, how);
        }
        if (typeof body.postgresDown === "boolean") {
          pair.proxy.setDown(body.postgresDown);
          pair.httpSql.setDown(body.postgresDown);
        }
        return [204];
      }
      if (method === "GET") return [200, pair.bridge.stats];
      if (method === "DELETE") {
        pairs.delete(chaosId);
        await closePair(pair);
        return [204];
      }
    }
    const jwksRoute = path.match(/^\/jwks\/([A-Za-z0-9_-]{1,64})(\.json|\/stats)?$/);
    if (jwksRoute) {
      const [, name, suffix] = jwksRoute as unknown as [string, string, string | undefined];
      if (method === "PUT" && !suffix) {
        const body = (await readJson(req)) as { keys?: unknown; cacheControl?: unknown; down?: unknown };
        const current = jwks.get(name) ?? { keys: [], down: false, fetches: 0 };
        if (!jwks.has(name) && jwks.size >= 1_000) return [409, { error: "too many JWKS endpoints" }];
        if (Array.isArray(body.keys)) current.keys = body.keys;
        if (typeof body.cacheControl === "string") current.cacheControl = body.cacheControl;
        if (typeof body.down === "boolean") current.down = body.down;
        jwks.set(name, current);
        return [204];
      }
      const endpoint = jwks.get(name);
      if (!endpoint) return [404, { error: `no JWKS ${name}` }];
      if (method === "GET" && suffix === "/stats") return [200, { fetches: endpoint.fetches }];
      if (method === "GET" && suffix === ".json") {
        endpoint.fetches += 1;
        if (endpoint.down) return [503, { error: "down" }];
        return [200, { keys: endpoint.keys }, endpoint.cacheControl ? { "cache-control": endpoint.cacheControl } : {}];
      }
    }
    if (method === "POST" && path === "/redis-server/restart") {
      if (!deps.restartRedis) return [409, { error: "redis is external (REDIS_URL); the stack cannot restart it" }];
      await deps.restartRedis();
      return [204];
    }
    return [404, { error: `no route ${method} ${path}` }];
  }

  const server = createServer((req, res) => {
    route(req).then(
      ([status, body, headers]) => send(res, status, body, headers),
      (error: unknown) => send(res, 500, { error: String(error) }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await Promise.all([...pairs.values()].map(closePair));
      pairs.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function closePair({ bridge, proxy, httpSql }: ChaosPair): Promise<void> {
  await Promise.all([bridge.close(), proxy.close(), httpSql.close()]);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  res.writeHead(status, { ...headers, "content-type": "application/json" }).end(JSON.stringify(body));
}
