/**
 * Fires a cron trigger on a running dev Worker, which does not run crons by itself: `wrangler dev
 * --test-scheduled` exposes `/__scheduled?cron=<expr>`, `npm run dev -- --serve` (Miniflare's
 * entry worker) `/cdn-cgi/handler/scheduled?cron=<expr>`. The first route that is not the
 * Worker's own 404 wins.
 */
import { DEV_WORKER_URL } from "./dev-vars.js";

const ROUTES = ["/__scheduled", "/cdn-cgi/handler/scheduled"];

export async function fireCron(expression: string, workerUrl = DEV_WORKER_URL): Promise<{ status: number; body: string }> {
  let last = { status: 404, body: "" };
  for (const route of ROUTES) {
    const res = await fetch(`${workerUrl}${route}?cron=${encodeURIComponent(expression)}`);
    last = { status: res.status, body: await res.text() };
    if (res.status !== 404) return last;
  }
  return last;
}
