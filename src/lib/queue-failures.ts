import type { Deferrable } from "./deferral";
import { errorText, log } from "./log";
import { isBudgetRefusal } from "./redis-failures";

/**
 * What a consumer does with a message whose handling threw, the one rule `notify-send` and
 * `account-erase` share: a budget refusal (outside the dead-letter queue) joins `overBudget`, to be
 * deferred; in the dead-letter queue the message is kept (`kept`, recorded in Postgres by the
 * caller); anything else is retried by the queue. `what` names the message in the log line.
 */
export function settleFailedMessage<M extends object, B>(
  message: Message<Deferrable<M>>,
  err: unknown,
  context: { queue: string; deadLetterOf: string | undefined; body: B; what: string; overBudget: Message<Deferrable<M>>[]; kept: { queue: string; body: B; lastError: string | null }[] },
): void {
  const { queue, deadLetterOf, body, what } = context;
  if (!deadLetterOf && isBudgetRefusal(err)) {
    context.overBudget.push(message);
  } else if (deadLetterOf) {
    context.kept.push({ queue: deadLetterOf, body, lastError: errorText(err) });
    log.error({ message: `${what} dead-lettered`, queue, body, error: errorText(err) });
  } else {
    message.retry();
    log.error({ message: `${what} failed; retrying`, queue, body, attempts: message.attempts, error: errorText(err) });
  }
}
