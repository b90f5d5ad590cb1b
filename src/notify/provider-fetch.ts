/**
 * Every request to a push service (Web Push endpoints, FCM and its OAuth token exchange, APNs)
 * goes through here, so none can hold the sender: it is given up after a timeout
 * (PUSH_REQUEST_TIMEOUT_MS, 10 s by default), a redirect is answered as it came (`redirect:
 * "manual"`: a 3xx is a failure, its target never requested), and at most MAX_ANSWER_BYTES of the
 * answer are read (then the rest is cancelled): the verdict needs the status and a reason, not a
 * body a misbehaving server chooses the size of.
 */

export const DEFAULT_PUSH_REQUEST_TIMEOUT_MS = 10_000;
/** What is read of an answer: every push service's error body fits in a few hundred bytes. */
export const MAX_ANSWER_BYTES = 16 * 1024;

const BOUNDED = Symbol("bounded provider fetch");
type BoundedFetch = typeof fetch & { [BOUNDED]: true };

/**
 * `fetcher` with the limits above: the answer it resolves to is already read (≤ MAX_ANSWER_BYTES;
 * `X-Answer-Truncated: 1` when there was more). A fetcher already bounded is returned as it is.
 * A timeout rejects with a TimeoutError naming the time.
 */
export function boundedFetch(fetcher: typeof fetch = fetch, timeoutMs: number = DEFAULT_PUSH_REQUEST_TIMEOUT_MS): typeof fetch {
  if ((fetcher as Partial<BoundedFetch>)[BOUNDED]) return fetcher;
  const bounded = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetcher(input, { ...init, redirect: "manual", signal });
      const { bytes, truncated } = await readCapped(response, MAX_ANSWER_BYTES);
      // The body is read (and decoded) already: its original length and encoding no longer apply.
      const headers = new Headers(response.headers);
      headers.delete("Content-Length");
      headers.delete("Content-Encoding");
      if (truncated) headers.set("X-Answer-Truncated", "1");
      // A Response takes no body for 204/205/304 and no status below 200.
      const status = response.status >= 200 && response.status <= 599 ? response.status : 502;
      return new Response([101, 204, 205, 304].includes(status) ? null : bytes, { status, statusText: response.statusText, headers });
    } catch (err) {
      if (signal.aborted) throw new DOMException(`push service gave no answer within ${timeoutMs} ms`, "TimeoutError");
      throw err;
    }
  };
  return Object.assign(bounded, { [BOUNDED]: true as const }) as unknown as typeof fetch;
}

/** Reads at most `cap` bytes of the body through its stream and cancels the rest. */
async function readCapped(response: Response, cap: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = cap - size;
    if (value.length >= room) {
      chunks.push(value.subarray(0, room));
      size += room;
      // Exactly at the cap with nothing after it is still the whole body; anything more is not read.
      truncated = value.length > room || !(await reader.read()).done;
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  if (truncated) await reader.cancel().catch(() => undefined);
  else reader.releaseLock();
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) (bytes.set(chunk, at), (at += chunk.length));
  return { bytes, truncated };
}

/** PUSH_REQUEST_TIMEOUT_MS when set to a whole number of ms (100 to 60,000), else the default. */
export function pushRequestTimeoutMs(value: string | undefined): number {
  const ms = Number(value);
  return Number.isInteger(ms) && ms >= 100 && ms <= 60_000 ? ms : DEFAULT_PUSH_REQUEST_TIMEOUT_MS;
}

/**
 * At most `size` tasks at once (`run(task)` waits for a free slot). The sender shares one per
 * queue batch for its provider requests: Workers keep at most 6 outbound connections open per
 * invocation, and Redis and Postgres need some of them.
 */
export function limiter(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    // A finished task hands its slot straight to the next waiting one.
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
