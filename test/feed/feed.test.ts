/**
 * GET /v1/me/feed end to end: the Worker, the real queue (miniflare runs the `feed-fanout`
 * consumer), Redis through the Upstash bridge and Postgres through the Neon proxy.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { counterKeys } from "../../src/counters/keys";
import type { Env } from "../../src/env";
import { feedKeys } from "../../src/feed/keys";
import { api, newId, show } from "../support/api";
import { eventually, feed, follow, newestFirst, post, redis, removePost, walk } from "./support";

describe("GET /v1/me/feed", () => {
  it("shows my own post in the response to my next read, hydrated with counts and my flags", async () => {
    const me = newId();
    await feed(me); // builds my (empty) timeline, so the post is pushed rather than rebuilt
    const id = await post({ userId: me }, "first!");
    const page = await feed(me);
    expect(page.items.map((i) => i.post)).toEqual([{ id, authorId: me, text: "first!", createdAt: expect.any(String) }]);
    expect(page.items[0]!.counts).toEqual({ likes: 0, comments: 0, forwards: 0, views: 0, favorites: 0 });
    expect(page.items[0]).toMatchObject({ liked: false, favorited: false });
    expect(page.degraded).toBe(false);
  });

  it("shows the posts of the accounts I follow, newest first, delivered through the queue", async () => {
    const [me, a, b] = [newId(), newId(), newId()];
    await follow(me, a);
    await follow(me, b);
    await feed(me);
    const posted = [await post({ userId: a }), await post({ userId: b }), await post({ userId: a })];
    const page = await eventually(() => feed(me), (p) => p.items.length === 3);
    expect(page.items.map((i) => i.post.id)).toEqual(newestFirst(posted));
    expect(page.items.map((i) => i.post.authorId)).toEqual([a, b, a]);
  });

  it("builds a missing timeline from Postgres on first read (followees' and my own live posts)", async () => {
    const [me, a] = [newId(), newId()];
    const older = await post({ userId: a });
    const mine = await post({ userId: me });
    const deleted = await post({ userId: a });
    await removePost(a, deleted);
    await follow(me, a);
    const page = await feed(me);
    expect(page.items.map((i) => i.post.id)).toEqual(newestFirst([older, mine]));
  });

  it("carries likes, favourites and the caller's flags", async () => {
    const [me, a, fan] = [newId(), newId(), newId()];
    await follow(me, a);
    const id = await post({ userId: a });
    await feed(me);
    for (const who of [me, fan]) expect((await api("PUT", `/v1/posts/${id}/likes/me`, { as: { userId: who } })).status).toBe(200);
    expect((await api("PUT", `/v1/posts/${id}/favorites/me`, { as: { userId: me } })).status).toBe(200);
    const mine = await eventually(() => feed(me), (p) => p.items.length === 1);
    expect(mine.items[0]).toMatchObject({ counts: { likes: 2, favorites: 1 }, liked: true, favorited: true });
    expect((await api("DELETE", `/v1/posts/${id}/likes/me`, { as: { userId: me } })).status).toBe(200);
    expect((await feed(me)).items[0]).toMatchObject({ counts: { likes: 1 }, liked: false, favorited: true });
  });

  it("keeps the flags of the items above the flag cache's floor on a page that also reaches below it", async () => {
    const [me, a, b] = [newId(), newId(), newId()];
    const old = await post({ userId: b });
    await follow(me, a);
    const id = await post({ userId: a });
    await feed(me); // the build: my flags are cached complete from `id` up (the floor)
    for (const [kind, postId] of [["likes", id], ["favorites", id], ["likes", old]] as const) {
      expect((await api("PUT", `/v1/posts/${postId}/${kind}/me`, { as: { userId: me } })).status).toBe(200);
    }
    await follow(me, b); // its sync copies `old`, below the floor, into my timeline
    const page = await eventually(() => feed(me, "limit=5"), (p) => p.items.length === 2);
    expect(page.items.map(({ post, liked, favorited }) => ({ id: post.id, liked, favorited }))).toEqual([
      { id, liked: true, favorited: true },
      { id: old, liked: true, favorited: false },
    ]);
  });

  it("never shows a post after its delete returned, even before the removal reaches the timelines", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    await feed(me);
    const id = await post({ userId: a });
    await eventually(() => feed(me), (p) => p.items.some((i) => i.post.id === id));
    await removePost(a, id);
    // The very next read, whatever the queue did meanwhile.
    expect((await feed(me)).items.map((i) => i.post.id)).not.toContain(id);
    await eventually(() => redis.zrange(feedKeys.timeline(me), 0, -1), (m) => !m.some((x) => String(x).startsWith(`${id}:`)));
  });

  it("drops an unfollowed account's posts at once; a new follow brings its recent posts", async () => {
    const [me, a, b] = [newId(), newId(), newId()];
    await follow(me, a);
    const fromA = await post({ userId: a });
    const fromB = [await post({ userId: b }), await post({ userId: b })];
    expect((await feed(me)).items.map((i) => i.post.id)).toEqual([fromA]);
    await follow(me, a, "DELETE");
    expect((await feed(me)).items).toEqual([]);
    await follow(me, b);
    const page = await eventually(() => feed(me), (p) => p.items.length === 2);
    expect(page.items.map((i) => i.post.id)).toEqual(newestFirst(fromB));
  });

  it("ends with exactly the right posts after a quick follow → unfollow → follow", async () => {
    const [me, a] = [newId(), newId()];
    const posts = [await post({ userId: a }), await post({ userId: a })];
    await feed(me);
    await follow(me, a);
    await follow(me, a, "DELETE");
    await follow(me, a);
    const page = await eventually(() => feed(me), (p) => p.items.length === 2);
    expect(page.items.map((i) => i.post.id)).toEqual(newestFirst(posts));
    await new Promise((r) => setTimeout(r, 300)); // any late sync has landed by now
    expect((await feed(me)).items.map((i) => i.post.id)).toEqual(newestFirst(posts));
  });

  it("pages without duplicates or gaps while new posts arrive and posts are deleted", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await post({ userId: a }, `p${i}`));
    await feed(me);
    const seen: string[] = [];
    let cursor: string | null = null;
    const deleted = ids[3]!;
    for (let pageNo = 0; pageNo < 20; pageNo++) {
      const page = await feed(me, `limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.items.map((i) => i.post.id));
      if (pageNo === 0) {
        await post({ userId: a }, "new while paging"); // newer than the cursor: not on later pages
        await removePost(a, deleted); // older than the cursor: must simply never show up
      }
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(newestFirst(ids).filter((id) => id !== deleted));
  });

  it("answers 400 naming the field for a bad cursor or limit, and 401 without a token", async () => {
    const me = newId();
    for (const query of ["cursor=garbage", "cursor=WyJ4Il0", "limit=0", "limit=101", "limit=abc"]) {
      const res = await api("GET", `/v1/me/feed?${query}`, { as: { userId: me } });
      expect(res.status, `${query}: ${show(res)}`).toBe(400);
      expect(res.body.error.details[0].field).toBe(query.split("=")[0]);
    }
    expect((await api("GET", "/v1/me/feed")).status).toBe(401);
  });

  it("has no route to read another user's timeline", async () => {
    const other = newId();
    for (const path of [`/v1/users/${other}/feed`, `/v1/feed/${other}`, `/v1/me/feed/${other}`]) {
      expect((await api("GET", path, { as: { userId: newId() } })).status, path).toBe(404);
    }
  });
});

describe("API documentation", () => {
  it("lists the feed routes with their parameters, and no bench baseline", async () => {
    const res = await api("GET", "/openapi.json");
    expect(res.status).toBe(200);
    const feedParams = res.body.paths["/v1/me/feed"].get.parameters.map((p: { name: string }) => p.name);
    expect(feedParams).toEqual(expect.arrayContaining(["limit", "cursor", "order"]));
    expect(res.body.paths["/v1/posts/trending"].get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["window", "limit"]));
    expect(Object.keys(res.body.paths).filter((p) => p.includes("bench"))).toEqual([]);
  });
});

describe("timeline storage", () => {
  it("writes an empty marker with a short TTL for an empty timeline, so empty reads skip Postgres", async () => {
    const me = newId();
    expect((await feed(me)).items).toEqual([]);
    expect(await redis.zrange(feedKeys.timeline(me), 0, -1)).toEqual([0]); // the client parses "0"
    const ttl = await redis.ttl(feedKeys.timeline(me));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
  });

  it("keeps a read timeline for a week", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    await post({ userId: a });
    await feed(me);
    expect(await redis.ttl(feedKeys.timeline(me))).toBeGreaterThan(6 * 24 * 3600);
  });

  it("caps a timeline at FEED_TIMELINE_CAP, dropping the oldest", async () => {
    const [me, a, witness] = [newId(), newId(), newId()];
    await follow(me, a);
    await follow(witness, a);
    await feed(witness); // a built timeline, which the posts' fan-outs reach beside me
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await post({ userId: a }));
    // Every fan-out delivered before my timeline is built with the cap: one landing after the
    // build would push a post the cap dropped back in (an uncapped consumer's push).
    await eventually(() => walk(witness), (seen) => seen.length === 8);
    const capped = { FEED_TIMELINE_CAP: "5" };
    expect((await walk(me, 3, { env: capped }))).toEqual(newestFirst(ids).slice(0, 5)); // built with the cap
    // A push trims as well: the own-timeline push runs in the request that publishes.
    const mine = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "mine" }, env: capped });
    expect(mine.status).toBe(201);
    expect(await walk(me, 3, { env: capped })).toEqual([mine.body.id, ...newestFirst(ids).slice(0, 4)]);
    expect(await redis.zcard(feedKeys.timeline(me))).toBe(6); // 5 posts + the built sentinel
  });

  it("builds once when first reads race: no item twice", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await post({ userId: a }));
    const pages = await Promise.all(Array.from({ length: 6 }, () => feed(me)));
    for (const page of pages) expect(page.items.map((i) => i.post.id)).toEqual(newestFirst(ids));
    expect(await redis.zcard(feedKeys.timeline(me))).toBe(7);
  });

  it("fills misses from Postgres when posts, counters and flags are not cached, and caches them", async () => {
    const [me, a] = [newId(), newId()];
    await follow(me, a);
    const id = await post({ userId: a }, "cold");
    await feed(me);
    expect((await api("PUT", `/v1/posts/${id}/likes/me`, { as: { userId: me } })).status).toBe(200);
    await eventually(() => feed(me), (p) => p.items.length === 1);
    await redis.del(feedKeys.post(id), counterKeys.cache("post", id), feedKeys.flags(me));
    const page = await feed(me);
    expect(page.items).toEqual([
      { post: { id, authorId: a, text: "cold", createdAt: expect.any(String) }, counts: expect.objectContaining({ likes: 1 }), liked: true, favorited: false },
    ]);
    // Cached once the answer is on its way: the page itself only reads Redis.
    await eventually(() => redis.exists(feedKeys.post(id), counterKeys.cache("post", id), feedKeys.flags(me)), (n) => n === 3);
  });
});

describe("dead letters", () => {
  /** Dead letters as operators list them (Postgres `dead_letters`, newest first). */
  const deadLetters = async (queue: string) => {
    const res = await api("GET", `/v1/admin/dead-letters?queue=${queue}&limit=100`, { as: { userId: "1", role: "admin" } });
    expect(res.status, show(res)).toBe(200);
    return res.body.items as { id: string; queue: string; body: unknown; lastError: string | null }[];
  };

  it("moves a message that keeps failing to the dead-letter queue, whose consumer keeps it", async () => {
    const marker = newId();
    const queue = (env as unknown as { FEED_QUEUE: Queue<unknown> }).FEED_QUEUE;
    await queue.send({ kind: "unknown-kind", marker });
    const dead = await eventually(
      () => deadLetters("feed-fanout"),
      (list) => list.some((x) => JSON.stringify(x).includes(marker)),
      15_000,
    );
    expect(dead.find((x) => JSON.stringify(x).includes(marker))).toMatchObject({ queue: "feed-fanout", lastError: expect.stringContaining("Unknown feed message") });
  });

  it("moves a follow sync that keeps failing to its own dead-letter queue, recorded with that queue's name", async () => {
    const marker = `x${newId()}`; // not an id: Postgres refuses the sync's read, every time
    await (env as unknown as Env).FEED_SYNC_QUEUE.send({ kind: "sync", followerId: marker, followeeId: marker });
    const dead = await eventually(
      () => deadLetters("feed-follow-sync"),
      (list) => list.some((x) => JSON.stringify(x).includes(marker)),
      15_000,
    );
    const entry = dead.find((x) => JSON.stringify(x).includes(marker));
    expect(entry).toMatchObject({ queue: "feed-follow-sync", body: { kind: "sync", followerId: marker } });
  });
});
