/**
 * Web pages on other origins (`CORS_ORIGINS`, src/lib/cors.ts) and the Origin check of WebSocket
 * upgrades (src/lib/sockets.ts).
 */
import { createExecutionContext, env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { CORS_MAX_AGE_SECONDS, parseOriginList } from "../../src/lib/cors";
import { api, newId, show, tokenFor, type ApiResponse } from "../support/api";
import { useChaos } from "../support/stack";

const ALLOWED = "https://app.example.com";
const LOCAL = "http://localhost:5173";
const DISALLOWED = "https://evil.example";
const CORS = { CORS_ORIGINS: `${ALLOWED}, http://localhost:*` } satisfies Partial<Env>;

/** A limiter that refuses everyone: the 429 path without 150 writes. */
const refusing = { limit: async () => ({ success: false }) } as unknown as RateLimit;

const accessControl = (res: ApiResponse) => [...res.headers.keys()].filter((name) => name.startsWith("access-control-"));
const list = (value: string | null) => (value ?? "").split(",").map((v) => v.trim().toLowerCase()).filter(Boolean);

describe("parseOriginList", () => {
  it("matches exact origins, port wildcards and *, and nothing else", () => {
    const policy = parseOriginList(" https://App.Example.com/ , http://localhost:*, http://127.0.0.1:*, ftp://x, https://a.example/path, ");
    expect(policy.match("https://app.example.com")).toBe("https://app.example.com");
    expect(policy.match("http://localhost:5173")).toBe("http://localhost:5173");
    expect(policy.match("http://localhost")).toBe("http://localhost");
    expect(policy.match("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080");
    for (const other of ["https://localhost:5173", "http://localhost.evil.example:80", "http://evil-localhost:1", "https://app.example.com:444", "https://app.example.com.evil", "null"]) {
      expect(policy.match(other), other).toBeNull();
    }
    expect(policy.invalid).toEqual(["ftp://x", "https://a.example/path"]);
    expect(parseOriginList("*").match("https://anyone.example")).toBe("*");
    expect(parseOriginList("").match(ALLOWED)).toBeNull();
    expect(parseOriginList(undefined).match(ALLOWED)).toBeNull();
  });
});

describe("preflight", () => {
  const chaos = useChaos();
  const preflight = (origin: string | undefined, extra: Partial<Env> = {}) =>
    api("OPTIONS", "/v1/me/badges", {
      headers: { ...(origin ? { Origin: origin } : {}), "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, idempotency-key" },
      env: { ...CORS, ...extra },
    });

  it.each([ALLOWED, LOCAL])("answers %s 204 with the methods, headers and max-age", async (origin) => {
    const res = await preflight(origin);
    expect(res.status, show(res)).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    expect(list(res.headers.get("Access-Control-Allow-Methods"))).toEqual(expect.arrayContaining(["get", "post", "put", "delete"]));
    expect(list(res.headers.get("Access-Control-Allow-Headers"))).toEqual(expect.arrayContaining(["authorization", "content-type", "idempotency-key", "x-request-id", "x-consistency-token"]));
    expect(Number(res.headers.get("Access-Control-Max-Age"))).toBeGreaterThanOrEqual(600);
    expect(Number(res.headers.get("Access-Control-Max-Age"))).toBe(CORS_MAX_AGE_SECONDS);
    expect(list(res.headers.get("Vary"))).toContain("origin");
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
  });

  it("is answered before authentication, rate limits, Redis and Postgres", async () => {
    await chaos.current.setRedisDown(true);
    await chaos.current.setPostgresDown(true);
    const before = await chaos.current.stats();
    const throwing = { limit: async () => { throw new Error("the limiter must not be asked"); } } as unknown as RateLimit;
    const res = await preflight(ALLOWED, { ...chaos.current.bindings, WRITE_LIMITER: throwing, DATABASE_URL: "postgres://nobody@127.0.0.1:9/none" });
    expect(res.status, show(res)).toBe(204);
    expect((await chaos.current.stats()).requests).toBe(before.requests);
    await chaos.current.setRedisDown(false);
    await chaos.current.setPostgresDown(false);
  });

  it.each([["a disallowed origin", DISALLOWED], ["no origin", undefined]])("gives %s no CORS headers, as if there were no Origin", async (_name, origin) => {
    const res = await preflight(origin);
    expect(res.status, show(res)).not.toBe(204);
    expect(accessControl(res)).toEqual([]);
  });

  it("answers nobody while CORS_ORIGINS is empty (the default)", async () => {
    const res = await preflight(ALLOWED, { CORS_ORIGINS: "" });
    expect(accessControl(res)).toEqual([]);
  });
});

describe("actual requests", () => {
  const chaos = useChaos();
  const answers: [string, (headers: Record<string, string>) => Promise<ApiResponse>, number][] = [
    ["a success", async (headers) => api("GET", "/v1/me/badges", { as: { userId: newId() }, headers, env: CORS }), 200],
    ["a 401", async (headers) => api("GET", "/v1/me/badges", { headers, env: CORS }), 401],
    ["a 429", async (headers) => api("POST", "/v1/posts", { as: { userId: newId() }, body: { text: "hi" }, headers, env: { ...CORS, WRITE_LIMITER: refusing } }), 429],
    ["a 404", async (headers) => api("GET", "/v1/no-such-route", { headers, env: CORS }), 404],
    ["a 503", async (headers) => {
      await chaos.current.setRedisDown(true);
      try {
        return await api("GET", "/health", { headers, env: { ...CORS, ...chaos.current.bindings } });
      } finally {
        await chaos.current.setRedisDown(false);
      }
    }, 503],
  ];

  it.each(answers)("an allowed origin reads %s, its request id and Retry-After", async (_name, call, status) => {
    const res = await call({ Origin: ALLOWED });
    expect(res.status, show(res)).toBe(status);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(ALLOWED);
    expect(list(res.headers.get("Vary"))).toContain("origin");
    expect(list(res.headers.get("Access-Control-Expose-Headers"))).toEqual(expect.arrayContaining(["retry-after", "idempotent-replayed", "x-request-id", "x-consistency-token"]));
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    if (status === 429) expect(res.headers.get("Retry-After")).toBe("60");
  });

  it.each(answers)("a disallowed origin and no origin get %s unchanged, with no CORS headers", async (_name, call, status) => {
    for (const headers of [{ Origin: DISALLOWED }, {}] as Record<string, string>[]) {
      const res = await call(headers);
      expect(res.status, show(res)).toBe(status);
      expect(accessControl(res), JSON.stringify(headers)).toEqual([]);
      expect(list(res.headers.get("Vary")), "a cache must not hand one origin's answer to another").toContain("origin");
    }
  });

  it("answers * when CORS_ORIGINS is *", async () => {
    const res = await api("GET", "/v1/no-such-route", { headers: { Origin: DISALLOWED }, env: { CORS_ORIGINS: "*" } });
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
  });
});

describe("WebSocket upgrades check Origin", () => {
  async function upgrade(path: string, origin: string | undefined, extra: Partial<Env> = CORS) {
    const headers: Record<string, string> = { Upgrade: "websocket" };
    if (origin) headers.Origin = origin;
    const res = await worker.fetch(new Request(`http://edge.test${path}`, { headers }) as Request<unknown, IncomingRequestCfProperties>, { ...(env as unknown as Env), ...extra }, createExecutionContext());
    if (res.webSocket) {
      res.webSocket.accept();
      res.webSocket.close(1000, "done");
    }
    return res;
  }

  it.each(["/v1/me/live", "/v1/live/cors-room/ws"])("%s: a bad Origin is refused 403 before the upgrade", async (route) => {
    const path = `${route}?token=${await tokenFor(newId())}`;
    for (const res of [await upgrade(path, DISALLOWED), await upgrade(path, "null"), await upgrade(path, ALLOWED, { CORS_ORIGINS: "" })]) {
      expect(res.status).toBe(403);
      expect(((await res.json()) as any).error).toMatchObject({ code: "forbidden", details: [{ field: "Origin" }] });
    }
  });

  it("a bad Origin is refused before the token is even read", async () => {
    const res = await upgrade("/v1/me/live", DISALLOWED);
    expect(res.status).toBe(403);
  });

  it("no Origin (a native app), an allowed one or the API's own is served", async () => {
    const me = newId();
    for (const origin of [undefined, ALLOWED, LOCAL, "http://edge.test"]) {
      const res = await upgrade(`/v1/me/live?token=${await tokenFor(me)}`, origin);
      expect(res.status, `${origin}: ${res.status}`).toBe(101);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    }
  });

  it("through the deployed configuration, too (SELF, CORS_ORIGINS empty)", async () => {
    const token = await tokenFor(newId());
    const refused = await SELF.fetch(`http://edge.test/v1/me/live?token=${token}`, { headers: { Upgrade: "websocket", Origin: DISALLOWED } });
    expect(refused.status).toBe(403);
  });
});
