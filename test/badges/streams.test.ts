import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { badgeKeys, STREAM_META } from "../../src/badges/keys";
import type { Env } from "../../src/env";
import { redisFor } from "../../src/lib/redis";
import { api, newId, show } from "../support/api";
import { useChaos } from "../support/stack";

const redis = redisFor(env as unknown as Env);

const service = { userId: "1", role: "service" as const };
const join = (kind: string, id: string, userId: string) => api("PUT", `/v1/streams/${kind}/${id}/members/${userId}`, { as: service });
const item = (kind: string, id: string, body: Record<string, unknown> = {}) => api("POST", `/v1/streams/${kind}/${id}/items`, { as: service, body });
const unread = async (userId: string, cap = 99) => {
  const { degraded, ...body } = (await api("GET", `/v1/me/streams?cap=${cap}`, { as: { userId } })).body;
  expect(degraded).toBe(false);
  return body;
};

describe("POST /v1/streams/{kind}/{id}/items", () => {
  it("counts items after the member's last access, per stream and in total", async () => {
    const [me, c1, c2] = [newId(), newId(), newId()];
    expect((await join("chat", c1, me)).status).toBe(200);
    await join("group", c2, me);
    const now = Date.now();
    await item("chat", c1, { at: now + 10 });
    await item("chat", c1, { at: now + 20 });
    await item("group", c2, { at: now + 30 });
    expect(await unread(me)).toEqual({ total: 3, byStream: { [`chat/${c1}`]: 2, [`group/${c2}`]: 1 } });
  });

  it("keeps only the newest `cap` items of a stream", async () => {
    const [me, c] = [newId(), newId()];
    await join("chat", c, me);
    const now = Date.now();
    for (let i = 1; i <= 5; i++) {
      const res = await item("chat", c, { at: now + i, cap: 3 });
      expect(res.status, show(res)).toBe(200);
    }
    expect((await unread(me)).total).toBe(3);
  });

  it("records a repeated itemId once", async () => {
    const [me, c, itemId] = [newId(), newId(), newId()];
    await join("chat", c, me);
    await item("chat", c, { at: Date.now() + 5, itemId });
    await item("chat", c, { at: Date.now() + 5, itemId });
    expect((await unread(me)).total).toBe(1);
  });

  it("does not count items posted before a member joined", async () => {
    const [me, c] = [newId(), newId()];
    await item("chat", c, { at: Date.now() - 1000 });
    await join("chat", c, me);
    expect((await unread(me)).total).toBe(0);
  });

  it("rejects a bad kind and a non-service caller", async () => {
    expect((await item("Chat!", newId())).status).toBe(400);
    const asUser = await api("POST", `/v1/streams/chat/${newId()}/items`, { as: { userId: newId() }, body: {} });
    expect(asUser.status, show(asUser)).toBe(403);
  });
});

describe("POST /v1/me/streams/{kind}/{id}/read", () => {
  it("stamps the access so earlier items stop counting, and never moves it back", async () => {
    const [me, c] = [newId(), newId()];
    await join("chat", c, me);
    await item("chat", c, { at: Date.now() + 1 });
    const read = await api("POST", `/v1/me/streams/chat/${c}/read`, { as: { userId: me } });
    expect(read.status, show(read)).toBe(200);
    expect((await unread(me)).total).toBe(0);
    await item("chat", c, { at: Date.now() - 60_000 }); // an item stamped before the access
    expect((await unread(me)).total).toBe(0);
  });
});

describe("DELETE /v1/streams/{kind}/{id}/members/{userId}", () => {
  it("drops the stream from the member's total", async () => {
    const [me, c] = [newId(), newId()];
    await join("chat", c, me);
    await item("chat", c, { at: Date.now() + 1 });
    expect((await unread(me)).total).toBe(1);
    const res = await api("DELETE", `/v1/streams/chat/${c}/members/${me}`, { as: service });
    expect(res.body, show(res)).toMatchObject({ member: false, changed: true });
    expect((await unread(me)).total).toBe(0);
  });
});

describe("GET /v1/me/streams", () => {
  it("stops counting past the cap", async () => {
    const me = newId();
    const now = Date.now();
    for (let s = 0; s < 3; s++) {
      const c = newId();
      await join("chat", c, me);
      for (let i = 1; i <= 3; i++) await item("chat", c, { at: now + 60_000 + i });
    }
    const body = await unread(me, 4);
    expect(body.total, JSON.stringify(body)).toBeGreaterThan(4);
    expect(body.total).toBeLessThan(9);
  });
});

describe("stream writes while Redis is down", () => {
  const pair = useChaos();

  it("keeps membership and access in Postgres (degraded), refuses Redis-only items with 503, and counts correctly afterwards", async () => {
    const [me, c] = [newId(), newId()];
    const viaChaos = () => pair.current.bindings;
    await pair.current.setRedisDown(true);
    try {
      const joined = await api("PUT", `/v1/streams/chat/${c}/members/${me}`, { as: service, env: viaChaos() });
      expect(joined.status, show(joined)).toBe(200);
      expect(joined.body).toMatchObject({ member: true, changed: true, degraded: true });
      const read = await api("POST", `/v1/me/streams/chat/${c}/read`, { as: { userId: me }, env: viaChaos() });
      expect(read.status, show(read)).toBe(200);
      expect(read.body.degraded).toBe(true);
      const lost = await api("POST", `/v1/streams/chat/${c}/items`, { as: service, body: { at: Date.now() + 1_000 }, env: viaChaos() });
      expect(lost.status, show(lost)).toBe(503);
      const other = newId();
      await api("PUT", `/v1/streams/chat/${other}/members/${me}`, { as: service });
      const left = await api("DELETE", `/v1/streams/chat/${other}/members/${me}`, { as: service, env: viaChaos() });
      expect(left.status, show(left)).toBe(200);
      expect(left.body).toMatchObject({ member: false, changed: true, degraded: true });
    } finally {
      await pair.current.setRedisDown(false);
    }
    // The membership written during the outage counts once Redis is back (the cache is rebuilt
    // from Postgres), and the stream left during the outage does not.
    await item("chat", c, { at: Date.now() + 2_000 });
    expect(await unread(me)).toEqual({ total: 1, byStream: { [`chat/${c}`]: 1 } });
  });
});

describe("remembered stream counts", () => {
  /** Two reads in a row answer the same (the second from the remembered count); the total. */
  const unreadTwice = async (userId: string) => {
    const first = await unread(userId);
    expect(await unread(userId), "the remembered count").toEqual(first);
    return first.total;
  };

  it("follow every change: an item older than the newest, a trim, a read, a leave and a rejoin", async () => {
    const [me, c] = [newId(), newId()];
    const memo = `${STREAM_META}chat/${c}`;
    await join("chat", c, me);
    const later = Date.now() + 60_000;
    await item("chat", c, { at: later + 10 });
    await item("chat", c, { at: later + 30 });
    expect(await unreadTwice(me)).toBe(2);
    expect(await redis.hexists(badgeKeys.streamAccess(me), memo), "the count is remembered").toBe(1);
    await item("chat", c, { at: later + 20 }); // older than the newest: the last-item time stays
    expect(await unreadTwice(me)).toBe(3);
    await item("chat", c, { at: later + 40, cap: 2 }); // trims to the newest two
    expect(await unreadTwice(me)).toBe(2);
    await item("chat", c, { at: Date.now() + 1 }); // before the read below
    expect(await unreadTwice(me)).toBe(3);
    await api("POST", `/v1/me/streams/chat/${c}/read`, { as: { userId: me } });
    expect(await unreadTwice(me), "a read moves the access: the count is not reused").toBe(2);
    await api("DELETE", `/v1/streams/chat/${c}/members/${me}`, { as: service });
    expect(await unreadTwice(me)).toBe(0);
    expect(await redis.hexists(badgeKeys.streamAccess(me), memo), "a leave drops the remembered count").toBe(0);
    await join("chat", c, me);
    expect(await unreadTwice(me)).toBe(2);
  });

  it("is not reused when the stream's items are within the margin of their expiry", async () => {
    const [me, c] = [newId(), newId()];
    const stream = `chat/${c}`;
    await join("chat", c, me);
    await item("chat", c, { at: Date.now() + 60_000 });
    expect(await unreadTwice(me)).toBe(1);
    // The same version and remembered count, but items that expire in 10 minutes; then they expire.
    const version = `1:${Date.now() + 600_000}`;
    const access = await redis.hget<string>(badgeKeys.streamAccess(me), stream);
    await redis.hset(badgeKeys.streamLastItem(), { [`${STREAM_META}${stream}`]: version });
    await redis.hset(badgeKeys.streamAccess(me), { [`${STREAM_META}${stream}`]: `${access}@${version}=1` });
    await redis.del(badgeKeys.streamItems(stream));
    expect(await unread(me)).toEqual({ total: 0, byStream: {} });
  });
});
