/**
 * A local stand-in for Neon's WebSocket proxy: the Neon serverless driver
 * opens `ws://HOST/v1?address=pghost:pgport` and speaks the Postgres wire
 * protocol in binary frames; we pipe those bytes to a TCP socket.
 *
 * Configure the driver (local runs only) with
 *   neonConfig.wsProxy = (host, port) => `${wsProxy}?address=${host}:${port}`
 *   neonConfig.useSecureWebSocket = false
 *   neonConfig.pipelineTLS = false
 *   neonConfig.pipelineConnect = false
 */
import { createServer, type IncomingMessage } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { WebSocketServer, type WebSocket, type RawData } from "ws";

export interface NeonWsProxy {
  /** `127.0.0.1:PORT/v1`: the driver appends `?address=host:port`. */
  wsProxy: string;
  port: number;
  /** Simulates Postgres being unreachable: refuse new connections, drop live ones. */
  setDown(down: boolean): void;
  /**
   * What drivers sent through this proxy since it started: connections, and statements (simple
   * `Query` or extended-protocol `Execute` messages) — what the benchmarks count per request.
   */
  readonly stats: { connections: number; statements: number };
  close(): Promise<void>;
}

export interface NeonWsProxyOptions {
  host?: string;
  port?: number;
}

export async function startNeonWsProxy({ host = "127.0.0.1", port = 0 }: NeonWsProxyOptions = {}): Promise<NeonWsProxy> {
  const live = new Set<{ ws: WebSocket; tcp: Socket }>();
  let down = false;
  const stats = { connections: 0, statements: 0 };

  const server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket upgrade required\n");
  });
  const wss = new WebSocketServer({ noServer: true });

  server.on("upgrade", (req, socket, head) => {
    const target = parseTarget(req);
    if (down || !target) {
      const status = down ? "503 Service Unavailable" : "400 Bad Request";
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => bridge(ws, target));
  });

  function bridge(ws: WebSocket, target: { host: string; port: number }): void {
    const tcp = connect(target.port, target.host);
    tcp.setNoDelay(true);
    const pair = { ws, tcp };
    live.add(pair);

    stats.connections++;
    const count = statementCounter(() => stats.statements++);
    // Bytes from the driver may arrive before TCP connects; net.Socket buffers them.
    ws.on("message", (data: RawData) => {
      const bytes = toBuffer(data);
      count(bytes);
      tcp.write(bytes);
    });
    tcp.on("data", (chunk) => {
      if (ws.readyState === ws.OPEN) ws.send(chunk, { binary: true });
    });

    // Close both sides together, whichever goes first.
    const closeBoth = () => {
      live.delete(pair);
      tcp.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
    };
    ws.on("close", closeBoth);
    ws.on("error", closeBoth);
    tcp.on("close", closeBoth);
    tcp.on("error", closeBoth);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;

  function dropAll(): void {
    for (const { ws, tcp } of live) {
      tcp.destroy();
      ws.terminate();
    }
    live.clear();
  }

  return {
    wsProxy: `${host}:${actualPort}/v1`,
    port: actualPort,
    stats,
    setDown(value: boolean) {
      down = value;
      if (down) dropAll();
    },
    async close() {
      dropAll();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `/v1?address=host:port` → target; anything else is refused. */
function parseTarget(req: IncomingMessage): { host: string; port: number } | undefined {
  const url = new URL(req.url ?? "/", "http://proxy");
  if (url.pathname !== "/v1") return undefined;
  const address = url.searchParams.get("address");
  const [, host, port] = address?.match(/^\[?([^\]]+?)\]?:(\d+)$/) ?? [];
  if (!host || !port) return undefined;
  return { host, port: Number(port) };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/**
 * Reads a connection's frontend byte stream as Postgres messages and calls `onStatement` for each
 * `Q` (simple query) and `E` (execute). The first message (startup, or an SSL/GSS request before
 * it) has no type byte; every later one is a type byte and an int32 length that counts itself.
 */
function statementCounter(onStatement: () => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let startup = true;
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (startup) {
        if (pending.length < 8) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        const code = pending.readInt32BE(4);
        pending = pending.subarray(length);
        // SSLRequest / GSSENCRequest come before the real startup message.
        if (code !== 80877103 && code !== 80877104) startup = false;
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < 1 + length) return;
      const type = String.fromCharCode(pending[0]!);
      if (type === "Q" || type === "E") onStatement();
      pending = pending.subarray(1 + length);
    }
  };
}
