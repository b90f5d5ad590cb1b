/**
 * The Worker as an app reaches it: bundled as deployed, in workerd with wrangler.toml's bindings
 * and module rules (scripts/stack/workerd.ts), on the run's test stack, over real HTTP and
 * WebSockets. For node tests of the client (`src/client`), which must talk to it from outside.
 */
import { randomBytes } from "node:crypto";
import { createServer, Socket } from "node:net";
import { sign } from "hono/jwt";
import { afterAll, beforeAll, inject } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { startWorkerd, type RunningWorker } from "../../../scripts/stack/workerd";
import { eventually as poll } from "../../support/eventually";

export interface TestWorker {
  url: string;
  /** A JWT for `userId` signed with the Worker's secret; `ttlSeconds` < 0 makes it expired. */
  tokenFor(userId: string, role?: "user" | "service" | "admin", ttlSeconds?: number): Promise<string>;
}

/** Starts the Worker before the file's tests and stops it after them. */
export function useWorker(): TestWorker {
  const jwtSecret = randomBytes(32).toString("hex");
  let worker: RunningWorker | undefined;
  beforeAll(async () => {
    worker = await startWorkerd({
      vars: {
        UPSTASH_REDIS_REST_URL: inject("restUrl"),
        UPSTASH_REDIS_REST_TOKEN: inject("restToken"),
        DATABASE_URL: inject("databaseUrl"),
        NEON_WS_PROXY: inject("wsProxy"),
        NEON_HTTP_PROXY: inject("httpProxy"),
        JWT_SECRET: jwtSecret,
      },
      // Each file's tests use fresh users, well under the limits; without them nothing is throttled by a neighbour.
      rateLimiters: false,
    });
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
  }, 60_000);
  return {
    get url() {
      if (!worker) throw new Error("useWorker(): the Worker runs only inside tests");
      return worker.url;
    },
    // `jti` makes every token distinct, so a test can tell a refreshed one from the one before.
    tokenFor: (userId, role = "user", ttlSeconds = 600) =>
      sign({ sub: userId, role, exp: Math.floor(Date.now() / 1000) + ttlSeconds, jti: randomBytes(8).toString("hex") }, jwtSecret, "HS256"),
  };
}

export { newId } from "../../support/ids";

/** Polls `read` until `done` holds (or `ms` passes, then returns the last value for the assertion to show). */
export const eventually = <T>(read: () => T | Promise<T>, done: (value: T) => boolean, ms = 10_000) => poll(read, done, ms);

/**
 * A TCP proxy in front of the Worker whose connections can all be cut at once: what a phone sees
 * when it changes networks, without the server saying goodbye.
 */
export async function startKillableProxy(target: string) {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(Number(port), hostname);
    open.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    /** Cuts every connection now (no close frame). */
    killAll() {
      for (const socket of open) socket.destroy();
      open.clear();
    },
    close: () => new Promise<void>((resolve) => {
      for (const socket of open) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/**
 * A WebSocket server in front of the Worker's sockets that relays every frame both ways and
 * records what clients offered and sent. `closeNextWith(code, reason)` makes it close the next
 * connection itself (after it opened), as the server does when a token expires.
 */
export async function startSocketRelay(target: string) {
  const connections: { url: string; protocols: string[] }[] = [];
  const fromClients: string[] = [];
  const open = new Set<WebSocket>();
  let closeNext: { code: number; reason: string } | undefined;
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: (protocols) => (protocols.has("live") ? "live" : false) });
  wss.on("connection", (client, request) => {
    const protocols = (request.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim()).filter(Boolean);
    connections.push({ url: request.url ?? "", protocols });
    open.add(client);
    client.on("close", () => open.delete(client));
    if (closeNext) {
      const { code, reason } = closeNext;
      closeNext = undefined;
      client.close(code, reason);
      return;
    }
    const upstream = new WebSocket(`${target.replace(/^http/, "ws")}${request.url}`, protocols);
    const pending: string[] = [];
    upstream.on("open", () => pending.splice(0).forEach((m) => upstream.send(m)));
    upstream.on("message", (data) => client.readyState === client.OPEN && client.send(data.toString()));
    upstream.on("close", (code, reason) => client.readyState === client.OPEN && client.close(code === 1005 || code === 1006 ? 1011 : code, reason.toString()));
    upstream.on("error", () => client.terminate());
    client.on("message", (data) => {
      const text = data.toString();
      fromClients.push(text);
      if (upstream.readyState === upstream.OPEN) upstream.send(text);
      else pending.push(text);
    });
    client.on("close", () => upstream.close());
  });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const { port } = wss.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    fromClients,
    closeNextWith(code: number, reason: string) {
      closeNext = { code, reason };
    },
    /** Closes every open client connection with `code`, as the server does when a token expires. */
    closeAllWith(code: number, reason: string) {
      for (const client of open) client.close(code, reason);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
