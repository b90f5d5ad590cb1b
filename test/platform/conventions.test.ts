import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, newId, show, tokenFor } from "../support/api";

const ERROR_CODES = ["bad_request", "unauthorized", "forbidden", "not_found", "method_not_allowed", "conflict", "payload_too_large", "rate_limited", "unavailable", "internal"];

function expectErrorShape(body: any, code: string) {
  expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
  expect(ERROR_CODES).toContain(body.error.code);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/); // never a stack trace
}

describe("authentication", () => {
  const me = newId();
  const target = newId();

  it("answers 401 without a token", async () => {
    const res = await api("PUT", `/v1/me/following/${target}`);
    expect(res.status, show(res)).toBe(401);
    expectErrorShape(res.body, "unauthorized");
  });

  it("answers 401 for an expired token", async () => {
    const expired = await tokenFor(me, "user", -60);
    const res = await api("PUT", `/v1/me/following/${target}`, { as: { authorization: `Bearer ${expired}` } });
    expect(res.status, show(res)).toBe(401);
  });

  it("answers 401 for a token signed with another secret", async () => {
    const { sign } = await import("hono/jwt");
    const forged = await sign({ sub: me, exp: Math.floor(Date.now() / 1000) + 60 }, "not-the-secret", "HS256");
    const res = await api("PUT", `/v1/me/following/${target}`, { as: { authorization: `Bearer ${forged}` } });
    expect(res.status, show(res)).toBe(401);
  });

  it("answers 401 for a token without exp", async () => {
    const { sign } = await import("hono/jwt");
    const { env } = await import("cloudflare:test");
    const noExp = await sign({ sub: me }, (env as any).JWT_SECRET, "HS256");
    const res = await api("PUT", `/v1/me/following/${target}`, { as: { authorization: `Bearer ${noExp}` } });
    expect(res.status, show(res)).toBe(401);
    expect(res.body.error.message).toMatch(/exp/);
  });

  it("answers 401 when sub is not a user id", async () => {
    const bad = await tokenFor("alice" as string);
    const res = await api("PUT", `/v1/me/following/${target}`, { as: { authorization: `Bearer ${bad}` } });
    expect(res.status, show(res)).toBe(401);
  });

  it("answers 403 when the role is not allowed (user deleting another user's post)", async () => {
    const author = newId();
    const created = await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "mine" } });
    expect(created.status, show(created)).toBe(201);
    const res = await api("DELETE", `/v1/posts/${created.body.id}`, { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(403);
    expectErrorShape(res.body, "forbidden");
  });
});

describe("validation and the error shape", () => {
  it("names the bad path parameter", async () => {
    const res = await api("PUT", "/v1/me/following/abc", { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(400);
    expectErrorShape(res.body, "bad_request");
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: "userId" })]);
  });

  it("rejects ids beyond 64 bits and zero", async () => {
    for (const bad of ["9223372036854775808", "0", "-5", "01"]) {
      const res = await api("GET", `/v1/users/${bad}/followers`);
      expect(res.status, `${bad}: ${show(res)}`).toBe(400);
      expect(res.body.error.details[0].field).toBe("id");
    }
  });

  it("accepts the largest 64-bit id", async () => {
    const res = await api("GET", "/v1/users/9223372036854775807/followers");
    expect(res.status, show(res)).toBe(200);
  });

  it("names the bad body field", async () => {
    const res = await api("POST", "/v1/posts", { as: { userId: newId() }, body: { text: 5 } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: "text" })]);
  });

  it("answers 400 for malformed JSON", async () => {
    const res = await api("POST", "/v1/posts", { as: { userId: newId() }, body: "{not json" });
    expect(res.status, show(res)).toBe(400);
    expectErrorShape(res.body, "bad_request");
  });

  it("bounds limit on list endpoints", async () => {
    for (const limit of ["0", "101", "ten"]) {
      const res = await api("GET", `/v1/users/${newId()}/posts?limit=${limit}`);
      expect(res.status, `${limit}: ${show(res)}`).toBe(400);
      expect(res.body.error.details[0].field).toBe("limit");
    }
  });

  it("rejects a cursor it did not issue", async () => {
    const res = await api("GET", `/v1/users/${newId()}/followers?cursor=garbage`);
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field).toBe("cursor");
  });

  it("answers unknown routes with the error shape", async () => {
    const res = await api("GET", "/v1/nope");
    expect(res.status, show(res)).toBe(404);
    expectErrorShape(res.body, "not_found");
  });

  it("answers a known path asked with another method 405, with Allow", async () => {
    const feed = await api("DELETE", "/v1/me/feed", { as: { userId: newId() } });
    expect(feed.status, show(feed)).toBe(405);
    expectErrorShape(feed.body, "method_not_allowed");
    expect(feed.headers.get("Allow")).toBe("GET, HEAD");

    const posts = await api("PUT", "/v1/posts");
    expect(posts.status, show(posts)).toBe(405);
    expect(posts.headers.get("Allow")?.split(", ")).toContain("POST");
    // Parameterised paths too, and a served method is untouched.
    const following = await api("PATCH", `/v1/me/following/${newId()}`, { as: { userId: newId() } });
    expect(following.status, show(following)).toBe(405);
    expect(following.headers.get("Allow")?.split(", ").sort()).toEqual(["DELETE", "PUT"]);
  });

  it("refuses a body over 64 KB with 413 before parsing it, and changes nothing", async () => {
    const me = newId();
    const text = "x".repeat(70 * 1024);
    const res = await api("POST", "/v1/posts", { as: { userId: me }, body: { text } });
    expect(res.status, show(res)).toBe(413);
    expectErrorShape(res.body, "payload_too_large");
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: "body" })]);

    // Without Content-Length (a streamed body), the limit is counted as it arrives.
    const chunk = new TextEncoder().encode(JSON.stringify({ text }));
    const streamed = await SELF.fetch("http://edge.test/v1/posts", {
      method: "POST",
      headers: { Authorization: `Bearer ${await tokenFor(me)}`, "Content-Type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(chunk);
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);

    const mine = await api("GET", `/v1/users/${me}/posts`);
    expect(mine.status, show(mine)).toBe(200);
    expect(mine.body.items).toEqual([]);

    const small = await api("POST", "/v1/posts", { as: { userId: me }, body: { text: "fits" } });
    expect(small.status, show(small)).toBe(201);
  });
});

describe("request ids and logs", () => {
  it("echoes a well-formed X-Request-Id", async () => {
    const res = await api("GET", "/v1/users/1/posts", { headers: { "X-Request-Id": "trace-123" } });
    expect(res.headers.get("X-Request-Id")).toBe("trace-123");
  });

  it("issues a request id when none (or a malformed one) is sent", async () => {
    const res = await api("GET", "/v1/users/1/posts", { headers: { "X-Request-Id": "bad id with spaces" } });
    expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("rate limiting", () => {
  it("does not limit trusted backends (role service) per user", async () => {
    const backend = newId();
    const results = await Promise.all(Array.from({ length: 40 }, () => api("DELETE", `/v1/me/following/${newId()}`, { as: { userId: backend, role: "service" } })));
    expect(results.filter((res) => res.status !== 200).map(show)).toEqual([]);
  });

  it("answers 429 with Retry-After once a user exceeds the write limit, and other users are unaffected", { timeout: 60_000 }, async () => {
    const busy = newId();
    let limited: Awaited<ReturnType<typeof api>> | undefined;
    // Tests run with 150 writes a minute (vitest.config.ts); send cheap writes (unfollowing
    // strangers changes nothing) in parallel waves to get there fast. The limiter's windows are
    // aligned to the clock, so allow for the run straddling two of them.
    for (let wave = 0; wave < 9 && !limited; wave++) {
      const results = await Promise.all(Array.from({ length: 40 }, () => api("DELETE", `/v1/me/following/${newId()}`, { as: { userId: busy } })));
      for (const res of results) expect([200, 429], show(res)).toContain(res.status);
      limited = results.find((res) => res.status === 429);
    }
    expect(limited, "no 429 within 360 writes").toBeDefined();
    expectErrorShape(limited!.body, "rate_limited");
    expect(Number(limited!.headers.get("Retry-After"))).toBeGreaterThan(0);
    const other = await api("PUT", `/v1/me/following/${newId()}`, { as: { userId: newId() } });
    expect(other.status, show(other)).toBe(200);
  });
});

describe("API documentation", () => {
  it("serves an OpenAPI 3.1 document listing the routes and the bearer scheme", async () => {
    const res = await api("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(["/health", "/v1/me/following/{userId}", "/v1/users/{id}/followers", "/v1/posts", "/v1/posts/{id}", "/v1/users/{id}/posts"]),
    );
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("serves a docs page that needs no third-party assets", async () => {
    const res = await api("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.body).toContain("/openapi.json");
    // Scripts and stylesheets are this Worker's static assets (test/platform/docs.test.ts): none
    // from another origin, absolute or protocol-relative.
    expect(res.body).not.toMatch(/<(script|link|img)[^>]+(src|href)="(https?:)?\/\//);
  });
});

describe("benchmark baselines", () => {
  it("are not in the Worker: 404 before asking who calls", async () => {
    for (const [method, path] of [
      ["POST", "/v1/bench/naive/counters/post/1/likes"],
      ["GET", "/v1/bench/naive-badges"],
      ["GET", "/v1/live/room-1/naive-online"],
      ["POST", "/v1/live/room-1/bench-seed"],
      ["GET", "/v1/live/room-1/bench-storage"],
    ] as const) {
      const res = await api(method, path);
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
  });
});
