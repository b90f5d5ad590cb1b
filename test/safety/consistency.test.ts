/**
 * Blocks and mutes are writes like the others: with read regions on they answer
 * `X-Consistency-Token`, so the writer's next request (any device carrying it) sees them; and a
 * Redis outage after Postgres committed answers 503, which a retry (idempotent) repairs.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { parseConsistencyToken } from "../../src/lib/consistency-token";
import { api, newId, show } from "../support/api";
import { useChaos } from "../support/stack";
import { ok, service } from "./support";

const HEADER = "X-Consistency-Token";

describe("blocks and mutes as writes", () => {
  const chaos = useChaos();
  const on = () => ({ ...chaos.current.bindings, REDIS_READ_REGIONS: "on" }) satisfies Partial<Env>;

  it.each([
    ["PUT", "blocks"],
    ["DELETE", "blocks"],
    ["PUT", "mutes"],
    ["DELETE", "mutes"],
  ])("%s /v1/me/%s/{userId} answers the sync token its write got", async (method, resource) => {
    const res = await api(method, `/v1/me/${resource}/${newId()}`, { as: { userId: newId() }, env: on() });
    expect(res.status, show(res)).toBe(200);
    expect(parseConsistencyToken(res.headers.get(HEADER)!)).toEqual([expect.stringMatching(/^local:\d+$/)]);
  });

  it("with Redis down after Postgres committed: 503, and the retry makes the block hold", async () => {
    const [a, b] = [newId(), newId()];
    const env = chaos.current.bindings;
    // A's sets cached, so only the block's own write can put B in them.
    await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "reply", from: newId() }, env }));
    await chaos.current.setRedisDown(true);
    const down = await api("PUT", `/v1/me/blocks/${b}`, { as: { userId: a }, env });
    await chaos.current.setRedisDown(false);
    expect(down.status, show(down)).toBe(503);
    const retry = await ok(api("PUT", `/v1/me/blocks/${b}`, { as: { userId: a }, env }));
    expect(retry.body.changed).toBe(false); // Postgres had it
    const note = await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "reply", from: b }, env }));
    expect(note.body.suppressed).toBe("blocked");
  });
});
