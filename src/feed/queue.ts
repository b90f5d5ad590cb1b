import type { Env } from "../env";
import type { EventBus } from "../lib/events";
import { createScriptBatch } from "../lib/script-batch";
import { createServices } from "../lib/services";
import { deliver } from "./fanout";
import { DEAD_LETTERS_CAP, feedKeys } from "./keys";
import { FEED_DEAD_LETTER_QUEUES, type FeedMessage } from "./messages";
import { RECORD_DEAD_LETTER } from "./reaction.lua";

const DEAD_LETTER_QUEUES: ReadonlySet<string> = new Set(Object.values(FEED_DEAD_LETTER_QUEUES));

/**
 * The Worker's `queue()` handler. `feed-fanout` and `feed-follow-sync`: each message is delivered
 * on its own and acked, or retried by the queue (with `max_retries`, then moved to the queue's
 * dead-letter queue — wrangler.toml). `feed-fanout-dlq`, `feed-follow-sync-dlq`: each dead letter is
 * logged and kept in `feed:dead` for operators. Nothing is lost from Postgres' point of view: a
 * timeline that missed a delivery is a cache, rebuilt from Postgres when it expires, and deleted
 * posts stay hidden by their tombstone.
 */
export function createQueueHandler(events: EventBus) {
  return async function queue(batch: MessageBatch<FeedMessage>, env: Env, ctx: ExecutionContext) {
    const { services, close } = createServices(env, ctx, events);
    try {
      if (DEAD_LETTER_QUEUES.has(batch.queue)) {
        // One round trip for the whole batch of dead letters.
        const redis = createScriptBatch(() => services.redis);
        await Promise.all(
          batch.messages.map((m) => {
            console.error(JSON.stringify({ level: "error", message: "feed message dead-lettered", queue: batch.queue, body: m.body, attempts: m.attempts }));
            return redis.createScript(RECORD_DEAD_LETTER).exec([feedKeys.deadLetters()], [JSON.stringify({ queue: batch.queue, body: m.body, at: Date.now() }), String(DEAD_LETTERS_CAP)]);
          }),
        );
        batch.ackAll();
        return;
      }
      for (const message of batch.messages) {
        const started = Date.now();
        try {
          const delivery = await deliver(services, message.body);
          message.ack();
          console.log(JSON.stringify({ level: "info", queue: batch.queue, delivery, attempts: message.attempts, durationMs: Date.now() - started }));
        } catch (err) {
          message.retry();
          console.error(
            JSON.stringify({ level: "error", queue: batch.queue, message: "feed delivery failed; retrying", body: message.body, attempts: message.attempts, error: err instanceof Error ? err.message : String(err) }),
          );
        }
      }
    } finally {
      ctx.waitUntil(close());
    }
  };
}
