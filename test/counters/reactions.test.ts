import { describe, expect, it } from "vitest";
import { api, newId, show } from "../support/api";
import { readCounts } from "./support";

async function newPost() {
  const authorId = newId();
  const res = await api("POST", "/v1/posts", { as: { userId: authorId }, body: { text: "hello" } });
  if (res.status !== 201) throw new Error(show(res));
  return { postId: res.body.id as string, authorId };
}

/** Runs `n` calls at most `width` at a time (each request opens its own Postgres connection). */
async function inWaves<T>(n: number, width: number, call: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < n; start += width) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - start) }, (_, k) => call(start + k)))));
  }
  return out;
}

describe("PUT /v1/posts/{id}/likes/me", () => {
  it("counts 200 parallel likes by different users as 200, on the post and its author", async () => {
    const { postId, authorId } = await newPost();
    const results = await inWaves(200, 50, () => api("PUT", `/v1/posts/${postId}/likes/me`, { as: { userId: newId() } }));
    expect(results.filter((r) => r.status === 200 && r.body.changed).length, results.filter((r) => r.status !== 200).map(show).join("\n")).toBe(200);
    expect((await readCounts("post", [postId])).counts[postId]!.likes).toBe(200);
    expect((await readCounts("user", [authorId])).counts[authorId]!.likes_received).toBe(200);
  });

  it("counts 50 parallel likes by the same user once", async () => {
    const { postId } = await newPost();
    const userId = newId();
    const results = await Promise.all(Array.from({ length: 50 }, () => api("PUT", `/v1/posts/${postId}/likes/me`, { as: { userId } })));
    expect(results.every((r) => r.status === 200), results.map(show).join("\n")).toBe(true);
    expect(results.filter((r) => r.body.changed).length).toBe(1);
    expect((await readCounts("post", [postId])).counts[postId]!.likes).toBe(1);
  });

  it("answers 404 for a missing or deleted post and counts nothing", async () => {
    const missing = newId();
    const res = await api("PUT", `/v1/posts/${missing}/likes/me`, { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(404);
    const { postId, authorId } = await newPost();
    await api("DELETE", `/v1/posts/${postId}`, { as: { userId: authorId } });
    const gone = await api("PUT", `/v1/posts/${postId}/likes/me`, { as: { userId: newId() } });
    expect(gone.status, show(gone)).toBe(404);
    expect((await readCounts("post", [postId])).counts[postId]!.likes).toBe(0);
  });
});

describe("DELETE /v1/posts/{id}/likes/me", () => {
  it("moves the counter back only when a like was removed", async () => {
    const { postId, authorId } = await newPost();
    const userId = newId();
    await api("PUT", `/v1/posts/${postId}/likes/me`, { as: { userId } });
    const first = await api("DELETE", `/v1/posts/${postId}/likes/me`, { as: { userId } });
    const again = await api("DELETE", `/v1/posts/${postId}/likes/me`, { as: { userId } });
    expect([first.body.changed, again.body.changed], show(again)).toEqual([true, false]);
    expect(first.body.liked).toBe(false);
    expect((await readCounts("post", [postId])).counts[postId]!.likes).toBe(0);
    expect((await readCounts("user", [authorId])).counts[authorId]!.likes_received).toBe(0);
  });
});

describe("PUT and DELETE /v1/posts/{id}/favorites/me", () => {
  it("counts favourites idempotently", async () => {
    const { postId } = await newPost();
    const [a, b] = [newId(), newId()];
    await api("PUT", `/v1/posts/${postId}/favorites/me`, { as: { userId: a } });
    await api("PUT", `/v1/posts/${postId}/favorites/me`, { as: { userId: a } });
    const res = await api("PUT", `/v1/posts/${postId}/favorites/me`, { as: { userId: b } });
    // `counts`: the post's counters after the call, so the caller sees its own write.
    expect(res.body, show(res)).toEqual({ postId, userId: b, favorited: true, changed: true, counts: expect.objectContaining({ favorites: 2 }) });
    expect((await readCounts("post", [postId])).counts[postId]!.favorites).toBe(2);
    await api("DELETE", `/v1/posts/${postId}/favorites/me`, { as: { userId: a } });
    expect((await readCounts("post", [postId])).counts[postId]!.favorites).toBe(1);
  });
});

describe("POST /v1/posts/{id}/views", () => {
  it("counts views, limited per user so a loop does not inflate them", async () => {
    const postId = newId();
    const userId = newId();
    // 30 views a minute per user (wrangler.toml). The limiter's windows are aligned to the clock,
    // so a loop may straddle two of them: stop at the first refusal, within two windows' worth.
    const results = [];
    while (results.length < 70 && results.at(-1)?.status !== 429) results.push(await api("POST", `/v1/posts/${postId}/views`, { as: { userId } }));
    const refused = results.at(-1)!;
    expect(refused.status, show(refused)).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    const counted = results.filter((r) => r.status === 202).length;
    expect(counted).toBeGreaterThanOrEqual(30);
    expect(counted).toBeLessThanOrEqual(60);
    await api("POST", `/v1/posts/${postId}/views`, { as: { userId: newId() } });
    expect((await readCounts("post", [postId])).counts[postId]!.views, "every accepted view, and only those, is counted").toBe(counted + 1);
  });
});

describe("follows and posts move user counters", () => {
  it("follow and unfollow move followers and following; posts move posts", async () => {
    const [a, b] = [newId(), newId()];
    await api("PUT", `/v1/me/following/${b}`, { as: { userId: a } });
    await api("PUT", `/v1/me/following/${b}`, { as: { userId: a } });
    let counts = (await readCounts("user", [a, b])).counts;
    expect([counts[a]!.following, counts[b]!.followers]).toEqual([1, 1]);
    await api("DELETE", `/v1/me/following/${b}`, { as: { userId: a } });
    await api("POST", "/v1/posts", { as: { userId: a }, body: { text: "one" } });
    counts = (await readCounts("user", [a, b])).counts;
    expect([counts[a]!.following, counts[b]!.followers, counts[a]!.posts]).toEqual([0, 0, 1]);
  });
});
