import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { badgeKeys } from "../../src/badges/keys";
import type { Env } from "../../src/env";
import { redisFor } from "../../src/lib/redis";
import { api, newId, show } from "../support/api";

const service = { userId: "1", role: "service" as const };
const add = (userId: string, body: unknown, headers?: Record<string, string>) =>
  api("POST", `/v1/users/${userId}/notifications`, { as: service, body, headers });
const counts = async (userId: string) => {
  const { degraded, ...body } = (await api("GET", "/v1/me/notifications", { as: { userId } })).body;
  expect(degraded).toBe(false);
  return body;
};

describe("POST /v1/users/{id}/notifications", () => {
  it("adds to the type and the total in one step", async () => {
    const user = newId();
    const res = await add(user, { type: "reply", count: 3 });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ type: "reply", count: 3, total: 3, applied: true });
    await add(user, { type: "like" });
    expect(await counts(user)).toEqual({ byType: { reply: 3, like: 1 }, total: 4 });
  });

  it("applies a repeated Idempotency-Key once", async () => {
    const user = newId();
    const first = await add(user, { type: "mention", count: 2 }, { "Idempotency-Key": "k-1" });
    const again = await add(user, { type: "mention", count: 2 }, { "Idempotency-Key": "k-1" });
    expect(first.body.applied, show(first)).toBe(true);
    expect(again.body, show(again)).toMatchObject({ applied: false, count: 2, total: 2 });
  });

  it("counts 100 parallel notifications to one user as 100", async () => {
    const user = newId();
    const results = await Promise.all(Array.from({ length: 100 }, () => add(user, { type: "like" })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(await counts(user)).toEqual({ byType: { like: 100 }, total: 100 });
  });

  it("rejects an unknown type, a bad count and a non-service caller, changing nothing", async () => {
    const user = newId();
    const badType = await add(user, { type: "poke" });
    expect(badType.status, show(badType)).toBe(400);
    expect(JSON.stringify(badType.body)).toContain("type");
    const badCount = await add(user, { type: "like", count: 0 });
    expect(badCount.status, show(badCount)).toBe(400);
    const asUser = await api("POST", `/v1/users/${user}/notifications`, { as: { userId: user }, body: { type: "like" } });
    expect(asUser.status, show(asUser)).toBe(403);
    expect(await counts(user)).toEqual({ byType: {}, total: 0 });
  });
});

describe("script failures", () => {
  it("answer 500 (a bug to fix), not 503 (an outage to retry)", async () => {
    const user = newId();
    await redisFor(env as unknown as Env).set(badgeKeys.notifications(user), "not a hash");
    const res = await add(user, { type: "like" });
    expect(res.status, show(res)).toBe(500);
  });
});

describe("POST /v1/me/notifications/{type}/read", () => {
  it("zeroes one type and takes exactly its count off the total", async () => {
    const user = newId();
    await add(user, { type: "reply", count: 2 });
    await add(user, { type: "like", count: 5 });
    const res = await api("POST", "/v1/me/notifications/like/read", { as: { userId: user } });
    expect(res.body, show(res)).toEqual({ type: "like", cleared: 5, total: 2 });
    expect(await counts(user)).toEqual({ byType: { reply: 2 }, total: 2 });
  });

  it("racing new notifications never leaves a negative or lost count", async () => {
    const user = newId();
    const ops = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 0 ? api("POST", "/v1/me/notifications/like/read", { as: { userId: user } }) : add(user, { type: i % 2 ? "like" : "reply" }),
    );
    const results = await Promise.all(ops);
    const cleared = results.filter((r) => "cleared" in (r.body ?? {})).reduce((s, r) => s + r.body.cleared, 0);
    const added = results.filter((r) => "applied" in (r.body ?? {})).length;
    const after = await counts(user);
    const sum = Object.values(after.byType as Record<string, number>).reduce((s, n) => s + n, 0);
    expect(after.total, JSON.stringify(after)).toBe(sum);
    expect(after.total + cleared).toBe(added);
    expect(Object.values(after.byType as Record<string, number>).every((n) => n > 0)).toBe(true);
  });
});

describe("POST /v1/me/notifications/read", () => {
  it("zeroes every type", async () => {
    const user = newId();
    await add(user, { type: "reply", count: 2 });
    await add(user, { type: "follow" });
    const res = await api("POST", "/v1/me/notifications/read", { as: { userId: user } });
    expect(res.body, show(res)).toEqual({ cleared: 3, total: 0 });
    expect(await counts(user)).toEqual({ byType: {}, total: 0 });
  });
});

describe("follow.created", () => {
  it("bumps the followee's follow badge", async () => {
    const [a, b] = [newId(), newId()];
    const res = await api("PUT", `/v1/me/following/${b}`, { as: { userId: a } });
    expect(res.status, show(res)).toBe(200);
    expect(await counts(b)).toEqual({ byType: { follow: 1 }, total: 1 });
  });
});
