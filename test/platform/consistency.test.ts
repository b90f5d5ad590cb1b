/**
 * Read your own writes across requests (`X-Consistency-Token`, src/lib/consistency.ts), through
 * the Worker and a private Upstash bridge of the stack, which answers `upstash-sync-token` on every
 * answer and records the ones requests send (scripts/stack/upstash-bridge.ts). The token's format
 * and the client's keeping of it on a fake server: test/node/client-consistency.test.ts.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/client";
import type { Env } from "../../src/env";
import { formatConsistencyToken, parseConsistencyToken } from "../../src/lib/consistency-token";
import worker from "../../src/index";
import { api, newId, show, tokenFor } from "../support/api";
import { useChaos } from "../support/stack";

const HEADER = "X-Consistency-Token";

describe("X-Consistency-Token", () => {
  const chaos = useChaos();
  /** The Worker on the private bridge, with read regions on (or the deployment's default, off). */
  const on = () => ({ ...chaos.current.bindings, REDIS_READ_REGIONS: "on" }) satisfies Partial<Env>;
  const off = () => ({ ...chaos.current.bindings }) satisfies Partial<Env>;
  const follow = (me: string, them: string, options: { env: Partial<Env>; headers?: Record<string, string> }) =>
    api("PUT", `/v1/me/following/${them}`, { as: { userId: me }, ...options });
  const badges = (me: string, options: { env: Partial<Env>; headers?: Record<string, string> }) => api("GET", "/v1/me/badges", { as: { userId: me }, ...options });
  /** A sync token no bridge issues: seen at the bridge only if a request carried it. */
  const probe = () => `probe:${newId()}`;

  it("a write answers the sync token its database gave", async () => {
    const res = await follow(newId(), newId(), { env: on() });
    expect(res.status, show(res)).toBe(200);
    const tokens = parseConsistencyToken(res.headers.get(HEADER)!);
    expect(tokens).toEqual([expect.stringMatching(/^local:\d+$/)]);
  });

  it("a request sending it has its Redis calls carry that database's token, and only when sent", async () => {
    const me = newId();
    const sent = probe();
    const before = (await chaos.current.stats()).syncTokens;
    const read = await badges(me, { env: on(), headers: { [HEADER]: formatConsistencyToken([sent])! } });
    expect(read.status, show(read)).toBe(200);
    expect((await chaos.current.stats()).syncTokens).toContain(sent);
    expect(before).not.toContain(sent);
    // Without a token the calls carry none: answered as fresh as the nearest region has it.
    const bare = (await chaos.current.stats()).syncTokens.length;
    expect((await badges(me, { env: on() })).status).toBe(200);
    expect((await chaos.current.stats()).syncTokens.slice(bare)).toEqual([]);
  });

  it("a request that sends a token and writes answers both merged, newest per database", async () => {
    const other = probe();
    const res = await follow(newId(), newId(), { env: on(), headers: { [HEADER]: formatConsistencyToken(["local:0", undefined, other])! } });
    expect(res.status, show(res)).toBe(200);
    const [mine, , kept] = parseConsistencyToken(res.headers.get(HEADER)!);
    expect(mine).toMatch(/^local:[1-9]\d*$/);
    expect(kept, "a database the request did not write keeps the token it was sent").toBe(other);
  });

  it.each([
    ["garbage", "not-a-token"],
    ["another version", "v2.0~MTI"],
    ["a database twice", "v1.0~MTI.0~MTM"],
    ["too long", `v1.0~${"A".repeat(5000)}`],
  ])("refuses a malformed token (%s) with 400 naming the header, changing nothing", async (_, value) => {
    const [me, them] = [newId(), newId()];
    const res = await follow(me, them, { env: on(), headers: { [HEADER]: value } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.code).toBe("bad_request");
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: HEADER })]);
    const following = await api("GET", `/v1/users/${me}/following?limit=10`, { as: { userId: me }, env: on() });
    expect(following.body.items ?? following.body, show(following)).toEqual([]);
  });

  it("is off on a single-region deployment: no header answered, none read, nothing carried", async () => {
    const sent = probe();
    const write = await follow(newId(), newId(), { env: off(), headers: { [HEADER]: formatConsistencyToken([sent])! } });
    expect(write.status, show(write)).toBe(200);
    expect(write.headers.get(HEADER)).toBeNull();
    expect((await chaos.current.stats()).syncTokens).not.toContain(sent);
    // Not even parsed: a malformed one is not refused.
    expect((await badges(newId(), { env: off(), headers: { [HEADER]: "not-a-token" } })).status).toBe(200);
  });

  it("is readable by a web page: exposed on answers, allowed on requests", async () => {
    const origin = "https://app.example.com";
    const cors = { CORS_ORIGINS: origin };
    const res = await follow(newId(), newId(), { env: { ...on(), ...cors }, headers: { Origin: origin } });
    expect(res.headers.get(HEADER)).toBeTruthy();
    expect(res.headers.get("Access-Control-Expose-Headers")?.toLowerCase()).toContain("x-consistency-token");
    const preflight = await api("OPTIONS", "/v1/me/badges", {
      env: { ...on(), ...cors },
      headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization, x-consistency-token" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("x-consistency-token");
  });

  it("the typed client carries it from its write to its next request, by itself", async () => {
    const me = newId();
    const sentHeaders: (string | null)[] = [];
    const client = createClient({
      baseUrl: "http://edge.test",
      token: () => tokenFor(me),
      fetch: async (request) => {
        sentHeaders.push(request.headers.get(HEADER));
        const ctx = createExecutionContext();
        const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...(env as unknown as Env), ...on() }, ctx);
        await waitOnExecutionContext(ctx);
        return response;
      },
    });
    const followed = await client.PUT("/v1/me/following/{userId}", { params: { path: { userId: newId() } } });
    expect(followed.response.status, JSON.stringify(followed.error)).toBe(200);
    const answered = followed.response.headers.get(HEADER)!;
    const [syncToken] = parseConsistencyToken(answered);
    const read = await client.GET("/v1/me/badges");
    expect(read.response.status).toBe(200);
    expect(sentHeaders).toEqual([null, answered]);
    expect((await chaos.current.stats()).syncTokens, "the read's Redis call carried the write's sync token").toContain(syncToken);
  });
});
