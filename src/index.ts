import { cronTasks, events, newApp } from "./app";
import type { Env } from "./env";
import type { FeedMessage } from "./feed/messages";
import { createQueueHandler } from "./feed/queue";
import { createScheduledHandler } from "./scheduled";

export { BadgeHub } from "./badges/live/hub";
export { LiveRoom } from "./live/room";

const app = newApp();

export default {
  fetch: app.fetch,
  scheduled: createScheduledHandler(cronTasks, events),
  queue: createQueueHandler(events),
} satisfies ExportedHandler<Env, FeedMessage>;
