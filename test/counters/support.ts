import { createExecutionContext, env } from "cloudflare:test";
import { events } from "../../src/app";
import type { Env } from "../../src/env";
import { createServices, type Services } from "../../src/lib/services";
import { api, show } from "../support/api";

/** Services bound to the test stack (or to a chaos pair's bridge/proxy), for calling domain functions directly. */
export function servicesFor(overrides: Partial<Env> = {}): { services: Services; close: () => Promise<void> } {
  return createServices({ ...(env as unknown as Env), ...overrides }, createExecutionContext(), events);
}

/** GET /v1/counters/{entity}?ids=… → id → counts, failing with the response when not 200. */
export async function readCounts(entity: string, ids: string[], options: { env?: Partial<Env> } = {}) {
  const res = await api("GET", `/v1/counters/${entity}?ids=${ids.join(",")}`, options);
  if (res.status !== 200) throw new Error(show(res));
  return {
    stale: res.body.stale as boolean,
    counts: Object.fromEntries((res.body.items as { id: string; counts: Record<string, number> }[]).map((i) => [i.id, i.counts])),
  };
}
