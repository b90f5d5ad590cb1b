/**
 * Setup file of the Workers projects (vitest.config.ts): before the first test file of a workerd,
 * one `GET /health` (Redis and Postgres) warms the Worker, as a long-lived production isolate is
 * warm. Without it the first file's first request paid the runtime's cold start (the Worker's
 * modules, the first Postgres connection): on a loaded machine past the 2 s probe of
 * `GET /v1/admin/status`, which then said Postgres was down. Its answer does not matter.
 */
import { SELF } from "cloudflare:test";
import { beforeAll } from "vitest";

const state = globalThis as { workerWarmed?: boolean };

beforeAll(async () => {
  if (state.workerWarmed) return;
  state.workerWarmed = true;
  await SELF.fetch("http://edge.test/health").then((res) => res.arrayBuffer(), () => undefined);
});
