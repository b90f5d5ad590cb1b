/**
 * The per-isolate JWKS cache (src/lib/jwks.ts) on a clock of the test's own: how long keys are
 * kept, when it asks the provider again, and what an outage does.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { JWKS_MAX_AGE_CEILING_MS, JWKS_REFETCH_INTERVAL_MS, JwksKeyStore, jwksMaxAgeMs } from "../../src/lib/jwks";
import { generateSigningKey, type SigningKey } from "../support/jwks";

/** A provider whose answer the test sets, and a clock the test moves. */
function fakeProvider(initial: SigningKey[], cacheControl = "max-age=300") {
  const state = { keys: initial, cacheControl, down: false, fetches: 0, now: 1_000_000 };
  const store = new JwksKeyStore("https://id.example.test/.well-known/jwks.json", {
    now: () => state.now,
    fetch: async () => {
      state.fetches += 1;
      if (state.down) throw new TypeError("fetch failed");
      return new Response(JSON.stringify({ keys: state.keys.map((k) => k.publicJwk) }), { headers: { "cache-control": state.cacheControl } });
    },
  });
  return { state, store, has: async (kid: string) => (await store.lookup(kid)) };
}

let a: SigningKey;
let b: SigningKey;
beforeAll(async () => {
  a = await generateSigningKey("ES256");
  b = await generateSigningKey("EdDSA");
});

describe("JwksKeyStore", () => {
  it("keeps keys as long as Cache-Control says, then fetches again", async () => {
    const { state, has } = fakeProvider([a], "public, max-age=300");
    expect(await has(a.kid)).toHaveProperty("key");
    state.now += 299_000;
    await has(a.kid);
    expect(state.fetches).toBe(1);
    state.now += 2_000;
    await has(a.kid);
    expect(state.fetches).toBe(2);
  });

  it("caps Cache-Control at the ceiling and floors it at the refetch interval", () => {
    expect(jwksMaxAgeMs("max-age=31536000")).toBe(JWKS_MAX_AGE_CEILING_MS);
    expect(jwksMaxAgeMs("max-age=0")).toBe(JWKS_REFETCH_INTERVAL_MS);
    expect(jwksMaxAgeMs("no-store")).toBe(JWKS_REFETCH_INTERVAL_MS);
    expect(jwksMaxAgeMs("public, max-age=600, must-revalidate")).toBe(600_000);
  });

  it("refetches for an unknown kid at most once a minute", async () => {
    const { state, has } = fakeProvider([a], "max-age=3600");
    await has(a.kid);
    expect(await has("forged-1")).toEqual({ missing: "unknown" });
    expect(state.fetches).toBe(2);
    for (let i = 0; i < 100; i++) expect(await has(`forged-x${i}`)).toEqual({ missing: "unknown" });
    expect(state.fetches).toBe(2);
    state.keys = [a, b];
    state.now += JWKS_REFETCH_INTERVAL_MS - 1;
    expect(await has(b.kid), "still inside the minute").toEqual({ missing: "unknown" });
    state.now += 1;
    expect(await has(b.kid)).toHaveProperty("key");
    expect(state.fetches).toBe(3);
  });

  it("keeps expired keys working while the provider is down, and says unavailable for the others", async () => {
    const { state, has } = fakeProvider([a], "max-age=60");
    await has(a.kid);
    state.down = true;
    state.now += 10 * 60_000; // long past max-age
    expect(await has(a.kid)).toHaveProperty("key");
    expect(await has(b.kid)).toEqual({ missing: "unavailable" });
    expect(state.fetches, "one failed fetch, then no retry for a minute").toBe(2);
    state.down = false;
    state.keys = [a, b];
    state.now += JWKS_REFETCH_INTERVAL_MS;
    expect(await has(b.kid)).toHaveProperty("key");
    expect(state.fetches).toBe(3);
  });

  it("waits for one fetch when many lookups arrive together", async () => {
    const { state, store } = fakeProvider([a]);
    const results = await Promise.all(Array.from({ length: 50 }, () => store.lookup(a.kid)));
    expect(results.every((r) => "key" in r)).toBe(true);
    expect(state.fetches).toBe(1);
  });

  it("drops keys the provider withdrew, and ignores keys of other algorithms or uses", async () => {
    const { state, has } = fakeProvider([a, b], "max-age=60");
    expect(await has(b.kid)).toHaveProperty("key");
    state.keys = [a, { ...b, publicJwk: { ...b.publicJwk, use: "enc" } }];
    state.now += 61_000;
    expect(await has(a.kid)).toHaveProperty("key");
    expect(await has(b.kid)).toEqual({ missing: "unknown" });
  });
});
