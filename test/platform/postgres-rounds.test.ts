/**
 * A write pays one round to Postgres: a like, a follow, a post and a device registration each send
 * exactly ONE request to Neon's HTTP query endpoint before their answer (a statement, or a batch in
 * one transaction), and open no WebSocket at all. Counted at a chaos pair's own Neon proxies, so
 * nothing else running reaches them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { api, newId, show, type ApiResponse } from "../support/api";
import { newSubscriptionKeys, pushTestKeys } from "../support/push";
import { useChaos, type PostgresStats } from "../support/stack";

/** Long enough for a call's work after its answer (`waitUntil`) to reach the proxies. */
const AFTER_ANSWER_MS = 500;

describe("Postgres rounds of a write", () => {
  const pair = useChaos();
  let pushEnv: Partial<Env>;
  beforeAll(async () => {
    pushEnv = (await pushTestKeys()).env;
  });

  /** Sends `call` through the pair: its answer, the HTTP requests (and statements) that arrived before it, and the pair's WebSocket connections meanwhile. */
  async function measured(call: (env: Partial<Env>) => Promise<ApiResponse>) {
    const before: PostgresStats = await pair.current.postgresStats();
    const sentAt = Date.now();
    const res = await call({ ...pushEnv, ...pair.current.bindings });
    const answeredAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, AFTER_ANSWER_MS));
    const after = await pair.current.postgresStats();
    const beforeAnswer = after.http.recent.filter((r) => r.at >= sentAt && r.at <= answeredAt);
    return {
      res,
      requests: beforeAnswer.length,
      statements: beforeAnswer.map((r) => r.statements),
      sql: beforeAnswer.map((r) => r.sql.join(" ; ")),
      webSockets: after.ws.connections - before.ws.connections,
      wsStatements: after.ws.statements - before.ws.statements,
    };
  }

  // Each call is measured warm, as in a long-lived isolate: the caller's and the post's caches
  // built by a first call (a cold cache's build reads Postgres once, then not again).
  it("a like: one request, no WebSocket", async () => {
    const [author, me] = [newId(), newId()];
    const post = await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "like me" } });
    expect(post.status, show(post)).toBe(201);
    expect((await api("PUT", `/v1/posts/${post.body.id}/likes/me`, { as: { userId: newId() } })).status).toBe(200);
    const like = await measured((env) => api("PUT", `/v1/posts/${post.body.id}/likes/me`, { as: { userId: me }, env }));
    expect(like.res.status, show(like.res)).toBe(200);
    expect(like, like.sql.join(" | ")).toMatchObject({ requests: 1, webSockets: 0, wsStatements: 0 });
  });

  it("a follow: one request, no WebSocket", async () => {
    const me = newId();
    expect((await api("PUT", `/v1/me/following/${newId()}`, { as: { userId: me } })).status).toBe(200);
    const follow = await measured((env) => api("PUT", `/v1/me/following/${newId()}`, { as: { userId: me }, env }));
    expect(follow.res.status, show(follow.res)).toBe(200);
    expect(follow.res.body.changed).toBe(true);
    expect(follow, follow.sql.join(" | ")).toMatchObject({ requests: 1, webSockets: 0, wsStatements: 0 });
  });

  it("a post: one request, no WebSocket", async () => {
    const post = await measured((env) => api("POST", "/v1/posts", { as: { userId: newId() }, body: { text: "one round" }, env }));
    expect(post.res.status, show(post.res)).toBe(201);
    expect(post, post.sql.join(" | ")).toMatchObject({ requests: 1, webSockets: 0, wsStatements: 0 });
  });

  // A browser's subscription: an FCM token's broadcast-topic sync reads the user's preferences
  // after the answer (waitUntil), which this count could not tell from the request's own.
  it("a device registration: one request (its statements in one batch), no WebSocket", async () => {
    const me = newId();
    const keys = await newSubscriptionKeys();
    const endpoint = `https://updates.push.services.mozilla.com/wpush/v2/${crypto.randomUUID()}`;
    const body = { kind: "webpush", endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } };
    const registration = await measured((env) => api("PUT", `/v1/me/devices/${crypto.randomUUID()}`, { as: { userId: me }, body, env }));
    expect(registration.res.status, show(registration.res)).toBe(200);
    expect(registration, registration.sql.join(" | ")).toMatchObject({ requests: 1, statements: [4], webSockets: 0, wsStatements: 0 });
    // The batch did what the transaction did: the device is listed.
    const list = await api("GET", "/v1/me/devices", { as: { userId: me }, env: { ...pushEnv, ...pair.current.bindings } });
    expect(list.body.items.map((d: { endpoint: string }) => d.endpoint)).toEqual([endpoint]);
  });

  it("a post's deletion: one request, its author check inside; another user's is refused and deletes nothing", async () => {
    const author = newId();
    const post = await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "mine to delete" } });
    expect(post.status, show(post)).toBe(201);
    const stranger = await measured((env) => api("DELETE", `/v1/posts/${post.body.id}`, { as: { userId: newId() }, env }));
    expect(stranger.res.status, show(stranger.res)).toBe(403);
    expect(stranger, stranger.sql.join(" | ")).toMatchObject({ requests: 1, webSockets: 0 });
    const deleted = await measured((env) => api("DELETE", `/v1/posts/${post.body.id}`, { as: { userId: author }, env }));
    expect(deleted.res.status, show(deleted.res)).toBe(200);
    expect(deleted, deleted.sql.join(" | ")).toMatchObject({ requests: 1, webSockets: 0 });
    expect((await api("DELETE", `/v1/posts/${post.body.id}`, { as: { userId: author } })).status).toBe(404);
  });

  it("an inbox send: one request for the message and every recipient's row", async () => {
    const to = [newId(), newId(), newId()];
    const sent = await measured((env) => api("POST", "/v1/messages", { as: { userId: newId(), role: "service" }, body: { to, type: "system", title: "Hi", content: "one round" }, env }));
    expect(sent.res.status, show(sent.res)).toBe(201);
    // The recipients' device lists (cold here) are read for their pushes: not the send's statements.
    const inboxWrites = sent.sql.filter((text) => text.includes("inbox_"));
    expect(inboxWrites, sent.sql.join(" | ")).toHaveLength(1);
    // One statement (its recipients' rows in a CTE of it: each recipient's inbox lists the message below).
    expect(inboxWrites[0]).toMatch(/^WITH message AS \(INSERT INTO inbox_messages /);
    expect(sent.webSockets).toBe(0);
    for (const userId of to) {
      const inbox = await api("GET", "/v1/me/messages?limit=5", { as: { userId } });
      expect(inbox.body.items.map((m: { id: string }) => m.id)).toEqual([sent.res.body.id]);
    }
  });

  it("choosing an author: one request (the lock and the checked insert in one batch)", async () => {
    const [me, author] = [newId(), newId()];
    expect((await api("PUT", `/v1/me/following/${author}`, { as: { userId: me } })).status).toBe(200);
    const choice = await measured((env) => api("PUT", `/v1/me/notification-authors/${author}`, { as: { userId: me }, env }));
    expect(choice.res.status, show(choice.res)).toBe(200);
    expect(choice.res.body).toMatchObject({ authorId: author, chosen: true, changed: true });
    expect(choice, choice.sql.join(" | ")).toMatchObject({ requests: 1, statements: [2], webSockets: 0 });
    // Not followed: 409, nothing chosen.
    const stranger = newId();
    const refused = await api("PUT", `/v1/me/notification-authors/${stranger}`, { as: { userId: me } });
    expect(refused.status, show(refused)).toBe(409);
    const list = await api("GET", "/v1/me/notification-authors", { as: { userId: me } });
    expect(list.body.items.map((i: { authorId: string }) => i.authorId)).toEqual([author]);
  });
});
