import { createEraseQueueHandler } from "./accounts/queue";
import { type EraseMessage, isEraseQueue } from "./accounts/messages";
import { cronTasks, erasers, events, newApp } from "./app";
import type { Env } from "./env";
import type { FeedMessage } from "./feed/messages";
import { createQueueHandler } from "./feed/queue";
import { applyLogLevel } from "./lib/log";
import { createScheduledHandler } from "./scheduled";
import { createNotifyQueueHandler, isNotifyQueue } from "./notify/sender";
import type { NotifyQueueMessage } from "./notify/sends";

export { BadgeHub } from "./badges/live/hub";
export { LiveRoom } from "./live/room";

const app = newApp();

/** `handler` with the env's LOG_LEVEL applied first (src/lib/log.ts). */
function withLogLevel<T, R>(handler: (input: T, env: Env, ctx: ExecutionContext) => R) {
  return (input: T, env: Env, ctx: ExecutionContext): R => {
    applyLogLevel(env.LOG_LEVEL);
    return handler(input, env, ctx);
  };
}

export default {
  fetch: withLogLevel((request: Request, env, ctx) => app.fetch(request, env, ctx)),
  scheduled: withLogLevel(createScheduledHandler(cronTasks, events)),
  queue: withLogLevel(queues()),
} satisfies ExportedHandler<Env, FeedMessage | NotifyQueueMessage | EraseMessage>;

/** The feed's queues, the push queue and the account-erase queue, each with its own consumer. */
function queues() {
  const feed = createQueueHandler(events);
  const notify = createNotifyQueueHandler(events);
  const erase = createEraseQueueHandler(events, erasers);
  return (batch: MessageBatch<FeedMessage | NotifyQueueMessage | EraseMessage>, env: Env, ctx: ExecutionContext) => {
    if (isEraseQueue(batch.queue)) return erase(batch as MessageBatch<EraseMessage>, env, ctx);
    return isNotifyQueue(batch.queue) ? notify(batch as MessageBatch<NotifyQueueMessage>, env, ctx) : feed(batch as MessageBatch<FeedMessage>, env, ctx);
  };
}
