import { cronTasks, events, newApp } from "./app";
import type { Env } from "./env";
import type { FeedMessage } from "./feed/messages";
import { createQueueHandler } from "./feed/queue";
import { applyLogLevel } from "./lib/log";
import { createScheduledHandler } from "./scheduled";

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
  queue: withLogLevel(createQueueHandler(events)),
} satisfies ExportedHandler<Env, FeedMessage>;
