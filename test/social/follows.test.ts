import { describe, expect, it } from "vitest";
import { api, newId, show, type ApiResponse } from "../support/api";

async function pageThrough(path: string, limit: number) {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: ApiResponse = await api("GET", `${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status, show(res)).toBe(200);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    seen.push(...res.body.items.map((i: { userId: string }) => i.userId));
    cursor = res.body.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  return { seen, pages };
}

describe("PUT /v1/me/following/{userId}", () => {
  it("follows, and a second call changes nothing", async () => {
    const [me, star] = [newId(), newId()];
    const first = await api("PUT", `/v1/me/following/${star}`, { as: { userId: me } });
    expect(first.status, show(first)).toBe(200);
    expect(first.body).toEqual({ followerId: me, followeeId: star, following: true, changed: true });
    const again = await api("PUT", `/v1/me/following/${star}`, { as: { userId: me } });
    expect(again.body).toEqual({ followerId: me, followeeId: star, following: true, changed: false });
  });

  it("refuses to follow yourself with a 400 naming userId", async () => {
    const me = newId();
    const res = await api("PUT", `/v1/me/following/${me}`, { as: { userId: me } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field).toBe("userId");
  });

  it("leaves exactly one row after 50 parallel follows of the same pair, and exactly one reports the change", async () => {
    const [me, star] = [newId(), newId()];
    const results = await Promise.all(Array.from({ length: 50 }, () => api("PUT", `/v1/me/following/${star}`, { as: { userId: me } })));
    for (const res of results) expect(res.status, show(res)).toBe(200);
    expect(results.filter((r) => r.body.changed)).toHaveLength(1);
    const followers = await api("GET", `/v1/users/${star}/followers`);
    expect(followers.body.items.map((i: { userId: string }) => i.userId)).toEqual([me]);
  });
});

describe("DELETE /v1/me/following/{userId}", () => {
  it("unfollows, and a double delete is fine", async () => {
    const [me, star] = [newId(), newId()];
    await api("PUT", `/v1/me/following/${star}`, { as: { userId: me } });
    const first = await api("DELETE", `/v1/me/following/${star}`, { as: { userId: me } });
    expect(first.body).toEqual({ followerId: me, followeeId: star, following: false, changed: true });
    const again = await api("DELETE", `/v1/me/following/${star}`, { as: { userId: me } });
    expect(again.status, show(again)).toBe(200);
    expect(again.body.changed).toBe(false);
    const followers = await api("GET", `/v1/users/${star}/followers`);
    expect(followers.body.items).toEqual([]);
  });
});

describe("GET /v1/users/{id}/followers and /following", () => {
  it("lists followers newest first", async () => {
    const star = newId();
    const fans = [newId(), newId(), newId()];
    for (const fan of fans) await api("PUT", `/v1/me/following/${star}`, { as: { userId: fan } });
    const res = await api("GET", `/v1/users/${star}/followers`);
    expect(res.body.items.map((i: { userId: string }) => i.userId)).toEqual([...fans].reverse());
    expect(res.body.items[0].followedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(res.body.nextCursor).toBeNull();
  });

  it("lists whom a user follows, newest first", async () => {
    const me = newId();
    const stars = [newId(), newId()];
    for (const star of stars) await api("PUT", `/v1/me/following/${star}`, { as: { userId: me } });
    const res = await api("GET", `/v1/users/${me}/following`);
    expect(res.body.items.map((i: { userId: string }) => i.userId)).toEqual([...stars].reverse());
  });

  it("pages through 23 followers, including ties on follow time, without gaps or repeats", async () => {
    const star = newId();
    const fans = Array.from({ length: 23 }, () => newId());
    // Parallel follows often share a timestamp: the cursor must break ties by id.
    await Promise.all(fans.map((fan) => api("PUT", `/v1/me/following/${star}`, { as: { userId: fan } })));
    const { seen, pages } = await pageThrough(`/v1/users/${star}/followers`, 5);
    expect(pages).toBe(5);
    expect(new Set(seen).size).toBe(23);
    expect([...seen].sort()).toEqual([...fans].sort());
  });

  it("does not skip or repeat when a new follower arrives between pages", async () => {
    const star = newId();
    const fans = Array.from({ length: 6 }, () => newId());
    for (const fan of fans) await api("PUT", `/v1/me/following/${star}`, { as: { userId: fan } });
    const first = await api("GET", `/v1/users/${star}/followers?limit=3`);
    await api("PUT", `/v1/me/following/${star}`, { as: { userId: newId() } });
    const second = await api("GET", `/v1/users/${star}/followers?limit=3&cursor=${first.body.nextCursor}`);
    const ids = [...first.body.items, ...second.body.items].map((i: { userId: string }) => i.userId);
    expect(ids).toEqual([...fans].reverse());
  });
});
