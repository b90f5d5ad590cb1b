/**
 * Records the Upstash REST requests the code under test sends (every command, pipeline and script
 * of `@upstash/redis` is one `fetch` of a JSON body), and whether a Global database would send each
 * to its primary: `writesData` is the Worker's own rule (src/lib/consistency.ts), the one Upstash
 * applies — plain reads and EVAL_RO/EVALSHA_RO are answered by the nearest region, anything else
 * (EVAL, EVALSHA, writes, a pipeline holding one) goes to the primary. Tests of read paths assert
 * that none of their requests is a write. Runs the Worker in this isolate (`api(…, { env })`), so
 * the one `fetch` it calls is the one recorded.
 *
 * @example
 * const { requests } = await recordRedisRequests(() => api("GET", "/v1/counters/post?ids=1", { env }));
 * expect(requests.filter((r) => r.primary)).toEqual([]);
 */
import { writesData } from "../../src/lib/consistency";

export type RedisRequest = {
  /** `/`, `/pipeline` or `/multi-exec`. */
  path: string;
  /** Each command's name, lower case as the client sends it, and its arguments. */
  commands: string[][];
  /** Whether a Global database answers it from the primary (a write-class request). */
  primary: boolean;
};

/** Runs `work` and answers the Upstash requests sent while it ran (to any URL of `urls`, or any JSON-array body when none are given). */
export async function recordRedisRequests<T>(work: () => Promise<T>, urls?: readonly string[]): Promise<{ result: T; requests: RedisRequest[] }> {
  const requests: RedisRequest[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = typeof init?.body === "string" ? init.body : undefined;
    const watched = !urls || urls.some((u) => url.origin === new URL(u).origin);
    const parsed = watched && body !== undefined ? parseBody(body) : undefined;
    if (Array.isArray(parsed)) {
      const commands = (Array.isArray(parsed[0]) ? parsed : [parsed]) as unknown[][];
      requests.push({ path: url.pathname, commands: commands.map((c) => c.map(String)), primary: writesData(parsed) });
    }
    return original(input, init);
  }) as typeof fetch;
  try {
    return { result: await work(), requests };
  } finally {
    globalThis.fetch = original;
  }
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The names of a request's commands, e.g. `evalsha_ro`, `mget`: for assertion messages. */
export const commandNames = (requests: readonly RedisRequest[]) => requests.map((r) => `${r.path} ${r.commands.map((c) => c[0]).join(",")}`);
