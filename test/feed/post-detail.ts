/**
 * `GET /v1/posts/{id}` from the caches a feed page reads (docs/feed.md, "A post's detail"): the
 * post's entry, its counters and the reader's flags, read-only, so a read region answers it; a
 * miss answered by Postgres and cached after the answer; every field exact against what the calls
 * made, under random likes, favourites, deletes and lost caches. Run at N = 1
 * (post-detail.test.ts) and N = 3 (post-detail-databases.test.ts).
 */
import { afterAll, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { counterKeys } from "../../src/counters/keys";
import { feedKeys } from "../../src/feed/keys";
import { api, newId, show } from "../support/api";
import { prng } from "../support/prng";
import { commandNames, recordRedisRequests } from "../support/redis-requests";
import { servicesFor } from "../counters/support";

const near = { REDIS_READ_REGIONS: "on" } satisfies Partial<Env>;
const as = (userId: string) => ({ as: { userId } });
const zeroCounts = { likes: 0, comments: 0, forwards: 0, views: 0, favorites: 0 };

async function newPost(authorId: string, text: string) {
  const res = await api("POST", "/v1/posts", { ...as(authorId), body: { text } });
  expect(res.status, show(res)).toBe(201);
  return res.body as { id: string; authorId: string; text: string; createdAt: string };
}

async function detail(postId: string, readerId?: string, env: Partial<Env> = {}) {
  return api("GET", `/v1/posts/${postId}`, { ...(readerId ? as(readerId) : {}), env });
}

export function postDetailTests() {
  const { services, close } = servicesFor();
  afterAll(() => close());

  it("shows the post, its counts and the reader's like and favourite; without a token, no flags", async () => {
    const [author, reader, other] = [newId(), newId(), newId()];
    const post = await newPost(author, "detail");
    for (const who of [reader, other]) expect((await api("PUT", `/v1/posts/${post.id}/likes/me`, as(who))).status).toBe(200);
    expect((await api("PUT", `/v1/posts/${post.id}/favorites/me`, as(reader))).status).toBe(200);
    const counts = { ...zeroCounts, likes: 2, favorites: 1 };
    expect((await detail(post.id, reader)).body).toEqual({ ...post, counts, liked: true, favorited: true });
    expect((await detail(post.id, other)).body).toEqual({ ...post, counts, liked: true, favorited: false });
    expect((await detail(post.id)).body).toEqual({ ...post, counts, liked: false, favorited: false });
    expect((await detail(post.id, author)).body).toEqual({ ...post, counts, liked: false, favorited: false });
  });

  it("warm, with read regions: everything it sends is what a read region answers, nothing for the primary", async () => {
    const [author, reader] = [newId(), newId()];
    const post = await newPost(author, "near");
    await api("PUT", `/v1/posts/${post.id}/likes/me`, as(reader));
    await detail(post.id, reader, near); // the first read may build the reader's flags and safety sets
    for (const who of [reader, undefined]) {
      const { result, requests } = await recordRedisRequests(() => detail(post.id, who, near));
      expect(result.status, show(result)).toBe(200);
      expect(result.body.liked).toBe(who === reader);
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.filter((r) => r.primary), JSON.stringify(requests.map((r) => r.commands))).toEqual([]);
    }
  });

  it("at N = 1, a reader meeting a post for the first time pays one round: the detail's call (entry, flags, block) beside the counters' read", async () => {
    if (services.databases !== 1) return;
    const [author, reader] = [newId(), newId()];
    // The reader's safety sets and flags hash built by an earlier post's detail (the hash then
    // answers for every newer post).
    await detail((await newPost(author, "another")).id, reader, near);
    const post = await newPost(author, "one round");
    await detail(post.id); // an anonymous reader first: the post's counters cached
    const { result, requests } = await recordRedisRequests(() => detail(post.id, reader, near));
    expect(result.status, show(result)).toBe(200);
    expect(commandNames(requests).sort()).toEqual(["/ evalsha_ro", "/ evalsha_ro"]);
  });

  it("a post not cached is answered from Postgres, then cached after the answer; a deleted one answers 404 from its tombstone", async () => {
    const author = newId();
    const post = await newPost(author, "lost");
    const redis = services.redisFor(post.id);
    await redis.del(feedKeys.post(post.id));
    const res = await detail(post.id, undefined, near);
    expect(res.body, show(res)).toEqual({ ...post, counts: zeroCounts, liked: false, favorited: false });
    expect(await redis.exists(feedKeys.post(post.id)), "cached after the answer").toBe(1);

    expect((await api("DELETE", `/v1/posts/${post.id}`, as(author))).status).toBe(200);
    const { result, requests } = await recordRedisRequests(() => detail(post.id, undefined, near));
    expect(result.status).toBe(404);
    expect(requests.filter((r) => r.primary)).toEqual([]);
    // Nothing cached and deleted: Postgres says so, and the tombstone is written back.
    await redis.del(feedKeys.post(post.id));
    expect((await detail(post.id)).status).toBe(404);
    expect(await redis.get(feedKeys.post(post.id))).toBe("d");
  });

  it("a deleted post's detail caches no counters for it (an erased account's posts stay erased)", async () => {
    const author = newId();
    const post = await newPost(author, "never read");
    expect((await api("DELETE", `/v1/posts/${post.id}`, as(author))).status).toBe(200);
    const redis = services.redisFor(post.id);
    await redis.del(counterKeys.cache("post", post.id));
    for (const env of [{}, near]) expect((await detail(post.id, undefined, env)).status).toBe(404);
    expect(await redis.exists(counterKeys.cache("post", post.id))).toBe(0);
  });

  it("a block either way answers 403 blocked, whether the post's entry is cached or not", async () => {
    const [author, reader] = [newId(), newId()];
    const post = await newPost(author, "walls");
    expect((await detail(post.id, reader)).status).toBe(200); // this isolate now knows the author
    for (const [blocker, blocked] of [[reader, author], [author, reader]] as const) {
      expect((await api("PUT", `/v1/me/blocks/${blocked}`, as(blocker))).status).toBe(200);
      const res = await detail(post.id, reader);
      expect(res.status, show(res)).toBe(403);
      expect(res.body.error.code).toBe("blocked");
      await services.redisFor(post.id).del(feedKeys.post(post.id));
      expect((await detail(post.id, reader)).status).toBe(403);
      expect((await detail(post.id)).status, "anonymous readers are not blocked").toBe(200);
      expect((await api("DELETE", `/v1/me/blocks/${blocked}`, as(blocker))).status).toBe(200);
      expect((await detail(post.id, reader)).status).toBe(200);
    }
  });

  it.each([1, 2])("seed %i: under random likes, favourites, deletes and lost caches, every field of every detail is what the calls made", async (seed) => {
    const rng = prng(seed);
    const random = rng.next;
    const pick = rng.pick;
    const authors = [newId(), newId()];
    const readers = [newId(), newId(), newId()];
    const posts: Awaited<ReturnType<typeof newPost>>[] = [];
    for (let i = 0; i < 4; i++) posts.push(await newPost(pick(authors), `post ${seed}.${i} ${"x".repeat(Math.floor(random() * 40))}`));
    const liked = new Set<string>();
    const faved = new Set<string>();
    const deleted = new Set<string>();
    const key = (reader: string, postId: string) => `${reader}:${postId}`;
    const expected = (post: (typeof posts)[number], reader?: string) => ({
      ...post,
      counts: { ...zeroCounts, likes: readers.filter((r) => liked.has(key(r, post.id))).length, favorites: readers.filter((r) => faved.has(key(r, post.id))).length },
      liked: reader !== undefined && liked.has(key(reader, post.id)),
      favorited: reader !== undefined && faved.has(key(reader, post.id)),
    });
    for (let step = 0; step < 40; step++) {
      const post = pick(posts);
      const reader = pick(readers);
      const roll = random();
      if (roll < 0.45 && !deleted.has(post.id)) {
        const [set, path] = random() < 0.5 ? [liked, "likes"] : [faved, "favorites"];
        const on = random() < 0.6;
        expect((await api(on ? "PUT" : "DELETE", `/v1/posts/${post.id}/${path}/me`, as(reader))).status).toBe(200);
        if (on) set.add(key(reader, post.id));
        else set.delete(key(reader, post.id));
      } else if (roll < 0.5 && !deleted.has(post.id)) {
        expect((await api("DELETE", `/v1/posts/${post.id}`, as(post.authorId))).status).toBe(200);
        deleted.add(post.id);
      } else if (roll < 0.6) {
        await services.redisFor(post.id).del(feedKeys.post(post.id));
      } else if (roll < 0.7) {
        await services.redisFor(reader).del(feedKeys.flags(reader));
      }
      const who = random() < 0.2 ? undefined : reader;
      const res = await detail(post.id, who, random() < 0.5 ? near : {});
      if (deleted.has(post.id)) expect(res.status, `step ${step}: ${show(res)}`).toBe(404);
      else expect(res.body, `step ${step}`).toEqual(expected(post, who));
    }
  });
}
