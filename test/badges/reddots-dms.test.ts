import { describe, expect, it } from "vitest";
import { api, newId, show } from "../support/api";

const admin = { userId: "1", role: "admin" as const };
const service = { userId: "1", role: "service" as const };
const channel = () => `ch-${newId()}`;
const dots = async (userId: string) => (await api("GET", "/v1/me/reddots", { as: { userId } })).body.dots;

describe("PUT /v1/reddots/{channel}", () => {
  it("shows a dot to a user who never saw the channel, until they see it", async () => {
    const ch = channel();
    const user = newId();
    const put = await api("PUT", `/v1/reddots/${ch}`, { as: admin });
    expect(put.status, show(put)).toBe(200);
    expect((await dots(user))[ch]).toBe(true);
    const seen = await api("POST", `/v1/me/reddots/${ch}/seen`, { as: { userId: user } });
    expect(seen.status, show(seen)).toBe(200);
    expect((await dots(user))[ch]).toBe(false);
    await api("PUT", `/v1/reddots/${ch}`, { as: admin });
    expect((await dots(user))[ch], "a refresh after the visit shows the dot again").toBe(true);
  });

  it("rejects a bad channel name and a non-admin", async () => {
    expect((await api("PUT", "/v1/reddots/Bad Name!", { as: admin })).status).toBe(400);
    expect((await api("PUT", `/v1/reddots/${channel()}`, { as: { userId: newId() } })).status).toBe(403);
  });

  it("answers 404 for seeing a channel that does not exist", async () => {
    const res = await api("POST", `/v1/me/reddots/${channel()}/seen`, { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(404);
  });
});

describe("POST /v1/dms/{toUserId}", () => {
  it("counts per peer and in total; reading one peer fixes the total", async () => {
    const [me, p1, p2] = [newId(), newId(), newId()];
    await api("POST", `/v1/dms/${me}`, { as: service, body: { from: p1, count: 2 } });
    const res = await api("POST", `/v1/dms/${me}`, { as: service, body: { from: p2 } });
    expect(res.body, show(res)).toMatchObject({ count: 1, total: 3 });
    const read = await api("POST", `/v1/me/dms/${p1}/read`, { as: { userId: me } });
    expect(read.body, show(read)).toEqual({ peerId: p1, cleared: 2, total: 1 });
    const again = await api("POST", `/v1/me/dms/${p1}/read`, { as: { userId: me } });
    expect(again.body, show(again)).toEqual({ peerId: p1, cleared: 0, total: 1 });
    expect((await api("GET", "/v1/me/dms", { as: { userId: me } })).body).toEqual({ byPeer: { [p2]: 1 }, total: 1, degraded: false });
  });

  it("racing reads and new messages never leave a negative or lost count", async () => {
    const [me, peer] = [newId(), newId()];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 4 === 0 ? api("POST", `/v1/me/dms/${peer}/read`, { as: { userId: me } }) : api("POST", `/v1/dms/${me}`, { as: service, body: { from: peer } }),
      ),
    );
    const cleared = results.filter((r) => "cleared" in r.body).reduce((s, r) => s + r.body.cleared, 0);
    const sent = results.filter((r) => "count" in r.body).length;
    const after = (await api("GET", "/v1/me/dms", { as: { userId: me } })).body;
    expect(after.total + cleared, JSON.stringify(after)).toBe(sent);
    expect(after.total).toBe(after.byPeer[peer] ?? 0);
  });

  it("rejects a bad sender id", async () => {
    const res = await api("POST", `/v1/dms/${newId()}`, { as: service, body: { from: "abc" } });
    expect(res.status, show(res)).toBe(400);
    expect(JSON.stringify(res.body)).toContain("from");
  });
});
