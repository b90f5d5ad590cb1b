/**
 * One measured run of a scenario, shared by `npm run load` and `npm run bench:scale`: the closed
 * loop (`runLoad`), degraded answers counted as errors, and — for a local stack — round trips and
 * billed commands per database over the same span.
 */
import { runLoad, type LoadResult } from "../bench/harness.js";
import type { Fixtures, Scenario } from "./scenarios.js";
import type { StackMeter, StackReading } from "./target.js";

/**
 * What the API answers when Redis refused a call or was away, in a 2xx body: `degraded: true`
 * (badges, feed, relation writes) or `stale: true` (counter reads from Postgres). Such an answer
 * is correct but served without Redis: a request "refused by the budget" when one is set.
 */
export const DEGRADED_PATTERN = String.raw`"(degraded|stale)":true`;

/**
 * Against a capped database, a client waits this long after a failed or degraded answer and sends
 * the same request again, as an app backs off and retries: refused requests do not spin (each
 * costs the Worker — and for a degraded read, Postgres — about what a served one does, for
 * nothing), a random wait spreads the clients over the budget's next second, and every request of
 * the mix is served once, so the mix served is the same at any cap.
 */
export const ERROR_BACKOFF_MS: [number, number] = [250, 750];

export interface Measured {
  result: LoadResult;
  /** Requests answered 2xx and not degraded (attempts: with `capped`, a request may take several). */
  ok: number;
  /** `ok` per second of the run. */
  okRps: number;
  redis?: StackReading;
}

export async function measureScenario(options: {
  baseUrl: string;
  scenario: Scenario;
  fixtures: Fixtures;
  concurrency: number;
  durationMs: number;
  total?: number;
  meter?: StackMeter;
  /** Back off after errors and retry (`ERROR_BACKOFF_MS`); for a capped stack. */
  capped?: boolean;
  onProgress?: Parameters<typeof runLoad>[0]["onProgress"];
}): Promise<Measured> {
  const { baseUrl, scenario, fixtures, concurrency, durationMs, total, meter, capped, onProgress } = options;
  const stop = await meter?.start();
  const result = await runLoad({
    baseUrl,
    concurrency,
    durationMs,
    total,
    // A mixed scenario labels each request with its part; a plain one gets its own name.
    request: (i) => ({ scenario: scenario.name, ...scenario.request(i, fixtures) }),
    degradedPattern: DEGRADED_PATTERN,
    errorBackoffMs: capped ? ERROR_BACKOFF_MS : undefined,
    retryFailed: capped,
    onProgress,
  });
  const redis = await stop?.();
  const ok = result.requests - result.errors;
  return { result, ok, okRps: ok / (result.elapsedMs / 1000), redis };
}

/** `503×3 degraded×40`, or "0". */
export function errorSummary(result: LoadResult): string {
  return Object.entries(result.errorStatuses).map(([status, n]) => `${status}×${n}`).join(" ") || "0";
}
