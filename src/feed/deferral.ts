import type { FeedMessage } from "./messages";

/**
 * A message's deferrals for a database's command budget, carried in its body: when the first
 * refusal came (ms) and how many deferrals it has had.
 */
export type BudgetDeferral = { since: number; times: number };

/** A feed message as the queues carry it: the message, and its deferrals if any (never delivered with it). */
export type QueuedFeedMessage = FeedMessage & { deferred?: BudgetDeferral };

/** The first deferral's delay; each next one doubles it. */
export const FIRST_DEFERRAL_SECONDS = 2;
/** The longest delay between two attempts of a deferred message (Queues allow up to 12 h). */
export const MAX_DEFERRAL_SECONDS = 300;
/**
 * How long a message is deferred for the budget at most, from its first refusal: longer than a
 * day's quota lasts. Past it the message is retried as any failure is (`max_retries`, then the
 * dead-letter queue), so a budget that never recovers still ends where an operator sees it.
 */
export const DEFERRAL_WINDOW_MS = 24 * 3600 * 1000;

/**
 * The deferral after `previous` (none: the first) at `now`, and its delay: 2, 4, 8 … s, at most
 * 5 minutes; null once the window is over.
 */
export function nextDeferral(previous: BudgetDeferral | undefined, now: number): { deferred: BudgetDeferral; delaySeconds: number } | null {
  const since = previous?.since ?? now;
  if (now - since > DEFERRAL_WINDOW_MS) return null;
  const times = previous?.times ?? 0;
  return { deferred: { since, times: times + 1 }, delaySeconds: Math.min(FIRST_DEFERRAL_SECONDS * 2 ** Math.min(times, 20), MAX_DEFERRAL_SECONDS) };
}

/** The message to deliver, without its deferrals. */
export function withoutDeferral(queued: QueuedFeedMessage): FeedMessage {
  const { deferred: _, ...message } = queued;
  return message as FeedMessage;
}
