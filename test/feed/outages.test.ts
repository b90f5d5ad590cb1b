/**
 * The feed through a private chaos bridge+proxy pair: outages of Redis or Postgres seen only by
 * this file's requests, and round trips counted exactly on the pair's own bridge.
 */
import { describe, expect, it } from "vitest";
import { feedKeys } from "../../src/feed/keys";
import { api, newId, show } from "../support/api";
import { useChaos } from "../support/stack";
import { eventually, feed, follow, newestFirst, post, redis } from "./support";

const chaos = useChaos();
const via = () => ({ env: chaos.current.bindings });

describe("when Redis is down", () => {
  it("answers from Postgres with the same item shape and degraded: true, pages included", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    const ids = [await post({ userId: a }, "one"), await post({ userId: a }, "two"), await post({ userId: me }, "mine")];
    expect((await api("PUT", `/v1/posts/${ids[0]}/likes/me`, { as: { userId: me } })).status).toBe(200);
    const warm = await feed(me);
    await chaos.current.setRedisDown(true);
    try {
      const first = await feed(me, "limit=2", via());
      expect(first.degraded).toBe(true);
      const second = await feed(me, `limit=2&cursor=${first.nextCursor}`, via());
      expect([...first.items, ...second.items].map((i) => i.post.id)).toEqual(newestFirst(ids));
      expect(second.nextCursor).toBeNull();
      const liked = [...first.items, ...second.items].find((i) => i.post.id === ids[0])!;
      expect(liked).toMatchObject({ liked: true, favorited: false, post: warm.items.find((i) => i.post.id === ids[0])!.post });
      expect(Object.keys(liked.counts).sort()).toEqual(["comments", "favorites", "forwards", "likes", "views"]);
    } finally {
      await chaos.current.setRedisDown(false);
    }
  });
});

describe("when Postgres is down", () => {
  it("still serves a warm timeline; an item whose post is not cached is left out, and the page says degraded", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    const [cold, hot] = [await post({ userId: a }, "cold"), await post({ userId: a }, "hot")];
    expect((await feed(me, "", via())).items).toHaveLength(2);
    await redis.del(feedKeys.post(cold));
    await chaos.current.setPostgresDown(true);
    try {
      const page = await feed(me, "", via());
      expect(page.items.map((i) => i.post.id)).toEqual([hot]);
      expect(page.degraded).toBe(true);
    } finally {
      await chaos.current.setPostgresDown(false);
    }
  });

  it("answers 503 unavailable (never a 500) for a timeline that must be built", async () => {
    const me = newId();
    await chaos.current.setPostgresDown(true);
    try {
      const res = await api("GET", "/v1/me/feed", { as: { userId: me }, ...via() });
      expect(res.status, show(res)).toBe(503);
      expect(res.body.error.code).toBe("unavailable");
    } finally {
      await chaos.current.setPostgresDown(false);
    }
  });
});

describe("round trips", () => {
  it("a warm page is one Redis round trip", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    for (let i = 0; i < 3; i++) await post({ userId: a });
    await eventually(() => feed(me, "", via()), (p) => p.items.length === 3);
    const before = await chaos.current.stats();
    const page = await feed(me, "", via());
    const after = await chaos.current.stats();
    expect(page.items).toHaveLength(3);
    expect(after.requests - before.requests).toBe(1);
  });

  it("a follow, an unfollow, a post and a delete are one Redis round trip each (counters, badges and feed in one pipeline)", async () => {
    const [me, a, b] = [newId(), newId(), newId()];
    // A first cycle builds the badges' follow cache and loads every script into Redis (the first
    // EVALSHA of a script Redis does not know costs a second request with EVAL).
    await follow(me, b, "PUT", via());
    await follow(me, b, "DELETE", via());
    const warmup = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "warm-up" }, ...via() });
    await api("DELETE", `/v1/posts/${warmup.body.id}`, { as: { userId: me }, ...via() });
    await follow(me, b, "PUT", via());
    await feed(me, "", via());
    const roundTrips = async (call: () => Promise<unknown>) => {
      const before = await chaos.current.stats();
      await call();
      return (await chaos.current.stats()).requests - before.requests;
    };
    expect(await roundTrips(() => follow(me, a, "PUT", via())), "follow").toBe(1);
    expect(await roundTrips(() => follow(me, a, "DELETE", via())), "unfollow").toBe(1);
    let id = "";
    expect(
      await roundTrips(async () => {
        const res = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "x" }, ...via() });
        expect(res.status, show(res)).toBe(201);
        id = res.body.id;
      }),
      "post",
    ).toBe(1);
    expect(await roundTrips(() => api("DELETE", `/v1/posts/${id}`, { as: { userId: me }, ...via() })), "delete").toBe(1);
  });
});
