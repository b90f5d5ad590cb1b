/** Blocks and mutes at N = 3: each user's sets on their own database, a block writing both users' databases. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { databaseOf, topologyOf } from "../../src/lib/redis-topology";
import { api, newId, show } from "../support/api";
import { badges, followCounts, ok, service } from "./support";

const as = (userId: string) => ({ as: { userId } });
const n = () => topologyOf(env as unknown as Env).n;

/** Two fresh users whose keys live on different databases. */
function apart(): [string, string] {
  const a = newId();
  for (;;) {
    const b = newId();
    if (databaseOf(b, n()) !== databaseOf(a, n())) return [a, b];
  }
}

describe("blocks and mutes at N = 3", () => {
  it("runs at N = 3", () => expect(n()).toBe(3));

  it("a block of a user on another database ends both follows with exact counters and keeps them away both ways", async () => {
    const [a, b] = apart();
    // Both users' sets cached first (the write path), then a block.
    for (const u of [a, b]) await ok(api("POST", `/v1/users/${u}/notifications`, { as: service(), body: { type: "reply", from: newId() } }));
    await ok(api("PUT", `/v1/me/following/${b}`, as(a)));
    await ok(api("PUT", `/v1/me/following/${a}`, as(b)));
    const before = { [a]: (await badges(a)).notifications.total, [b]: (await badges(b)).notifications.total };
    await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
    expect(await followCounts(a, b)).toEqual({ [a]: { followers: 0, following: 0 }, [b]: { followers: 0, following: 0 } });
    for (const [to, from] of [[a, b], [b, a]] as const) {
      expect((await ok(api("POST", `/v1/users/${to}/notifications`, { as: service(), body: { type: "mention", from } }))).body.suppressed).toBe("blocked");
      const dm = await api("POST", `/v1/dms/${to}`, { as: service(), body: { from } });
      expect(dm.status, show(dm)).toBe(403);
      expect(dm.body.error.code).toBe("blocked");
      expect((await badges(to)).notifications.total).toBe(before[to]);
    }
    const follow = await api("PUT", `/v1/me/following/${a}`, as(b));
    expect(follow.status, show(follow)).toBe(403);
    await ok(api("DELETE", `/v1/me/blocks/${b}`, as(a)));
    expect((await ok(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: b } }))).body.applied).toBe(true);
    expect((await ok(api("POST", `/v1/dms/${b}`, { as: service(), body: { from: a } }))).body.applied).toBe(true);
  });

  it("sets not cached are rebuilt from Postgres on each user's own database", async () => {
    const [a, b] = apart();
    await ok(api("PUT", `/v1/me/blocks/${a}`, as(b)));
    expect((await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "mention", from: b } }))).body.suppressed).toBe("blocked");
    expect((await ok(api("POST", `/v1/users/${b}/notifications`, { as: service(), body: { type: "mention", from: a } }))).body.suppressed).toBe("blocked");
    await ok(api("PUT", `/v1/me/mutes/${a}`, as(b)));
    await ok(api("DELETE", `/v1/me/blocks/${a}`, as(b)));
    expect((await ok(api("POST", `/v1/dms/${b}`, { as: service(), body: { from: a } }))).body.suppressed).toBe("muted");
    expect((await ok(api("POST", `/v1/dms/${a}`, { as: service(), body: { from: b } }))).body.applied).toBe(true);
  });
});
