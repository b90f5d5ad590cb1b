/**
 * The typed client (`community-edge/client`) against the Worker as deployed (bundled, in workerd,
 * on the test stack's Redis and Postgres), over real HTTP, the way an app calls it.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { validate } from "@readme/openapi-parser";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { docsFileSources } from "../../scripts/docs-assets";
import { createClient, type TokenProvider } from "community-edge/client";
import { eventually, newId, useWorker } from "./support/worker";

const worker = useWorker();

/** A client for `userId` whose token provider counts its calls. */
function clientFor(userId: string, role: "user" | "service" | "admin" = "user") {
  const calls: { refresh: boolean }[] = [];
  const token: TokenProvider = async (request) => {
    calls.push(request);
    return worker.tokenFor(userId, role);
  };
  return { api: createClient({ baseUrl: worker.url, token }), calls };
}

describe("typed calls, one per capability", () => {
  it("posts: creates a post and reads it back", async () => {
    const { api } = clientFor(newId());
    const created = await api.POST("/v1/posts", { body: { text: "hello from the client" } });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const read = await api.GET("/v1/posts/{id}", { params: { path: { id: created.data!.id } } });
    expect(read.data).toEqual({ ...created.data, counts: { likes: 0, comments: 0, forwards: 0, views: 0, favorites: 0 }, liked: false, favorited: false });
  });

  it("follows: follows a user and lists them among the followees", async () => {
    const [me, them] = [newId(), newId()];
    const { api } = clientFor(me);
    const { data } = await api.PUT("/v1/me/following/{userId}", { params: { path: { userId: them } } });
    expect(data).toEqual({ followerId: me, followeeId: them, following: true, changed: true });
    const list = await api.GET("/v1/users/{id}/following", { params: { path: { id: me }, query: { limit: 10 } } });
    expect(list.data?.items.map((i) => i.userId)).toEqual([them]);
  });

  it("counters: a like shows in the post's counters", async () => {
    const author = clientFor(newId());
    const post = (await author.api.POST("/v1/posts", { body: { text: "like me" } })).data!;
    const { api } = clientFor(newId());
    const liked = await api.PUT("/v1/posts/{id}/likes/me", { params: { path: { id: post.id } } });
    expect(liked.data).toMatchObject({ postId: post.id, liked: true, changed: true });
    const { data } = await api.GET("/v1/counters/{entity}", { params: { path: { entity: "post" }, query: { ids: post.id, fresh: "true" } } });
    expect(data?.items).toEqual([{ id: post.id, counts: expect.objectContaining({ likes: 1 }) }]);
  });

  it("badges: a notification a service adds shows in the user's badges", async () => {
    const user = newId();
    const service = clientFor(newId(), "service");
    const added = await service.api.POST("/v1/users/{id}/notifications", { params: { path: { id: user } }, body: { type: "reply", count: 3 } });
    expect(added.data, JSON.stringify(added.error)).toMatchObject({ userId: user, total: 3 });
    const { data } = await clientFor(user).api.GET("/v1/me/badges", { params: { query: { cap: 99 } } });
    expect(data?.notifications.total).toEqual({ count: 3, capped: false });
    expect(data?.notifications.byType.reply).toEqual({ count: 3, capped: false });
  });

  it("feed: a followed author's post reaches the home timeline", async () => {
    const [reader, author] = [clientFor(newId()), newId()];
    await reader.api.PUT("/v1/me/following/{userId}", { params: { path: { userId: author } } });
    const post = (await clientFor(author).api.POST("/v1/posts", { body: { text: "for my followers" } })).data!;
    // Delivery rides the feed queue: read until it has arrived.
    const page = await eventually(
      async () => (await reader.api.GET("/v1/me/feed", { params: { query: { limit: 5 } } })).data,
      (d) => d?.items.some((i) => i.post.id === post.id) ?? false,
    );
    expect(page?.items.find((i) => i.post.id === post.id)).toEqual({
      post,
      counts: { likes: 0, comments: 0, forwards: 0, views: 0, favorites: 0 },
      liked: false,
      favorited: false,
    });
  });

  it("live: a host starts a session, a viewer enters, the counts say so", async () => {
    const [host, viewer] = [newId(), newId()];
    const roomId = `room-${newId()}`;
    const started = await clientFor(host).api.POST("/v1/live/{roomId}/sessions", { params: { path: { roomId } }, body: { hostId: host } });
    expect(started.response.status, JSON.stringify(started.error)).toBe(201);
    const entered = await clientFor(viewer).api.POST("/v1/live/{roomId}/presence", { params: { path: { roomId }, query: { device: "phone" } } });
    expect(entered.data).toMatchObject({ roomId, userId: viewer, online: true });
    const { data } = await clientFor(viewer).api.GET("/v1/live/{roomId}/online", { params: { path: { roomId } } });
    expect(data).toMatchObject({ roomId, viewers: 1, live: true });
  });
});

describe("errors", () => {
  it("come back as the typed envelope, not thrown", async () => {
    const { api } = clientFor(newId());
    const { data, error, response } = await api.GET("/v1/counters/{entity}", { params: { path: { entity: "post" }, query: { ids: "not-an-id" } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error?.error.code).toBe("bad_request");
    expect(error?.error.details).toEqual([expect.objectContaining({ field: "ids" })]);
    const missing = await api.GET("/v1/posts/{id}", { params: { path: { id: newId() } } });
    expect(missing.error?.error).toMatchObject({ code: "not_found", message: expect.any(String) });
  });

  it("a 401 asks the token provider for a fresh token once and retries", async () => {
    const user = newId();
    const calls: boolean[] = [];
    const api = createClient({
      baseUrl: worker.url,
      token: ({ refresh }) => {
        calls.push(refresh);
        return refresh ? worker.tokenFor(user) : worker.tokenFor(user, "user", -60); // the cached one has expired
      },
    });
    const { data, error } = await api.POST("/v1/posts", { body: { text: "after a refresh" } });
    expect(error).toBeUndefined();
    expect(data?.authorId).toBe(user);
    expect(calls).toEqual([false, true]);
  });

  it("a token the server refuses again is answered 401 after one refresh, with no loop", async () => {
    const calls: boolean[] = [];
    const api = createClient({
      baseUrl: worker.url,
      token: ({ refresh }) => {
        calls.push(refresh);
        return worker.tokenFor(newId(), "user", -60);
      },
    });
    const { error, response } = await api.GET("/v1/me/badges", {});
    expect(response.status).toBe(401);
    expect(error?.error.code).toBe("unauthorized");
    expect(calls).toEqual([false, true]);
  });
});

describe("the API reference as served", () => {
  it("/openapi.json is valid OpenAPI 3.1", async () => {
    const doc = await (await fetch(`${worker.url}/openapi.json`)).json();
    const result = await validate(doc as never);
    expect(result.valid).toBe(true);
  });

  it("/docs loads its renderer from this origin's static assets, which load nothing from elsewhere", async () => {
    const page = await (await fetch(`${worker.url}/docs`)).text();
    const refs = [...page.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(refs.filter((r) => r.startsWith("/docs/assets/")).length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) {
      const res = await fetch(`${worker.url}${ref}`);
      expect(res.status, ref).toBe(200);
      const text = await res.text();
      if (ref.endsWith(".css")) expect(text, ref).not.toMatch(/url\(\s*['"]?(https?:)?\/\/|@import/i);
      if (ref.endsWith("init.js")) expect(text).toMatch(/validatorUrl: null/);
    }
  });

  it.each(Object.entries(docsFileSources()))("/docs/assets/%s is its source byte for byte, sent gzipped once or plain", async (name, source) => {
    const original = readFileSync(source);
    const gz = await request(`${worker.url}/docs/assets/${name}`, { headers: { "accept-encoding": "gzip, deflate, br" } });
    const gzBody = Buffer.from(await gz.body.arrayBuffer());
    expect(gz.statusCode).toBe(200);
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers["content-type"]).toMatch(/^text\/(javascript|css|plain); charset=utf-8$/);
    expect(gz.headers.vary).toMatch(/accept-encoding/i);
    // Compressed exactly once: one gunzip gives the file (the runtime must not gzip it again).
    expect(gunzipSync(gzBody).equals(original), `${name}: gunzip of the answer differs from ${source}`).toBe(true);

    const plain = await request(`${worker.url}/docs/assets/${name}`, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(Buffer.from(await plain.body.arrayBuffer()).equals(original), `${name}: plain answer differs from ${source}`).toBe(true);
    expect(plain.headers.etag).toBe(gz.headers.etag);

    const again = await request(`${worker.url}/docs/assets/${name}`, { headers: { "if-none-match": String(gz.headers.etag) } });
    await again.body.dump();
    expect(again.statusCode).toBe(304);
  });
});
