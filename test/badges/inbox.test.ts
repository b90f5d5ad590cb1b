import { describe, expect, it } from "vitest";
import { api, newId, show } from "../support/api";

const service = { userId: "1", role: "service" as const };
const send = async (to: string[], type = "system") => {
  const res = await api("POST", "/v1/messages", { as: service, body: { to, type, title: "Hello", content: "Welcome aboard" } });
  expect(res.status, show(res)).toBe(201);
  return res.body.id as string;
};
const inboxBadge = async (userId: string) => (await api("GET", "/v1/me/badges", { as: { userId } })).body.inbox;

describe("POST /v1/messages", () => {
  it("stores one message for every recipient and counts it unread by type", async () => {
    const [a, b] = [newId(), newId()];
    await inboxBadge(a); // a's cache is built before the message, b's after
    await send([a, b], "system");
    await send([a], "promo");
    expect(await inboxBadge(a)).toEqual({ byType: { system: { count: 1, capped: false }, promo: { count: 1, capped: false } }, total: { count: 2, capped: false } });
    expect((await inboxBadge(b)).total.count).toBe(1);
  });

  it("rejects more than 1,000 recipients and bad fields", async () => {
    const tooMany = Array.from({ length: 1001 }, () => newId());
    const res = await api("POST", "/v1/messages", { as: service, body: { to: tooMany, type: "system", title: "t", content: "c" } });
    expect(res.status, show(res)).toBe(400);
    expect(JSON.stringify(res.body)).toContain("to");
    const noTitle = await api("POST", "/v1/messages", { as: service, body: { to: [newId()], type: "system", content: "c" } });
    expect(noTitle.status, show(noTitle)).toBe(400);
  });
});

describe("GET /v1/me/messages", () => {
  it("lists newest first, filtered by type and unread, paginated", async () => {
    const me = newId();
    const m1 = await send([me], "system");
    const m2 = await send([me], "promo");
    const m3 = await send([me], "system");
    await api("POST", `/v1/me/messages/${m3}/read`, { as: { userId: me } });
    const all = await api("GET", "/v1/me/messages?limit=2", { as: { userId: me } });
    expect(all.body.items.map((m: { id: string }) => m.id), show(all)).toEqual([m3, m2]);
    const rest = await api("GET", `/v1/me/messages?limit=2&cursor=${all.body.nextCursor}`, { as: { userId: me } });
    expect(rest.body.items.map((m: { id: string }) => m.id)).toEqual([m1]);
    const unreadSystem = await api("GET", "/v1/me/messages?type=system&unread=true", { as: { userId: me } });
    expect(unreadSystem.body.items.map((m: { id: string }) => m.id), show(unreadSystem)).toEqual([m1]);
  });
});

describe("POST /v1/me/messages/{id}/read", () => {
  it("is idempotent: the count moves once", async () => {
    const me = newId();
    const id = await send([me]);
    await send([me]);
    const first = await api("POST", `/v1/me/messages/${id}/read`, { as: { userId: me } });
    const again = await api("POST", `/v1/me/messages/${id}/read`, { as: { userId: me } });
    expect(first.body.changed, show(first)).toBe(true);
    expect(again.body.changed, show(again)).toBe(false);
    expect((await inboxBadge(me)).total.count).toBe(1);
  });

  it("answers 404 for a message not in the caller's inbox", async () => {
    const id = await send([newId()]);
    const res = await api("POST", `/v1/me/messages/${id}/read`, { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(404);
  });

  it("racing reads of the same messages never go negative", async () => {
    const me = newId();
    const ids = [await send([me]), await send([me]), await send([me])];
    await inboxBadge(me);
    await Promise.all(ids.flatMap((id) => [1, 2, 3].map(() => api("POST", `/v1/me/messages/${id}/read`, { as: { userId: me } }))));
    expect((await inboxBadge(me)).total.count).toBe(0);
    await send([me]);
    expect((await inboxBadge(me)).total.count).toBe(1);
  });
});

describe("POST /v1/me/messages/read", () => {
  it("marks all of one type read, idempotently", async () => {
    const me = newId();
    await send([me], "system");
    await send([me], "system");
    await send([me], "promo");
    await inboxBadge(me);
    const res = await api("POST", "/v1/me/messages/read?type=system", { as: { userId: me } });
    expect(res.body, show(res)).toMatchObject({ marked: 2 });
    const again = await api("POST", "/v1/me/messages/read?type=system", { as: { userId: me } });
    expect(again.body.marked).toBe(0);
    expect(await inboxBadge(me)).toEqual({ byType: { promo: { count: 1, capped: false } }, total: { count: 1, capped: false } });
  });
});
