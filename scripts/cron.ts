/**
 * `npm run cron -- flush|reconcile`: fire one cron job now on the running dev Worker.
 */
import { CRON_SCHEDULES } from "../src/cron.js";
import { fireCron } from "./fire-cron.js";

const job = process.argv[2] as keyof typeof CRON_SCHEDULES | undefined;
if (!job || !(job in CRON_SCHEDULES)) {
  console.error(`usage: npm run cron -- <${Object.keys(CRON_SCHEDULES).join("|")}>`);
  process.exit(2);
}
const expression = CRON_SCHEDULES[job];
try {
  const { status, body } = await fireCron(expression);
  console.log(`${job} (${expression}) → ${status} ${body}`);
  process.exit(status < 400 ? 0 : 1);
} catch (error) {
  console.error(`could not reach the dev Worker (is \`npm run dev\` running?): ${String(error)}`);
  process.exit(1);
}
