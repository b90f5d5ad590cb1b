/**
 * A push endpoint that misbehaves, for the sender's limits (src/notify/provider-fetch.ts): it is
 * one of the stack's local push services (its origin is in WEBPUSH_LOCAL_ORIGINS), so a Web Push
 * device can be registered on it in development. Paths, each under an id the caller picks:
 *
 *   POST /hang/{id}      reads the request and never answers (until the stack stops)
 *   POST /redirect/{id}  307 to /target/{id} on this server
 *   ANY  /target/{id}    201 (a redirect that was followed would land here: counted)
 *   POST /huge/{id}      201 with a body of HUGE_BYTES, written as the client reads it
 *
 * `stats(id)` says what each id saw: requests per path, and the bytes of the huge body that
 * were written before the client stopped reading.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The answer body of /huge: far past what any push service sends, so reading it all would show. */
export const HUGE_BYTES = 50 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

export type MisbehavingStats = { hang: number; redirect: number; target: number; huge: number; hugeBytesWritten: number; hugeFinished: boolean };

export interface MisbehavingEndpoint {
  /** `http://127.0.0.1:PORT` */
  url: string;
  stats(id: string): MisbehavingStats;
  close(): Promise<void>;
}

export async function startMisbehavingEndpoint(): Promise<MisbehavingEndpoint> {
  const seen = new Map<string, MisbehavingStats>();
  const statsOf = (id: string) => {
    let stats = seen.get(id);
    if (!stats) {
      if (seen.size >= 10_000) seen.clear();
      stats = { hang: 0, redirect: 0, target: 0, huge: 0, hugeBytesWritten: 0, hugeFinished: false };
      seen.set(id, stats);
    }
    return stats;
  };

  function writeHuge(res: ServerResponse, stats: MisbehavingStats) {
    res.writeHead(201, { "content-type": "text/plain", "content-length": String(HUGE_BYTES) });
    const more = () => {
      while (stats.hugeBytesWritten < HUGE_BYTES) {
        stats.hugeBytesWritten += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once("drain", more);
      }
      stats.hugeFinished = true;
      res.end();
    };
    res.on("error", () => {});
    more();
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume(); // the request body is not needed
    const match = /^\/(hang|redirect|target|huge)\/([A-Za-z0-9_-]{1,64})$/.exec(new URL(req.url ?? "/", "http://x").pathname);
    if (!match) return void res.writeHead(404).end();
    const [, path, id] = match as unknown as [string, keyof MisbehavingStats, string];
    const stats = statsOf(id);
    (stats[path] as number)++;
    if (path === "hang") return; // no answer, ever
    if (path === "redirect") return void res.writeHead(307, { location: `/target/${id}` }).end();
    if (path === "target") return void res.writeHead(201).end();
    req.on("end", () => writeHuge(res, stats));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats: (id) => ({ ...statsOf(id) }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
