/**
 * Cron triggers by job name. wrangler.toml declares the same expressions; the scheduled handler
 * and the local dev runner both look jobs up here.
 */
export const CRON_SCHEDULES = {
  /** Cut pending counter deltas into a batch and apply it to Postgres. */
  flush: "* * * * *",
  /** Recompute relation-derived counters from Postgres and repair drift. */
  reconcile: "0 3 * * *",
} as const;

export type CronJobName = keyof typeof CRON_SCHEDULES;

export function cronJobFor(expression: string): CronJobName | undefined {
  return (Object.keys(CRON_SCHEDULES) as CronJobName[]).find((name) => CRON_SCHEDULES[name] === expression);
}
