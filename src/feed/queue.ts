import type { Env } from "../env";
import type { EventBus } from "../lib/events";
import { type NewDeadLetter, recordDeadLetters } from "../lib/ops/dead-letters";
import { createServices, type Services } from "../lib/services";
import { deliver } from "./fanout";
import { FEED_DEAD_LETTER_QUEUES, type FeedMessage, sourceQueueOf } from "./messages";
import { errorText, log } from "../lib/log";

const DEAD_LETTER_QUEUES: ReadonlySet<string> = new Set(Object.values(FEED_DEAD_LETTER_QUEUES));

/**
 * The Worker's `queue()` handler. `feed-fanout` and `feed-follow-sync`: each message is delivered
 * on its own and acked, or retried by the queue (with `max_retries`, then moved to the queue's
 * dead-letter queue — wrangler.toml). `feed-fanout-dlq`, `feed-follow-sync-dlq`: see
 * `keepDeadLetters`. Nothing is lost from Postgres' point of view: a timeline that missed a
 * delivery is a cache, rebuilt from Postgres when it expires, and deleted posts stay hidden by
 * their tombstone; the dead letter lets an operator send the message again sooner.
 */
export function createQueueHandler(events: EventBus) {
  return async function queue(batch: MessageBatch<FeedMessage>, env: Env, ctx: ExecutionContext) {
    const { services, close } = createServices(env, ctx, events);
    try {
      if (DEAD_LETTER_QUEUES.has(batch.queue)) {
        await keepDeadLetters(services, batch);
        return;
      }
      for (const message of batch.messages) {
        const started = Date.now();
        try {
          const delivery = await deliver(services, message.body);
          message.ack();
          log.info({ queue: batch.queue, delivery, attempts: message.attempts, durationMs: Date.now() - started });
        } catch (err) {
          message.retry();
          log.error({ queue: batch.queue, message: "feed delivery failed; retrying", body: message.body, attempts: message.attempts, error: errorText(err) });
        }
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
async function keepDeadLetters(services: Services, batch: MessageBatch<FeedMessage>) {
  const queue = sourceQueueOf(batch.queue)!;
  const kept: NewDeadLetter[] = [];
  for (const m of batch.messages) {
    try {
      const delivery = await deliver(services, m.body);
      log.info({ queue: batch.queue, message: "dead letter delivered on its last attempt", delivery });
    } catch (err) {
      kept.push({ queue, body: m.body, lastError: errorText(err) });
      log.error({ message: "feed message dead-lettered", queue: batch.queue, body: m.body, attempts: m.attempts, error: errorText(err) });
    }
  }
  await recordDeadLetters(services.db, kept);
  batch.ackAll();
}
