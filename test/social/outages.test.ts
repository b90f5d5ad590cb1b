import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, newId, show } from "../support/api";
import { createChaos, type Chaos } from "../support/stack";

describe("follows and posts when a dependency is down", () => {
  let chaos: Chaos;
  beforeAll(async () => {
    chaos = await createChaos();
  });
  afterAll(async () => {
    await chaos.close();
  });
  const throughChaos = () => ({
    UPSTASH_REDIS_REST_URL: chaos.restUrl,
    UPSTASH_REDIS_REST_TOKEN: chaos.restToken,
    NEON_WS_PROXY: chaos.wsProxy,
  });

  it("answers 503 unavailable with a clear message when Postgres is down, and writes nothing", async () => {
    const [me, star] = [newId(), newId()];
    await chaos.setPostgresDown(true);
    try {
      const res = await api("PUT", `/v1/me/following/${star}`, { as: { userId: me }, env: throughChaos() });
      expect(res.status, show(res)).toBe(503);
      expect(res.body.error).toMatchObject({ code: "unavailable", message: expect.stringMatching(/unavailable/i) });
      const post = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "lost?" }, env: throughChaos() });
      expect(post.status, show(post)).toBe(503);
    } finally {
      await chaos.setPostgresDown(false);
    }
    const followers = await api("GET", `/v1/users/${star}/followers`);
    expect(followers.body.items).toEqual([]);
  });

  it("keeps relation writes working when Redis is down", async () => {
    const [me, star] = [newId(), newId()];
    await chaos.setRedisDown(true);
    try {
      const res = await api("PUT", `/v1/me/following/${star}`, { as: { userId: me }, env: throughChaos() });
      expect(res.status, show(res)).toBe(200);
      expect(res.body.changed).toBe(true);
      const post = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "still here" }, env: throughChaos() });
      expect(post.status, show(post)).toBe(201);
    } finally {
      await chaos.setRedisDown(false);
    }
    const followers = await api("GET", `/v1/users/${star}/followers`);
    expect(followers.body.items.map((i: { userId: string }) => i.userId)).toEqual([me]);
  });
});
