import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADD_BROADCASTS } from "../../src/badges/broadcasts.lua";
import { badgeKeys } from "../../src/badges/keys";
import { runScript } from "../../src/badges/shared";
import type { Env } from "../../src/env";
import { redisFor } from "../../src/lib/redis";
import { api, newId, show } from "../support/api";

const admin = { userId: "1", role: "admin" as const };
const publish = async (title = "Maintenance tonight") => {
  const res = await api("POST", "/v1/broadcasts", { as: admin, body: { title, body: "We will be back soon." } });
  expect(res.status, show(res)).toBe(201);
  return res.body.id as string;
};
const redis = redisFor(env as unknown as Env);
const badges = async (userId: string, cap = 99) => (await api("GET", `/v1/me/badges?cap=${cap}`, { as: { userId } })).body;

// Broadcasts are global: only this file publishes them, and its tests run one after another.
describe("POST /v1/broadcasts", () => {
  it("stores a broadcast that every existing reader counts as unread", async () => {
    const user = newId();
    await publish("before the user was seen");
    expect((await badges(user)).broadcasts, "first sight counts nothing older").toEqual({ count: 0, capped: false });
    await publish();
    await publish();
    expect((await badges(user)).broadcasts).toEqual({ count: 2, capped: false });
  });

  it("is admin only and validates its fields", async () => {
    const asUser = await api("POST", "/v1/broadcasts", { as: { userId: newId() }, body: { title: "x", body: "y" } });
    expect(asUser.status, show(asUser)).toBe(403);
    const noTitle = await api("POST", "/v1/broadcasts", { as: admin, body: { body: "y" } });
    expect(noTitle.status, show(noTitle)).toBe(400);
    expect(JSON.stringify(noTitle.body)).toContain("title");
  });
});

describe("GET /v1/me/broadcasts", () => {
  it("lists newest first with a read flag, paginated", async () => {
    const user = newId();
    await badges(user);
    const a = await publish("a");
    const b = await publish("b");
    const first = await api("GET", "/v1/me/broadcasts?limit=1", { as: { userId: user } });
    expect(first.body.items.map((i: { id: string }) => i.id), show(first)).toEqual([b]);
    expect(first.body.unread).toBe(2);
    const second = await api("GET", `/v1/me/broadcasts?limit=1&cursor=${first.body.nextCursor}`, { as: { userId: user } });
    expect(second.body.items[0], show(second)).toMatchObject({ id: a, read: false });
  });
});

describe("POST /v1/me/broadcasts/read", () => {
  it("moves the marker up and never backwards", async () => {
    const user = newId();
    await badges(user);
    const a = await publish("a");
    const b = await publish("b");
    const upToB = await api("POST", "/v1/me/broadcasts/read", { as: { userId: user }, body: { upTo: b } });
    expect(upToB.body.lastReadId, show(upToB)).toBe(b);
    const back = await api("POST", "/v1/me/broadcasts/read", { as: { userId: user }, body: { upTo: a } });
    expect(back.body.lastReadId, show(back)).toBe(b);
    expect((await badges(user)).broadcasts.count).toBe(0);
  });

  it("reads up to the newest broadcast by default, idempotently", async () => {
    const user = newId();
    await badges(user);
    await publish();
    for (let i = 0; i < 2; i++) {
      const res = await api("POST", "/v1/me/broadcasts/read", { as: { userId: user } });
      expect(res.status, show(res)).toBe(200);
    }
    expect((await badges(user)).broadcasts.count).toBe(0);
    const list = await api("GET", "/v1/me/broadcasts?limit=5", { as: { userId: user } });
    expect(list.body.items.every((i: { read: boolean }) => i.read), show(list)).toBe(true);
  });

  it("caps the unread count", async () => {
    const user = newId();
    await badges(user);
    for (let i = 0; i < 4; i++) await publish(`n${i}`);
    expect((await badges(user, 3)).broadcasts).toEqual({ count: 3, capped: true });
    expect((await badges(user, 4)).broadcasts).toEqual({ count: 4, capped: false });
  });
});

describe("the broadcast id window", () => {
  it("keeps the newest ids between its two sentinels", async () => {
    const key = `test:bc:${newId()}`;
    await runScript(redis, ADD_BROADCASTS, [key, `${key}:items`], [3, 2, 5, "11", "12", "13", "14", "15"]);
    await runScript(redis, ADD_BROADCASTS, [key, `${key}:items`], [3, 2, 1, "16", "16", '["t","b","c"]']);
    expect((await redis.zrange<unknown[]>(key, 0, -1)).map(String)).toEqual(["0", "14", "15", "16", "top"]);
    await redis.del(key, `${key}:items`);
  });

  it("is rebuilt from Postgres when lost, never read as nothing unread", async () => {
    const user = newId();
    await badges(user);
    await publish("a");
    await publish("b");
    await redis.del(badgeKeys.broadcastIds());
    expect((await badges(user)).broadcasts).toEqual({ count: 2, capped: false });
    const list = await api("GET", "/v1/me/broadcasts?limit=5", { as: { userId: user } });
    expect(list.body.unread, show(list)).toBe(2);
  });
});
