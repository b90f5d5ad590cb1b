import { describe, expect, it } from "vitest";
import { api, newId, show, type ApiResponse } from "../support/api";

describe("POST /v1/posts", () => {
  it("creates a post by the caller and reads it back", async () => {
    const author = newId();
    const created = await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "hello world" } });
    expect(created.status, show(created)).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^[1-9]\d*$/), authorId: author, text: "hello world", createdAt: expect.any(String) });
    const read = await api("GET", `/v1/posts/${created.body.id}`);
    expect(read.status, show(read)).toBe(200);
    expect(read.body).toEqual({ ...created.body, counts: { likes: 0, comments: 0, forwards: 0, views: 0, favorites: 0 }, liked: false, favorited: false });
  });

  it("accepts 5000 characters and refuses 5001, creating nothing", async () => {
    const author = newId();
    const ok = await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "x".repeat(5000) } });
    expect(ok.status, show(ok)).toBe(201);
    const tooLong = await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "x".repeat(5001) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details[0].field).toBe("text");
    const list = await api("GET", `/v1/users/${author}/posts`);
    expect(list.body.items).toHaveLength(1);
  });

  it("refuses an empty text", async () => {
    const res = await api("POST", "/v1/posts", { as: { userId: newId() }, body: { text: "   " } });
    expect(res.status, show(res)).toBe(400);
  });
});

describe("DELETE /v1/posts/{id}", () => {
  it("lets the author delete; later reads answer 404", async () => {
    const author = newId();
    const post = (await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "bye" } })).body;
    const del = await api("DELETE", `/v1/posts/${post.id}`, { as: { userId: author } });
    expect(del.status, show(del)).toBe(200);
    expect((await api("GET", `/v1/posts/${post.id}`)).status).toBe(404);
    expect((await api("GET", `/v1/users/${author}/posts`)).body.items).toEqual([]);
    expect((await api("DELETE", `/v1/posts/${post.id}`, { as: { userId: author } })).status).toBe(404);
  });

  it("lets an admin delete someone else's post", async () => {
    const post = (await api("POST", "/v1/posts", { as: { userId: newId() }, body: { text: "spam" } })).body;
    const del = await api("DELETE", `/v1/posts/${post.id}`, { as: { userId: newId(), role: "admin" } });
    expect(del.status, show(del)).toBe(200);
  });

  it("answers 404 for a post that never existed", async () => {
    const res = await api("GET", "/v1/posts/9223372036854775000");
    expect(res.status, show(res)).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });
});

describe("GET /v1/users/{id}/posts", () => {
  it("pages newest first without gaps or repeats", async () => {
    const author = newId();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await api("POST", "/v1/posts", { as: { userId: author }, body: { text: `post ${i}` } })).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: ApiResponse = await api("GET", `/v1/users/${author}/posts?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...res.body.items.map((p: { id: string }) => p.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });
});
