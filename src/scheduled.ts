import { RUN_FIELDS } from "./lib/ops/keys";
import { recordRun, type CronRunRecord } from "./lib/ops/record";
import { cronJobFor, type CronJobName } from "./cron";
import type { Env } from "./env";
import type { EventBus } from "./lib/events";
import { createServices, type Services } from "./lib/services";
import { errorText, log } from "./lib/log";

/** How one task of a cron run went, for its `record`. */
export type TaskOutcome = { at: string; durationMs: number } & ({ ok: true; result: unknown } | { ok: false; error: string });

/**
 * A unit of scheduled work; it reports what it did so the cron log line says it. `record` names
 * what of it the operations view keeps (fields of `ops:runs`, written with the run's own record in
 * the run's one HSET); nothing when it returns `{}`. `sample` names figures for the status history
 * (`ops:history`: the run's point, one a minute, written in the same round trip as the HSET).
 */
export type CronTask = {
  name: string;
  run: (services: Services) => Promise<unknown>;
  record?: (outcome: TaskOutcome) => Record<string, unknown>;
  sample?: (outcome: TaskOutcome) => Record<string, number | null>;
};

/**
 * Runs the tasks of the cron job that fired, one after another (each bounded by its own work
 * limits). A failing task is logged and does not stop the others; the next run retries it. The
 * run is then recorded for `GET /v1/admin/status` (and its history point, when a task sampled
 * figures) in ONE Redis round trip (best effort).
 */
export function createScheduledHandler(tasks: Record<CronJobName, readonly CronTask[]>, events: EventBus) {
  return async function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    const job = cronJobFor(controller.cron);
    if (!job) {
      log.error({ message: "unknown cron expression", cron: controller.cron });
      return;
    }
    const { services, close } = createServices(env, ctx, events);
    const runStarted = Date.now();
    const run: CronRunRecord = { startedAt: new Date(runStarted).toISOString(), durationMs: 0, outcome: "ok", tasks: [] };
    let fields: Record<string, unknown> = {};
    let figures: Record<string, number | null> | undefined;
    try {
      for (const task of tasks[job]) {
        const started = Date.now();
        let outcome: TaskOutcome;
        try {
          const result = await task.run(services);
          outcome = { at: new Date(started).toISOString(), durationMs: Date.now() - started, ok: true, result };
          log.info({ cron: job, task: task.name, durationMs: outcome.durationMs, result });
        } catch (err) {
          outcome = { at: new Date(started).toISOString(), durationMs: Date.now() - started, ok: false, error: errorText(err) };
          log.error({ cron: job, task: task.name, durationMs: outcome.durationMs, error: outcome.error });
        }
        run.tasks.push({ name: task.name, ok: outcome.ok, durationMs: outcome.durationMs, ...(outcome.ok ? {} : { error: outcome.error.slice(0, 500) }) });
        if (!outcome.ok) run.outcome = "error";
        fields = { ...fields, ...task.record?.(outcome) };
        if (task.sample) figures = { ...figures, ...task.sample(outcome) };
      }
      run.durationMs = Date.now() - runStarted;
      await recordRun(services.redis, { ...fields, [RUN_FIELDS.cron(job)]: run }, figures && { at: runStarted, values: figures });
    } finally {
      ctx.waitUntil(close());
    }
  };
}
