import { describe, expect, it } from "vitest";
import { api, newId, show } from "../support/api";
import { badges, ok, pageThrough, service } from "./support";

const as = (userId: string) => ({ as: { userId } });
/** The Worker's safety clock moved forward (ENVIRONMENT=development honours it): a virtual clock for mute ends. */
const later = (ms: number) => ({ SAFETY_CLOCK_OFFSET_MS: String(ms) });

describe("PUT /v1/me/mutes/{userId}", () => {
  it("mutes with notifications by default and no end; a second call is idempotent", async () => {
    const [a, b] = [newId(), newId()];
    const first = await ok(api("PUT", `/v1/me/mutes/${b}`, as(a)));
    expect(first.body).toEqual({ userId: b, notifications: true, expiresAt: null, createdAt: expect.stringMatching(/^\d{4}-/), changed: true });
    const again = await ok(api("PUT", `/v1/me/mutes/${b}`, { ...as(a), body: {} }));
    expect(again.body).toEqual({ ...first.body, changed: false });
    const list = await ok(api("GET", "/v1/me/mutes", as(a)));
    expect(list.body).toEqual({ items: [{ userId: b, notifications: true, expiresAt: null, createdAt: first.body.createdAt }], nextCursor: null });
  });

  it("takes notifications and durationSeconds; a later PUT sets the mute as it says, keeping createdAt", async () => {
    const [a, b] = [newId(), newId()];
    const before = Date.now();
    const first = await ok(api("PUT", `/v1/me/mutes/${b}`, { ...as(a), body: { notifications: false, durationSeconds: 3600 } }));
    expect(first.body.notifications).toBe(false);
    const end = Date.parse(first.body.expiresAt);
    expect(end).toBeGreaterThanOrEqual(before + 3600_000);
    expect(end).toBeLessThan(Date.now() + 3600_000 + 1000);
    const changed = await ok(api("PUT", `/v1/me/mutes/${b}`, { ...as(a), body: { notifications: true } }));
    expect(changed.body).toEqual({ userId: b, notifications: true, expiresAt: null, createdAt: first.body.createdAt, changed: true });
  });

  it.each([
    [{ durationSeconds: 59 }, "durationSeconds"],
    [{ durationSeconds: 31_536_001 }, "durationSeconds"],
    [{ durationSeconds: 90.5 }, "durationSeconds"],
    [{ notifications: "yes" }, "notifications"],
  ])("answers 400 naming the field for %j, and stores nothing", async (body, field) => {
    const [a, b] = [newId(), newId()];
    const res = await api("PUT", `/v1/me/mutes/${b}`, { ...as(a), body });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field).toBe(field);
    expect((await ok(api("GET", "/v1/me/mutes", as(a)))).body.items).toEqual([]);
  });

  it("refuses to mute yourself (400 naming userId) and a bad id (400 naming userId)", async () => {
    const a = newId();
    for (const path of [`/v1/me/mutes/${a}`, "/v1/me/mutes/abc"]) {
      const res = await api("PUT", path, as(a));
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.details[0].field).toBe("userId");
    }
  });

  it("answers 409 past the bound; a mute that ended frees its place", async () => {
    const a = newId();
    const env = { SAFETY_MAX_ENTRIES: "2" };
    await ok(api("PUT", `/v1/me/mutes/${newId()}`, { ...as(a), env, body: { durationSeconds: 60 } }));
    await ok(api("PUT", `/v1/me/mutes/${newId()}`, { ...as(a), env }));
    const over = await api("PUT", `/v1/me/mutes/${newId()}`, { ...as(a), env });
    expect(over.status, show(over)).toBe(409);
    expect(over.body.error.details[0].field).toBe("userId");
    await ok(api("PUT", `/v1/me/mutes/${newId()}`, { ...as(a), env: { ...env, ...later(61_000) } }));
  });
});

describe("DELETE /v1/me/mutes/{userId}", () => {
  it("unmutes, idempotently", async () => {
    const [a, b] = [newId(), newId()];
    await ok(api("PUT", `/v1/me/mutes/${b}`, as(a)));
    expect((await ok(api("DELETE", `/v1/me/mutes/${b}`, as(a)))).body).toEqual({ userId: b, muted: false, changed: true });
    expect((await ok(api("DELETE", `/v1/me/mutes/${b}`, as(a)))).body.changed).toBe(false);
    expect((await ok(api("GET", "/v1/me/mutes", as(a)))).body.items).toEqual([]);
  });
});

describe("GET /v1/me/mutes", () => {
  it("pages newest first with random page sizes, every field as the mutes answered", async () => {
    const a = newId();
    const made: object[] = [];
    for (let i = 0; i < 17; i++) {
      const body = i % 3 === 0 ? { notifications: false } : i % 3 === 1 ? { durationSeconds: 600 + i } : {};
      const { changed: _, ...item } = (await ok(api("PUT", `/v1/me/mutes/${newId()}`, { ...as(a), body }))).body;
      made.push(item);
    }
    const expected = [...made].reverse();
    for (let run = 0; run < 3; run++) expect(await pageThrough(a, "/v1/me/mutes", () => 1 + Math.floor(Math.random() * 6))).toEqual(expected);
  });
});

describe("a mute's end (virtual clock)", () => {
  it("lists the mute and silences notifications until it ends, then neither, with no write in between", async () => {
    const [a, b] = [newId(), newId()];
    await ok(api("PUT", `/v1/me/mutes/${b}`, { ...as(a), body: { durationSeconds: 120 } }));
    const muted = await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "mention", from: b } }));
    expect(muted.body).toMatchObject({ applied: false, suppressed: "muted", count: 0, total: 0 });
    // 119 s later: still muted.
    const still = await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "mention", from: b }, env: later(119_000) }));
    expect(still.body.suppressed).toBe("muted");
    // 121 s later: ended, without anyone writing: counted again, and no longer listed.
    const ended = await ok(api("POST", `/v1/users/${a}/notifications`, { as: service(), body: { type: "mention", from: b }, env: later(121_000) }));
    expect(ended.body).toMatchObject({ applied: true, count: 1, total: 1 });
    expect(ended.body.suppressed).toBeUndefined();
    expect((await ok(api("GET", "/v1/me/mutes", { ...as(a), env: later(121_000) }))).body.items).toEqual([]);
    expect((await ok(api("GET", "/v1/me/mutes", as(a)))).body.items).toHaveLength(1);
    expect((await badges(a)).notifications).toMatchObject({ byType: { mention: 1 }, total: 1 });
  });
});
