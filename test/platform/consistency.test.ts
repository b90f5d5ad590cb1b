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
import { parseConsistencyToken, readConsistencyToken, writeConsistencyToken } from "../../src/lib/consistency-token";
import { issuedToken } from "../support/consistency";
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
    const read = await badges(me, { env: on(), headers: { [HEADER]: await issuedToken(on(), [sent]) } });
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
    const res = await follow(newId(), newId(), { env: on(), headers: { [HEADER]: await issuedToken(on(), ["local:0", undefined, other]) } });
    expect(res.status, show(res)).toBe(200);
    const [mine, , kept] = parseConsistencyToken(res.headers.get(HEADER)!);
    expect(mine).toMatch(/^local:[1-9]\d*$/);
    expect(kept, "a database the request did not write keeps the token it was sent").toBe(other);
  });

  it.each([
    ["garbage", "not-a-token"],
    ["the unsigned format of before", "v1.0~MTI"],
    ["an entry without its tag", "v2.0~MTI"],
    ["a database twice", `v2.0~MTI~${"A".repeat(43)}.0~MTM~${"A".repeat(43)}`],
    ["too long", `v2.0~${"A".repeat(5000)}~${"A".repeat(43)}`],
  ])("refuses a malformed token (%s) with 400 naming the header, changing nothing", async (_, value) => {
    const [me, them] = [newId(), newId()];
    const res = await follow(me, them, { env: on(), headers: { [HEADER]: value } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.code).toBe("bad_request");
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: HEADER })]);
    const following = await api("GET", `/v1/users/${me}/following?limit=10`, { as: { userId: me }, env: on() });
    expect(following.body.items ?? following.body, show(following)).toEqual([]);
  });

  describe("tamper evidence: only a token the deployment issued is carried", () => {
    /** A token the Worker answered for a write, and its one entry. */
    const issued = async () => {
      const res = await follow(newId(), newId(), { env: on() });
      expect(res.status, show(res)).toBe(200);
      const value = res.headers.get(HEADER)!;
      return { value, entry: readConsistencyToken(value)[0]! };
    };
    /** The same sync token's history, an offset no write will reach for a long time. */
    const future = (token: string) => token.replace(/\d+$/, (n) => String(Number(n) + 1_000_000_000));

    const refused = async (value: string, why: RegExp) => {
      const [me, them] = [newId(), newId()];
      const res = await follow(me, them, { env: on(), headers: { [HEADER]: value } });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.code).toBe("bad_request");
      expect(res.body.error.details).toEqual([expect.objectContaining({ field: HEADER, message: expect.stringMatching(why) })]);
      const following = await api("GET", `/v1/users/${me}/following?limit=10`, { as: { userId: me }, env: on() });
      expect(following.body.items, show(following)).toEqual([]);
    };

    it("an issued token whose offset was moved ahead, its tag kept: 400 naming the header, nothing done, nothing carried", async () => {
      const { entry } = await issued();
      const altered = future(entry.token);
      await refused(writeConsistencyToken([{ token: altered, tag: entry.tag }])!, /not issued by this deployment/);
      expect((await chaos.current.stats()).syncTokens, "the altered sync token never reached Redis").not.toContain(altered);
    });

    it("an issued token cut short: 400", async () => {
      const { value } = await issued();
      await refused(value.slice(0, -1), /is not/);
      await refused(value.slice(0, value.lastIndexOf("~")), /is not/);
    });

    it("a token with a future offset signed with another secret: 400", async () => {
      const { entry } = await issued();
      await refused(await issuedToken({ ...on(), CONSISTENCY_TOKEN_SECRET: "another deployment's secret" }, [future(entry.token)]), /not issued by this deployment/);
    });

    it("the tag names its database: an entry moved to another database is refused", async () => {
      const { entry } = await issued();
      await refused(writeConsistencyToken([undefined, entry])!, /database 1 was not issued/);
    });

    it("CONSISTENCY_TOKEN_SECRET, when set, is the key: its tokens are carried, ones under JWT_SECRET's key are refused", async () => {
      const own = { ...on(), CONSISTENCY_TOKEN_SECRET: `secret-${newId()}` };
      const res = await follow(newId(), newId(), { env: own });
      expect(res.status, show(res)).toBe(200);
      const answered = res.headers.get(HEADER)!;
      expect(answered).toBe(await issuedToken(own, parseConsistencyToken(answered)));
      const read = await badges(newId(), { env: own, headers: { [HEADER]: answered } });
      expect(read.status, show(read)).toBe(200);
      const underJwt = await follow(newId(), newId(), { env: own, headers: { [HEADER]: await issuedToken(on(), parseConsistencyToken(answered)) } });
      expect(underJwt.status, show(underJwt)).toBe(400);
      const [me, them] = [newId(), newId()];
      const back = await follow(me, them, { env: on(), headers: { [HEADER]: answered } });
      expect(back.status, "a token of the own secret, sent where the key is JWT_SECRET's").toBe(400);
    });

    it("with read regions on and no secret at all, requests are refused before any work", async () => {
      const [me, them] = [newId(), newId()];
      const res = await follow(me, them, { env: { ...on(), JWT_SECRET: "" } });
      expect(res.status, show(res)).toBe(500);
      const following = await api("GET", `/v1/users/${me}/following?limit=10`, { as: { userId: me }, env: on() });
      expect(following.body.items, show(following)).toEqual([]);
    });
  });

  it("is off on a single-region deployment: no header answered, none read, nothing carried", async () => {
    const sent = probe();
    const write = await follow(newId(), newId(), { env: off(), headers: { [HEADER]: await issuedToken(on(), [sent]) } });
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
