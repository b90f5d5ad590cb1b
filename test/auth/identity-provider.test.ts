/**
 * Tokens from the app's identity provider (`JWT_JWKS_URL`), through the API as an app calls it,
 * against a JWKS endpoint of each test's own (test/support/jwks.ts) that counts its fetches.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { CLOSE_TOKEN_EXPIRED } from "../../src/badges/live";
import { api, newId, show, tokenFor } from "../support/api";
import { eventually } from "../support/eventually";
import { b64url, claims, generateSigningKey, hmacToken, jwksEndpoint, signToken, unsignedToken, type ProviderAlg, type SigningKey } from "../support/jwks";

const ISSUER = "https://id.example.test/";
const AUDIENCE = "community-edge-tests";

const keys = {} as Record<ProviderAlg, SigningKey>;
beforeAll(async () => {
  for (const alg of ["RS256", "ES256", "EdDSA"] as const) keys[alg] = await generateSigningKey(alg);
});

/** The provider's settings for one endpoint, as an operator would set them. */
function provider(url: string, extra: Partial<Env> = {}): Partial<Env> {
  return { JWT_JWKS_URL: url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, ...extra };
}
const good = (userId: string, extra: Record<string, unknown> = {}) => claims({ iss: ISSUER, aud: AUDIENCE, sub: userId, ...extra });
const asBearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("tokens from JWT_JWKS_URL", () => {
  it.each(["RS256", "ES256", "EdDSA"] as const)("accepts %s, and the user id is the token's", async (alg) => {
    const endpoint = await jwksEndpoint(Object.values(keys));
    const me = newId();
    const res = await api("POST", "/v1/posts", { as: asBearer(await signToken(keys[alg], good(me))), body: { text: `signed with ${alg}` }, env: provider(endpoint.url) });
    expect(res.status, show(res)).toBe(201);
    expect(res.body.authorId).toBe(me);
  });

  it("reads the user id from JWT_USER_ID_CLAIM, and names that claim when it is not an id", async () => {
    const endpoint = await jwksEndpoint([keys.ES256]);
    const settings = provider(endpoint.url, { JWT_USER_ID_CLAIM: "https://app.example/user_id" });
    const me = newId();
    const ok = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(keys.ES256, good("auth0|abc", { "https://app.example/user_id": me }))), env: settings });
    expect(ok.status, show(ok)).toBe(200);
    const notAnId = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(keys.ES256, good("42", { "https://app.example/user_id": "user_2abc" }))), env: settings });
    expect(notAnId.status, show(notAnId)).toBe(401);
    expect(notAnId.body.error.message).toMatch(/https:\/\/app\.example\/user_id.*not a user id/);
    const missing = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(keys.ES256, good("42"))), env: settings });
    expect(missing.status, show(missing)).toBe(401);
    expect(missing.body.error.message).toMatch(/no https:\/\/app\.example\/user_id claim/);
  });

  it("gives a provider token service or admin only through JWT_ROLE_CLAIM", async () => {
    const endpoint = await jwksEndpoint([keys.RS256]);
    const serviceOnly = "/v1/live/online?rooms=r1";
    const claimsRole = await signToken(keys.RS256, good(newId(), { role: "service", groups: ["staff", "backend"] }));
    const unmapped = await api("GET", serviceOnly, { as: asBearer(claimsRole), env: provider(endpoint.url) });
    expect(unmapped.status, `a provider's own role claim grants nothing: ${show(unmapped)}`).toBe(403);
    const mapped = await api("GET", serviceOnly, { as: asBearer(claimsRole), env: provider(endpoint.url, { JWT_ROLE_CLAIM: "groups backend=service,ops=admin" }) });
    expect(mapped.status, show(mapped)).toBe(200);
    const other = await signToken(keys.RS256, good(newId(), { groups: ["staff"] }));
    const notListed = await api("GET", serviceOnly, { as: asBearer(other), env: provider(endpoint.url, { JWT_ROLE_CLAIM: "groups backend=service" }) });
    expect(notListed.status, show(notListed)).toBe(403);
  });

  it("keeps HS256 with JWT_SECRET working beside it", async () => {
    const endpoint = await jwksEndpoint([keys.RS256]);
    const res = await api("GET", "/v1/me/badges", { as: { userId: newId() }, env: provider(endpoint.url) });
    expect(res.status, show(res)).toBe(200);
    expect(await endpoint.fetches(), "an HS256 token without kid never asks the provider").toBe(0);
  });
});

describe("refused provider tokens: 401 naming what is wrong", () => {
  const cases: [string, () => Promise<string>, RegExp][] = [
    ["wrong iss", () => signToken(keys.RS256, good(newId(), { iss: "https://evil.example/" })), /iss .*JWT_ISSUER/],
    ["wrong aud", () => signToken(keys.ES256, good(newId(), { aud: ["someone-else"] })), /aud .*JWT_AUDIENCE/],
    ["expired", () => signToken(keys.EdDSA, good(newId(), { exp: Math.floor(Date.now() / 1000) - 5 })), /expired/],
    ["no exp", () => signToken(keys.EdDSA, { iss: ISSUER, aud: AUDIENCE, sub: newId() }), /no exp/],
    ["unknown kid", () => signToken(keys.RS256, good(newId()), { kid: "not-published" }), /kid "not-published" is not a key of JWT_JWKS_URL/],
    ["alg none", async () => unsignedToken(good(newId()), { kid: keys.RS256.kid }), /alg "none" is not accepted/],
    ["HS256 signed with the public key as secret", () => hmacToken(keys.RS256.publicPem, good(newId()), { kid: keys.RS256.kid }), /alg HS256 names a key of JWT_JWKS_URL/],
    ["another key's signature", async () => {
      const stranger = await generateSigningKey("ES256", keys.ES256.kid);
      return signToken(stranger, good(newId()));
    }, /signature is invalid/],
    ["an RS256 key used with ES256", async () => {
      const token = await signToken(keys.ES256, good(newId()));
      const [, payload, signature] = token.split(".");
      return `${b64url(JSON.stringify({ alg: "ES256", kid: keys.RS256.kid }))}.${payload}.${signature}`;
    }, /alg ES256 does not match its key/],
  ];

  it.each(cases)("%s", async (_name, make, message) => {
    const endpoint = await jwksEndpoint(Object.values(keys));
    const res = await api("GET", "/v1/me/badges", { as: asBearer(await make()), env: provider(endpoint.url) });
    expect(res.status, show(res)).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
    expect(res.body.error.message).toMatch(message);
  });

  it("the HS256 key-confusion token fails with JWT_SECRET too, when its kid is not published", async () => {
    const endpoint = await jwksEndpoint([keys.ES256]);
    const token = await hmacToken(keys.RS256.publicPem, good(newId()), { kid: keys.RS256.kid });
    const res = await api("GET", "/v1/me/badges", { as: asBearer(token), env: provider(endpoint.url) });
    expect(res.status, show(res)).toBe(401);
  });
});

describe("the key cache", () => {
  it("accepts a rotated-in key after one refetch", async () => {
    const endpoint = await jwksEndpoint([keys.RS256]);
    const settings = provider(endpoint.url);
    const before = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(keys.RS256, good(newId()))), env: settings });
    expect(before.status, show(before)).toBe(200);
    expect(await endpoint.fetches()).toBe(1);
    const next = await generateSigningKey("ES256");
    await endpoint.publish([keys.RS256, next]);
    const after = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(next, good(newId()))), env: settings });
    expect(after.status, show(after)).toBe(200);
    expect(await endpoint.fetches()).toBe(2);
    const again = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(keys.RS256, good(newId()))), env: settings });
    expect(again.status, show(again)).toBe(200);
    expect(await endpoint.fetches(), "known keys are served from the cache").toBe(2);
  });

  it("holds the refetch limit under 1,000 forged kids", async () => {
    const endpoint = await jwksEndpoint([keys.EdDSA]);
    const settings = provider(endpoint.url);
    const ok = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(keys.EdDSA, good(newId()))), env: settings });
    expect(ok.status, show(ok)).toBe(200);
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 10; batch++) {
      const results = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const forged = await signToken(keys.EdDSA, good(newId()), { kid: `forged-${batch}-${i}` });
          return (await api("GET", "/v1/me/badges", { as: asBearer(forged), env: settings })).status;
        }),
      );
      for (const status of results) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: 1000 });
    expect(await endpoint.fetches(), "the first fetch, then at most one refetch a minute").toBeLessThanOrEqual(2);
  });

  it("keeps cached keys working while the JWKS is down, and answers a new key 503, not 401", async () => {
    const endpoint = await jwksEndpoint([keys.RS256]);
    const settings = provider(endpoint.url);
    const first = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(keys.RS256, good(newId()))), env: settings });
    expect(first.status, show(first)).toBe(200);
    await endpoint.setDown(true);
    const unseen = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(keys.ES256, good(newId()))), env: settings });
    expect(unseen.status, show(unseen)).toBe(503);
    expect(unseen.headers.get("Retry-After")).toBe("60");
    const cached = await api("GET", "/v1/me/badges", { as: asBearer(await signToken(keys.RS256, good(newId()))), env: settings });
    expect(cached.status, show(cached)).toBe(200);
    expect(await endpoint.fetches()).toBe(2);
  });
});

describe("sockets with a provider token", () => {
  it("accept it and close with 4001 at its exp", async () => {
    const endpoint = await jwksEndpoint([keys.ES256]);
    const me = newId();
    const token = await signToken(keys.ES256, good(me, { exp: Math.floor(Date.now() / 1000) + 2 }));
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://edge.test/v1/me/live?token=${token}`, { headers: { Upgrade: "websocket" } }) as Request<unknown, IncomingRequestCfProperties>,
      { ...(env as unknown as Env), ...provider(endpoint.url) },
      ctx,
    );
    expect(res.status, res.status === 101 ? "" : await res.text()).toBe(101);
    const ws = res.webSocket!;
    const messages: any[] = [];
    let closed: { code: number } | null = null;
    ws.addEventListener("message", (e) => void messages.push(JSON.parse(e.data as string)));
    ws.addEventListener("close", (e) => (closed = { code: e.code }));
    ws.accept();
    await eventually(() => messages.length, (n) => n > 0, 5_000);
    expect(messages[0]?.badges).toBeDefined();
    await eventually(() => closed, (c) => c !== null, 10_000);
    expect(closed).toEqual({ code: CLOSE_TOKEN_EXPIRED });
  });

  it("and HS256 tokens still work on the same route", async () => {
    const me = newId();
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://edge.test/v1/me/live?token=${await tokenFor(me)}`, { headers: { Upgrade: "websocket" } }) as Request<unknown, IncomingRequestCfProperties>,
      { ...(env as unknown as Env), JWT_JWKS_URL: "http://127.0.0.1:9/never-fetched.json" },
      ctx,
    );
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    const messages: any[] = [];
    ws.addEventListener("message", (e) => void messages.push(JSON.parse(e.data as string)));
    ws.accept();
    await eventually(() => messages.length, (n) => n > 0, 5_000);
    expect(messages[0]?.badges).toBeDefined();
    ws.close(1000, "done");
  });
});
