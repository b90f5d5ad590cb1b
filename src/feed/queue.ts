import type { Env } from "../env";
import type { EventBus } from "../lib/events";
import { type NewDeadLetter, recordDeadLetters } from "../lib/ops/dead-letters";
import { createServices, type Services } from "../lib/services";
import { isBudgetRefusal } from "../lib/redis-failures";
import { deferForBudget, withoutDeferral } from "../lib/deferral";
import { deliver } from "./fanout";
import { FEED_DEAD_LETTER_QUEUES, FEED_QUEUES, sourceQueueOf, type FeedMessage, type QueuedFeedMessage } from "./messages";
import { errorText, log } from "../lib/log";

const DEAD_LETTER_QUEUES: ReadonlySet<string> = new Set(Object.values(FEED_DEAD_LETTER_QUEUES));

/**
 * The Worker's `queue()` handler. `feed-fanout` and `feed-follow-sync`: each message is delivered
 * on its own and acked, or retried by the queue (with `max_retries`, then moved to the queue's
 * dead-letter queue — wrangler.toml). `feed-fanout-dlq`, `feed-follow-sync-dlq`: see
 * `keepDeadLetters`. Nothing is lost from Postgres' point of view: a timeline that missed a
 * delivery is a cache, rebuilt from Postgres when it expires, and deleted posts stay hidden by
 * their tombstone; the dead letter lets an operator send the message again sooner.
 *
 * A delivery refused for a database's command budget is not a failure of the message: it is
 * deferred (`deferForBudget`, src/lib/deferral.ts: sent again with a growing delay, 2, 4, 8 … s
 * up to 5 minutes, for up to a day), so a long overrun never uses up its retries.
 */
export function createQueueHandler(events: EventBus) {
  return async function queue(batch: MessageBatch<QueuedFeedMessage>, env: Env, ctx: ExecutionContext) {
    const { services, close } = createServices(env, ctx, events);
    try {
      if (DEAD_LETTER_QUEUES.has(batch.queue)) {
        await keepDeadLetters(services, batch);
        return;
      }
      const overBudget: Message<QueuedFeedMessage>[] = [];
      for (const message of batch.messages) {
        const started = Date.now();
        try {
          const delivery = await deliver(services, withoutDeferral(message.body));
          message.ack();
          log.info({ queue: batch.queue, delivery, attempts: message.attempts, deferrals: message.body.deferred?.times, durationMs: Date.now() - started });
        } catch (err) {
          if (isBudgetRefusal(err)) {
            overBudget.push(message);
            continue;
          }
          message.retry();
          log.error({ queue: batch.queue, message: "feed delivery failed; retrying", body: message.body, attempts: message.attempts, error: errorText(err) });
        }
      }
      if (overBudget.length > 0) {
        // Sent again to their own queue, not `retry({ delaySeconds })`: see src/lib/deferral.ts.
        const target = batch.queue === FEED_QUEUES.followSync ? services.env.FEED_SYNC_QUEUE : services.env.FEED_QUEUE;
        await deferForBudget<FeedMessage>(target as Queue<QueuedFeedMessage>, batch.queue, overBudget, "feed deliveries");
      }
    } finally {
      ctx.waitUntil(close());
    }
  };
}

/**
 * A dead-letter queue's batch: each message gets one last delivery (the queue carries no error,
 * and this is how the dead letter keeps the real last one); those that fail again are kept in
 * Postgres (`dead_letters`, one statement for the batch) for operators to replay or discard, and
 * logged. If Postgres cannot take them, the whole batch is retried by the dead-letter queue
 * (wrangler.toml `max_retries`), so a dead letter is not dropped by a Postgres outage.
 */
async function keepDeadLetters(services: Services, batch: MessageBatch<QueuedFeedMessage>) {
  const queue = sourceQueueOf(batch.queue)!;
  const kept: NewDeadLetter[] = [];
  for (const m of batch.messages) {
    const body = withoutDeferral(m.body);
    try {
      const delivery = await deliver(services, body);
      log.info({ queue: batch.queue, message: "dead letter delivered on its last attempt", delivery });
    } catch (err) {
      kept.push({ queue, body, lastError: errorText(err) });
      log.error({ message: "feed message dead-lettered", queue: batch.queue, body: m.body, attempts: m.attempts, error: errorText(err) });
    }
  }
  await recordDeadLetters(services.db, kept);
  batch.ackAll();
}
