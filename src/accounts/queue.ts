import type { Env } from "../env";
import { deferForBudget, withoutDeferral, type Deferrable } from "../lib/deferral";
import { settleFailedMessage } from "../lib/queue-failures";
import type { EventBus } from "../lib/events";
import { log } from "../lib/log";
import { type NewDeadLetter, recordDeadLetters } from "../lib/ops/dead-letters";
import { createServices } from "../lib/services";
import { runEraseStep } from "./deletion";
import type { Eraser } from "../lib/erasers";
import { ERASE_DEAD_LETTER_QUEUES, ERASE_QUEUES, type EraseMessage } from "./messages";

/**
 * The Worker's `queue()` for `account-erase` and its dead-letter queue. Steps of one batch run one
 * after the other (a deletion is one chain of steps; several deletions share a batch). A step that
 * fails is retried by the queue (it is idempotent, so re-running it is safe) and, after its retries,
 * gets one last try in the dead-letter queue, then is kept in Postgres `dead_letters`; a repeated
 * deletion request resumes a deletion whose chain stopped. A step refused for a Redis database's
 * command budget is deferred with a growing delay (`deferForBudget`), using up no retries.
 */
export function createEraseQueueHandler(events: EventBus, erasers: readonly Eraser[]) {
  return async function queue(batch: MessageBatch<Deferrable<EraseMessage>>, env: Env, ctx: ExecutionContext) {
    const { services, close } = createServices(env, ctx, events);
    const dead = batch.queue === ERASE_DEAD_LETTER_QUEUES.erase;
    const kept: NewDeadLetter[] = [];
    const overBudget: Message<Deferrable<EraseMessage>>[] = [];
    try {
      for (const message of batch.messages) {
        const body = withoutDeferral(message.body);
        try {
          const outcome = await runEraseStep(services, erasers, body);
          if (outcome === "early" && !dead) {
            message.retry({ delaySeconds: 5 });
          } else {
            message.ack();
          }
          log.info({ queue: batch.queue, deletionId: body.deletionId, step: body.step, outcome });
        } catch (err) {
          settleFailedMessage(message, err, { queue: batch.queue, deadLetterOf: dead ? ERASE_QUEUES.erase : undefined, body, what: "erase step", overBudget, kept });
        }
      }
      if (overBudget.length > 0) await deferForBudget<EraseMessage>(env.ERASE_QUEUE, batch.queue, overBudget, "erase steps");
      if (dead) {
        await recordDeadLetters(services.db, kept);
        batch.ackAll();
      }
    } finally {
      ctx.waitUntil(close());
    }
  };
}
