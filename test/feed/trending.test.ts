/**
 * GET /v1/posts/trending: counter movements bucketed by hour in the increment script, merged per
 * window. Buckets are global and other test files move counters too, so these posts get
 * movements far above anything else here; reads call `readTrending` with their own clock to step
 * past the per-isolate cache, and drop the shared result between steps.
 */
import { describe, expect, it } from "vitest";
import { counterKeys } from "../../src/counters/keys";
import { trimTrendingTask } from "../../src/counters/tasks";
import { hourOf, TRENDING_BUCKET_TOP } from "../../src/counters/trending";
import { readTrending } from "../../src/feed/trending";
import { api, newId, show } from "../support/api";
import { useChaos } from "../support/stack";
import { post, redis, removePost, fileServices } from "./support";

const services = fileServices();
const chaos = useChaos();
const service = { userId: newId(), role: "service" as const };
let clock = Date.now();
/** A read past the isolate cache and the shared result. */
async function trending(window: "1h" | "24h" | "7d", limit = 10) {
  await redis.del(counterKeys.trendingResult(window));
  clock += 3_000;
  return readTrending(services, window, limit, clock);
}
const move = async (id: string, deltas: Record<string, number>) => {
  const res = await api("POST", `/v1/counters/post/${id}`, { as: service, body: { deltas } });
  expect(res.status, show(res)).toBe(200);
};

describe("trending posts", () => {
  it("ranks posts by weighted engagement (likes 1, comments 2, forwards 3, views 0.1) and hydrates them", async () => {
    const author = newId();
    const [a, b, c] = [await post({ userId: author }, "a"), await post({ userId: author }, "b"), await post({ userId: author }, "c")];
    await move(a, { likes: 5_000_000 }); // 5,000,000
    await move(b, { forwards: 2_000_000 }); // 6,000,000
    await move(c, { comments: 1_000_000, views: 10_000_000 }); // 3,000,000
    const list = await trending("1h");
    const mine = list.items.filter((i) => [a, b, c].includes(i.post.id));
    expect(mine.map((i) => i.post.id)).toEqual([b, a, c]);
    expect(mine[0]).toMatchObject({ score: 6_000_000, post: { id: b, authorId: author, text: "b" }, counts: { forwards: 2_000_000 } });
    expect(list.degraded).toBe(false);
  });

  it("counts a window's hours only: an older bucket shows in 7d, not in 24h or 1h", async () => {
    const old = await post({ userId: newId() }, "old news");
    await redis.zincrby(counterKeys.trendingBucket(hourOf(Date.now()) - 30), 9_000_000_000, old);
    const ids = async (w: "1h" | "24h" | "7d") => (await trending(w, 100)).items.map((i) => i.post.id);
    expect(await ids("7d")).toContain(old);
    expect(await ids("24h")).not.toContain(old);
    expect(await ids("1h")).not.toContain(old);
  });

  it("never lists a deleted post once a list is computed after the delete", async () => {
    const author = newId();
    const id = await post({ userId: author }, "soon gone");
    await move(id, { likes: 8_000_000 });
    expect((await trending("1h", 100)).items.map((i) => i.post.id)).toContain(id);
    await removePost(author, id);
    expect((await trending("1h", 100)).items.map((i) => i.post.id)).not.toContain(id);
    await redis.del(`feed:post:${id}`); // and when the tombstone is gone, Postgres says deleted
    expect((await trending("1h", 100)).items.map((i) => i.post.id)).not.toContain(id);
  });

  it("keeps buckets bounded: the per-minute trim keeps the top posts and sets an 8-day TTL", async () => {
    const bucket = counterKeys.trendingBucket(hourOf(Date.now()));
    const p = redis.pipeline();
    for (let i = 0; i < TRENDING_BUCKET_TOP + 50; i++) p.zincrby(bucket, 0.001, `9${newId()}`);
    await p.exec();
    await trimTrendingTask.run(services);
    expect(await redis.zcard(bucket)).toBeLessThanOrEqual(TRENDING_BUCKET_TOP);
    expect(await redis.ttl(bucket)).toBeGreaterThan(7 * 24 * 3600);
  });

  it("answers over HTTP with a shared-cache header, and 400 naming a bad window or limit", async () => {
    const res = await api("GET", "/v1/posts/trending?window=24h&limit=5");
    expect(res.status, show(res)).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=5");
    expect(res.body.items.length).toBeLessThanOrEqual(5);
    for (const [query, field] of [["window=2h", "window"], ["limit=0", "limit"], ["limit=101", "limit"]] as const) {
      const bad = await api("GET", `/v1/posts/trending?${query}`);
      expect(bad.status, show(bad)).toBe(400);
      expect(bad.body.error.details[0].field).toBe(field);
    }
  });

  it("serves repeated reads from the isolate for two seconds: no Redis round trip", async () => {
    const via = { env: chaos.current.bindings };
    expect((await api("GET", "/v1/posts/trending?window=7d", via)).status).toBe(200);
    const before = await chaos.current.stats();
    for (let i = 0; i < 5; i++) expect((await api("GET", "/v1/posts/trending?window=7d&limit=3", via)).status).toBe(200);
    expect((await chaos.current.stats()).requests - before.requests).toBe(0);
  });
});
