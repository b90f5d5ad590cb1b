import { expect } from "vitest";
import { api, show } from "../support/api";

/** The answer's body, failing with the response unless its status is `status`. */
export async function ok(res: Promise<{ status: number; body: any }>, status = 200) {
  const r = await res;
  expect(r.status, show(r as never)).toBe(status);
  return r.body;
}

/** Every counter of `ids` of `entity`, as the counters API reads them. */
export async function counts(entity: string, ids: string[]) {
  const body = await ok(api("GET", `/v1/counters/${entity}?ids=${ids.join(",")}`));
  return Object.fromEntries((body.items as { id: string; counts: Record<string, number> }[]).map((i) => [i.id, i.counts]));
}
