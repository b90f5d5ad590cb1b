import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { warmAuthorSeen } from "../../src/badges/authors";
import { badgeKeys, BUILT } from "../../src/badges/keys";
import type { Env } from "../../src/env";
import { redisFor } from "../../src/lib/redis";
import { servicesFor } from "../counters/support";
import { api, newId, show } from "../support/api";

const redis = redisFor(env as unknown as Env);
const epochOf = async (userId: string) => String((await redis.get(badgeKeys.authorSeenEpoch(userId))) ?? "0");

const follow = (me: string, author: string) => api("PUT", `/v1/me/following/${author}`, { as: { userId: me } });
const post = async (author: string, n = 1) => {
  for (let i = 0; i < n; i++) {
    const res = await api("POST", "/v1/posts", { as: { userId: author }, body: { text: `post ${i}` } });
    expect(res.status, show(res)).toBe(201);
  }
};
const unread = async (userId: string, q = "") => (await api("GET", `/v1/me/unread/authors${q}`, { as: { userId } })).body;

describe("GET /v1/me/unread/authors", () => {
  it("counts new posts per followed author, largest first, starting at the follow", async () => {
    const [me, a, b] = [newId(), newId(), newId()];
    await post(a, 2); // before the follow: not counted
    await follow(me, a);
    await follow(me, b);
    await post(a, 1);
    await post(b, 3);
    const body = await unread(me);
    expect(body.items, JSON.stringify(body)).toEqual([
      { authorId: b, unread: 3 },
      { authorId: a, unread: 1 },
    ]);
    expect(body.total).toBe(4);
    const page = await unread(me, "?limit=1");
    const next = await unread(me, `?limit=1&cursor=${page.nextCursor}`);
    expect(next.items, JSON.stringify(next)).toEqual([{ authorId: a, unread: 1 }]);
    expect(next.nextCursor).toBeNull();
  });

  it("drops an unfollowed author from the total", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    await post(a, 2);
    expect((await unread(me)).total).toBe(2);
    await api("DELETE", `/v1/me/following/${a}`, { as: { userId: me } });
    expect((await unread(me)).total).toBe(0);
  });

  it("rejects a tampered cursor", async () => {
    const res = await api("GET", "/v1/me/unread/authors?cursor=nope", { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(400);
  });
});

describe("POST /v1/me/authors/{id}/seen", () => {
  it("catches up on one author only", async () => {
    const [me, a, b] = [newId(), newId(), newId()];
    await follow(me, a);
    await follow(me, b);
    await post(a, 2);
    await post(b, 1);
    const res = await api("POST", `/v1/me/authors/${a}/seen`, { as: { userId: me } });
    expect(res.status, show(res)).toBe(200);
    expect((await unread(me)).items).toEqual([{ authorId: b, unread: 1 }]);
  });

  it("answers 404 for an author the caller does not follow", async () => {
    const res = await api("POST", `/v1/me/authors/${newId()}/seen`, { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(404);
  });
});

describe("the follow cache (badge:au:{user})", () => {
  it("is built on a first follow with every follow and the sentinel `all`", async () => {
    const [me, a, b] = [newId(), newId(), newId()];
    expect((await follow(me, a)).status).toBe(200);
    expect((await follow(me, b)).status).toBe(200);
    expect(await redis.hget(badgeKeys.authorSeen(me), BUILT)).toBe("all");
    expect(await redis.hexists(badgeKeys.authorSeen(me), a)).toBe(1);
    expect(await redis.hexists(badgeKeys.authorSeen(me), b)).toBe(1);
    expect(await redis.ttl(badgeKeys.authorSeenEpoch(me))).toBeGreaterThan(0);
  });

  it("is not rebuilt from rows read before an unfollow (the epoch moved)", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    await redis.del(badgeKeys.authorSeen(me));
    const before = await epochOf(me); // a rebuild starts here, reads Postgres (a is followed) …
    await api("DELETE", `/v1/me/following/${a}`, { as: { userId: me } }); // … the unfollow returns …
    const { services, close } = servicesFor();
    try {
      expect((await warmAuthorSeen(services, me, before)).written, "the stale rebuild must not write").toBe(false);
      expect(await redis.exists(badgeKeys.authorSeen(me))).toBe(0);
      const fresh = await warmAuthorSeen(services, me);
      expect(fresh).toMatchObject({ written: true, complete: true, followees: [] });
      expect(await redis.hget(badgeKeys.authorSeen(me), BUILT)).toBe("all");
    } finally {
      await close();
    }
  });

  it("is not rebuilt from rows read before a follow (the epoch moved)", async () => {
    const [me, a, b] = [newId(), newId(), newId()];
    await follow(me, a);
    await redis.del(badgeKeys.authorSeen(me));
    const before = await epochOf(me);
    await follow(me, b); // the cache is missing: the follow's own rebuild writes it with b
    await redis.del(badgeKeys.authorSeen(me)); // as if it had lost the race to the stale rebuild below
    const { services, close } = servicesFor();
    try {
      expect((await warmAuthorSeen(services, me, before)).written).toBe(false);
    } finally {
      await close();
    }
  });
});
