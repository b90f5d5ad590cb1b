import { cronTasks, events, newApp } from "./app";
import type { Env } from "./env";
import { createScheduledHandler } from "./scheduled";

export { LiveRoom } from "./live/room";

const app = newApp();

export default {
  fetch: app.fetch,
  scheduled: createScheduledHandler(cronTasks, events),
} satisfies ExportedHandler<Env>;
