/**
 * Rounds of one call, counted from outside: the requests the Redis bridges saw while it ran
 * (`UpstashBridge.trace`), grouped into runs of overlapping requests. A request that arrives after
 * every earlier one was answered starts a new round — what the call waited for one after another.
 */
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
