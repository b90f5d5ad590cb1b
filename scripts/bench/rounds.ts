/**
 * Rounds of one call, counted from outside: the requests the Redis bridges saw while it ran
 * (`UpstashBridge.trace`), grouped into runs of overlapping requests. A request that arrives after
 * every earlier one was answered starts a new round — what the call waited for one after another.
 */
import { performance } from "node:perf_hooks";
import type { Stack } from "../stack/index.js";
import type { RequestSpan } from "../stack/upstash-bridge.js";

/** Groups of overlapping spans, in order of arrival (a span not yet answered overlaps all later ones). */
export function countRounds(spans: Pick<RequestSpan, "start" | "end">[]): number {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let rounds = 0;
  let groupEnd = Number.NEGATIVE_INFINITY;
  for (const { start, end } of sorted) {
    if (start > groupEnd) rounds += 1;
    groupEnd = Math.max(groupEnd, Number.isNaN(end) ? Number.POSITIVE_INFINITY : end);
  }
  return rounds;
}

/** The spans in order of arrival as `label` writes each, `|` before each one that starts a round: what each round sent. */
export function roundsText<S extends Pick<RequestSpan, "start" | "end">>(spans: S[], label: (span: S) => string): string {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let groupEnd = Number.NEGATIVE_INFINITY;
  return sorted
    .map((span, i) => {
      const text = `${i > 0 && span.start > groupEnd ? "| " : ""}${label(span)}`;
      groupEnd = Math.max(groupEnd, Number.isNaN(span.end) ? Number.POSITIVE_INFINITY : span.end);
      return text;
    })
    .join(" ");
}

/**
 * Rounds of one call: the spans every bridge saw while it ran, grouped into runs of overlapping
 * requests (those that started before the call's answer arrived).
 */
export async function roundsOf(
  stack: Pick<Stack, "databases">,
  send: () => Promise<{ status: number; json: any }>,
  check: (json: any) => true | string,
  /** Given what each round sent (`roundsText`), e.g. to print it. */
  sent?: (text: string) => void,
): Promise<number> {
  const stops = stack.databases.map((d) => d.bridge.trace());
  let spans: RequestSpan[];
  let answeredAt: number;
  try {
    const res = await send();
    answeredAt = performance.now();
    if (res.status !== 200) throw new Error(`rounds: ${res.status} ${JSON.stringify(res.json)}`);
    const ok = check(res.json);
    if (ok !== true) console.warn(`  (rounds measured on ${ok})`);
    if (res.json.degraded || res.json.stale) console.warn("  (rounds measured on a degraded answer)");
  } finally {
    spans = stops.flatMap((stop) => stop());
  }
  const before = spans.filter((s) => s.start <= answeredAt!);
  sent?.(roundsText(before, (s) => s.commands?.join(",") ?? "?"));
  return countRounds(before);
}
