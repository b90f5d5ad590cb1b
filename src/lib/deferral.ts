/**
 * Deferring a queue message for a Redis database's command budget (`isBudgetRefusal`): a refusal
 * is not a failure of the message, so it must not use up the queue's retries. The consumer sends
 * the message again with a growing delay and the deferral in its body, and acks the delivery
 * that was refused; a new message starts at attempt 1, so only real failures count towards
 * `max_retries`. (`message.retry({ delaySeconds })` would count: the queue's `attempts` cannot
 * tell a budget from an outage, and an overrun longer than the retries would dead-letter every
 * waiting message.) Used by the feed's queues, by `notify-send` and by `account-erase`.
 */
import { errorText, log } from "./log";

/** A message's deferrals, carried in its body: when the first refusal came (ms) and how many deferrals it has had. */
export type BudgetDeferral = { since: number; times: number };

/** A message as the queues carry it: the message, and its deferrals if any (never delivered with it). */
export type Deferrable<M> = M & { deferred?: BudgetDeferral };

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
export function withoutDeferral<M extends object>(queued: Deferrable<M>): M {
  const { deferred: _, ...message } = queued;
  return message as M;
}

/** `message` carrying its next deferral: the body to send again. */
export function deferredBody<M extends object>(queued: Deferrable<M>, deferred: BudgetDeferral): Deferrable<M> {
  return { ...withoutDeferral(queued), deferred } as Deferrable<M>;
}

/**
 * Messages refused for a database's command budget: sent again to `target` (their own queue)
 * with their next deferral in the body and its delay, and acked. Past the deferral window a
 * message is retried as any failure is. One `sendBatch` for them (≤ 100 messages, a batch's
 * limit and `sendBatch`'s); if it fails, they are retried by the queue. `what` names them in the log.
 */
export async function deferForBudget<M extends object>(
  target: { sendBatch(messages: Iterable<MessageSendRequest<Deferrable<M>>>): Promise<unknown> },
  queue: string,
  messages: readonly Message<Deferrable<M>>[],
  what: string,
  now: number = Date.now(),
): Promise<void> {
  const deferred: { message: Message<Deferrable<M>>; body: Deferrable<M>; delaySeconds: number }[] = [];
  for (const message of messages) {
    const next = nextDeferral(message.body.deferred, now);
    if (next) {
      deferred.push({ message, body: deferredBody(message.body, next.deferred), delaySeconds: next.delaySeconds });
    } else {
      message.retry();
      log.error({ queue, message: `${what} over its database's command budget for a day; retrying`, body: message.body, attempts: message.attempts });
    }
  }
  if (deferred.length === 0) return;
  try {
    await target.sendBatch(deferred.map((d) => ({ body: d.body, delaySeconds: d.delaySeconds })));
  } catch (err) {
    for (const d of deferred) d.message.retry();
    log.error({ queue, message: `${what} over budget could not be deferred; retrying`, messages: deferred.length, error: errorText(err) });
    return;
  }
  for (const d of deferred) d.message.ack();
  const delays = deferred.map((d) => d.delaySeconds);
  log.warn({ queue, message: `${what} over a database's command budget; deferred`, messages: deferred.length, delaySeconds: [Math.min(...delays), Math.max(...delays)] });
}

