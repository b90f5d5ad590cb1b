import { describe, expect, it } from "vitest";
import { api, newId, show } from "../support/api";
import { useChaos } from "../support/stack";

describe("follows and posts when a dependency is down", () => {
  const pair = useChaos();
  const throughChaos = () => pair.current.bindings;

  it("answers 503 unavailable with a clear message when Postgres is down, and writes nothing", async () => {
    const [me, star] = [newId(), newId()];
    await pair.current.setPostgresDown(true);
    try {
      const res = await api("PUT", `/v1/me/following/${star}`, { as: { userId: me }, env: throughChaos() });
      expect(res.status, show(res)).toBe(503);
      expect(res.body.error).toMatchObject({ code: "unavailable", message: expect.stringMatching(/unavailable/i) });
      const post = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "lost?" }, env: throughChaos() });
      expect(post.status, show(post)).toBe(503);
    } finally {
      await pair.current.setPostgresDown(false);
    }
    const followers = await api("GET", `/v1/users/${star}/followers`);
    expect(followers.body.items).toEqual([]);
  });

  it("keeps relation writes working when Redis is down", async () => {
    const [me, star] = [newId(), newId()];
    await pair.current.setRedisDown(true);
    try {
      const res = await api("PUT", `/v1/me/following/${star}`, { as: { userId: me }, env: throughChaos() });
      expect(res.status, show(res)).toBe(200);
      expect(res.body.changed).toBe(true);
      const post = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "still here" }, env: throughChaos() });
      expect(post.status, show(post)).toBe(201);
    } finally {
      await pair.current.setRedisDown(false);
    }
    const followers = await api("GET", `/v1/users/${star}/followers`);
    expect(followers.body.items.map((i: { userId: string }) => i.userId)).toEqual([me]);
  });
});

describe("a post's detail when a dependency is down", () => {
  const pair = useChaos();
  const throughChaos = () => pair.current.bindings;

  it("Redis down: the post, its counts and the reader's like come from Postgres", async () => {
    const [author, reader] = [newId(), newId()];
    const post = (await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "still readable" }, env: throughChaos() })).body;
    expect((await api("PUT", `/v1/posts/${post.id}/likes/me`, { as: { userId: reader }, env: throughChaos() })).status).toBe(200);
    const warm = await api("GET", `/v1/posts/${post.id}`, { as: { userId: reader }, env: throughChaos() });
    expect(warm.body.liked, show(warm)).toBe(true);
    await pair.current.setRedisDown(true);
    try {
      const res = await api("GET", `/v1/posts/${post.id}`, { as: { userId: reader }, env: throughChaos() });
      expect(res.status, show(res)).toBe(200);
      expect(res.body).toEqual({ ...post, counts: expect.objectContaining({ likes: expect.any(Number) }), liked: true, favorited: false });
    } finally {
      await pair.current.setRedisDown(false);
    }
  });

  it("Postgres down: a cached post is still answered from Redis", async () => {
    const [author, reader] = [newId(), newId()];
    const post = (await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "cached" }, env: throughChaos() })).body;
    expect((await api("GET", `/v1/posts/${post.id}`, { as: { userId: reader }, env: throughChaos() })).status).toBe(200);
    await pair.current.setPostgresDown(true);
    try {
      const res = await api("GET", `/v1/posts/${post.id}`, { as: { userId: reader }, env: throughChaos() });
      expect(res.status, show(res)).toBe(200);
      expect(res.body).toEqual({ ...post, counts: { likes: 0, comments: 0, forwards: 0, views: 0, favorites: 0 }, liked: false, favorited: false });
    } finally {
      await pair.current.setPostgresDown(false);
    }
  });
});
