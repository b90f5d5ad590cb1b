import { cronJobFor, type CronJobName } from "./cron";
import type { Env } from "./env";
import type { EventBus } from "./lib/events";
import { createServices, type Services } from "./lib/services";

/** A unit of scheduled work; it reports what it did so the cron log line says it. */
export type CronTask = { name: string; run: (services: Services) => Promise<unknown> };

/**
 * Runs the tasks of the cron job that fired, one after another (each bounded by its own work
 * limits). A failing task is logged and does not stop the others; the next run retries it.
 */
export function createScheduledHandler(tasks: Record<CronJobName, readonly CronTask[]>, events: EventBus) {
  return async function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    const job = cronJobFor(controller.cron);
    if (!job) {
      console.error(JSON.stringify({ level: "error", message: "unknown cron expression", cron: controller.cron }));
      return;
    }
    const { services, close } = createServices(env, ctx, events);
    try {
      for (const task of tasks[job]) {
        const started = Date.now();
        try {
          const result = await task.run(services);
          console.log(JSON.stringify({ level: "info", cron: job, task: task.name, durationMs: Date.now() - started, result }));
        } catch (err) {
          console.error(
            JSON.stringify({ level: "error", cron: job, task: task.name, durationMs: Date.now() - started, error: err instanceof Error ? err.message : String(err) }),
          );
        }
      }
    } finally {
      ctx.waitUntil(close());
    }
  };
}
