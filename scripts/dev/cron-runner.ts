/**
 * Fires the Worker's cron triggers on their schedule, as Cloudflare would: neither `wrangler dev`
 * nor Miniflare runs them by themselves.
 */
import { Cron } from "croner";
import { CRON_SCHEDULES } from "../../src/cron.js";

export interface CronRunner {
  stop(): void;
}

export function startCronRunner({ fire, log }: { fire: (expression: string) => Promise<number>; log: (line: string) => void }): CronRunner {
  const crons = Object.entries(CRON_SCHEDULES).map(
    ([name, expression]) =>
      // UTC, as Cloudflare runs cron triggers; `protect` skips a run while the last one still runs.
      new Cron(expression, { timezone: "UTC", protect: true }, async () => {
        try {
          log(`cron ${name} (${expression}) → ${await fire(expression)}`);
        } catch (error) {
          log(`cron ${name} (${expression}) could not reach the Worker: ${String(error)}`);
        }
      }),
  );
  return {
    stop: () => crons.forEach((cron) => cron.stop()),
  };
}
