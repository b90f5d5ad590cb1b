/**
 * Fires a cron trigger on a running `wrangler dev --test-scheduled`, which
 * does not run crons by itself but exposes `/__scheduled?cron=<expr>`.
 */
import { DEV_WORKER_URL } from "./dev-vars.js";

export async function fireCron(expression: string, workerUrl = DEV_WORKER_URL): Promise<{ status: number; body: string }> {
  const res = await fetch(`${workerUrl}/__scheduled?cron=${encodeURIComponent(expression)}`);
  return { status: res.status, body: await res.text() };
}
