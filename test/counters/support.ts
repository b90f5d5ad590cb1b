import { createExecutionContext, env } from "cloudflare:test";
import { events } from "../../src/app";
import type { Env } from "../../src/env";
import { createServices, type Services } from "../../src/lib/services";
import { queryRows } from "../../src/counters/store";
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

/** Runs `work` with services bound to `env` (over the test stack's), closing them afterwards. */
export async function withServices<T>(env: Partial<Env>, work: (services: Services) => Promise<T>): Promise<T> {
  const { services, close } = servicesFor(env);
  try {
    return await work(services);
  } finally {
    await close();
  }
}

/** Postgres' `user.coins` of each id (0 when it has no row), straight from the counters table. */
export async function postgresCoins(ids: string[]): Promise<Record<string, number>> {
  return withServices({}, async (services) => {
    const rows = await queryRows<{ id: string; value: string }>(
      services.db,
      "SELECT entity_id::text AS id, value::text AS value FROM counters WHERE entity = 'user' AND field = 'coins' AND entity_id = ANY($1::bigint[])",
      [ids],
    );
    return Object.fromEntries(ids.map((id) => [id, Number(rows.find((r) => r.id === id)?.value ?? 0)]));
  });
}
