import { describe, expect, it } from "vitest";
import { api, newId, show, tokenFor } from "../support/api";
import { badgesOf, canonical, openLive, settled, until } from "./live-helpers";

const service = { userId: "1", role: "service" as const };

describe("GET /v1/me/live", () => {
  it("starts with a snapshot equal to GET /v1/me/badges?cap=", async () => {
    const me = newId();
    await api("POST", `/v1/users/${me}/notifications`, { as: service, body: { type: "reply", count: 3 } });
    const device = await openLive(me, { query: "cap=5" });
    const first = await until(() => device.messages[0], (m) => m !== undefined);
    expect(first.type).toBe("badges");
    expect(canonical(first.badges)).toBe(canonical(await badgesOf(me, 5)));
    expect(first.badges.notifications.total).toEqual({ count: 3, capped: false });
    expect(first.badges.feed).toEqual({ count: 0, capped: false });
    device.ws.close();
  });

  it("pushes a notification as only the kinds that changed", async () => {
    const me = newId();
    const device = await openLive(me);
    await until(() => device.state, (s) => s !== null);
    const res = await api("POST", `/v1/users/${me}/notifications`, { as: service, body: { type: "like", count: 2 } });
    expect(res.status, show(res)).toBe(200);
    const push = await until(() => device.messages.find((m) => m.changed), (m) => m !== undefined);
    expect(push).toEqual({ type: "badges", changed: { notifications: { byType: { like: { count: 2, capped: false } }, total: { count: 2, capped: false } } } });
    device.ws.close();
  });
});
