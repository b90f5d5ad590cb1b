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
