/**
 * Records the Upstash REST requests the code under test sends (every command, pipeline and script
 * of `@upstash/redis` is one `fetch` of a JSON body), and whether a Global database would send each
 * to its primary: `writesData` is the Worker's own rule (src/lib/consistency.ts), the one Upstash
 * applies — plain reads and EVAL_RO/EVALSHA_RO are answered by the nearest region, anything else
 * (EVAL, EVALSHA, writes, a pipeline holding one) goes to the primary. Tests of read paths assert
 * that none of their requests is a write. Runs the Worker in this isolate (`api(…, { env })`), so
 * the one `fetch` it calls is the one recorded. The accounts' deleting-users snapshot refresh,
 * upkeep any authenticated call may start in the background, is passed through unrecorded.
 *
 * @example
 * const { requests } = await recordRedisRequests(() => api("GET", "/v1/counters/post?ids=1", { env }));
 * expect(requests.filter((r) => r.primary)).toEqual([]);
 * // A read that answers without the primary, whatever it sends there afterwards:
 * const read = await recordRedisRequests(() => readCounters(services, "post", ids), { holdPrimary: 5_000 });
 * read.release();
 */
import { accountKeys } from "../../src/accounts/keys";
import { writesData } from "../../src/lib/consistency";

export type RedisRequest = {
  /** The origin it was sent to (which database's REST URL). */
  origin: string;
  /** `/`, `/pipeline` or `/multi-exec`. */
  path: string;
  /** Each command's name, lower case as the client sends it, and its arguments. */
  commands: string[][];
  /** Whether a Global database answers it from the primary (a write-class request). */
  primary: boolean;
  /**
   * When it was sent and when its answer came back, on the recording's own clock, which ticks once
   * per event (a send, an answer, a `tick()` of the work): requests sent before any of them was
   * answered overlap, whatever the wall clock says (workerd's stands still between I/O).
   */
  start: number;
  end: number;
};

/**
 * Runs `work` and answers the Upstash requests sent while it ran (to any URL of `urls`, or any
 * JSON-array body when none are given). With `holdPrimary`, requests for the primary are held
 * (not sent) until `release()`: `work` must finish without them — a read whose answer waited for
 * the primary fails with that said, after `holdPrimary` ms — and what they are is in `requests`.
 * The holding (and the recording) lasts until `release()`, not only while `work` runs: work that
 * `work` started and left running (a rebuild after the answer) sends its writes later, and they
 * must be held too, or a check that they have not landed yet races them.
 */
export async function recordRedisRequests<T>(
  work: (tick: () => number) => Promise<T>,
  options: { urls?: readonly string[]; holdPrimary?: number } = {},
): Promise<{ result: T; requests: RedisRequest[]; release: () => void }> {
  const { urls, holdPrimary } = options;
  const requests: RedisRequest[] = [];
  let clock = 0;
  const tick = () => ++clock;
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => (letGo = resolve));
  const original = globalThis.fetch;
  const restore = () => {
    if (globalThis.fetch === patched) globalThis.fetch = original;
  };
  const release = () => {
    restore();
    letGo();
  };
  const patched = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = typeof init?.body === "string" ? init.body : undefined;
    const watched = !urls || urls.some((u) => url.origin === new URL(u).origin);
    const parsed = watched && body !== undefined ? parseBody(body) : undefined;
    const commands = Array.isArray(parsed) ? ((Array.isArray(parsed[0]) ? parsed : [parsed]) as unknown[][]) : undefined;
    if (commands && !isDeletingSnapshotRefresh(commands)) {
      const primary = writesData(parsed);
      const request: RedisRequest = { origin: url.origin, path: url.pathname, commands: commands.map((c) => c.map(String)), primary, start: tick(), end: Number.NaN };
      requests.push(request);
      if (primary && holdPrimary !== undefined) await released;
      try {
        return await original(input, init);
      } finally {
        request.end = tick();
      }
    }
    return original(input, init);
  }) as typeof fetch;
  globalThis.fetch = patched;
  let holding = false;
  try {
    if (holdPrimary === undefined) return { result: await work(tick), requests, release };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the work waited ${holdPrimary} ms for a request to the primary: ${commandNames(requests.filter((r) => r.primary)).join("; ")}`)), holdPrimary);
    });
    try {
      const result = await Promise.race([work(tick), waited]);
      holding = true; // until release()
      return { result, requests, release };
    } finally {
      clearTimeout(timer);
    }
  } finally {
    if (!holding) restore();
  }
}

/**
 * The accounts capability's refresh of its deleting-users snapshot (`src/accounts/deleting.ts`): a
 * read any authenticated call may start in the background once the isolate's snapshot is 2.5 s
 * old — upkeep of the isolate, not the call's own request — so it is passed through unrecorded.
 */
function isDeletingSnapshotRefresh(commands: unknown[][]): boolean {
  return commands.length === 1 && String(commands[0]![0]).toLowerCase() === "hkeys" && commands[0]![1] === accountKeys.deleting();
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

/**
 * Waits until this isolate has sent no Upstash request for `windows` windows of `windowMs` in a
 * row: what earlier steps left running (a follow's queued sync and notification, a build after an
 * answer) has landed, and cannot fall into a recording that follows and be counted as its own.
 * Fails after `maxMs` of traffic that never stops.
 */
export async function redisQuiet({ windowMs = 150, windows = 3, maxMs = 15_000 } = {}): Promise<void> {
  const started = Date.now();
  let quiet = 0;
  while (quiet < windows) {
    if (Date.now() - started > maxMs) throw new Error(`Upstash requests kept coming for ${maxMs} ms`);
    const { requests } = await recordRedisRequests(() => new Promise((resolve) => setTimeout(resolve, windowMs)));
    quiet = requests.length === 0 ? quiet + 1 : 0;
  }
}
