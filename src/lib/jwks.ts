import { log } from "./log";
/**
 * The identity provider's public keys (`JWT_JWKS_URL`), fetched and cached per isolate by `kid`.
 *
 * - The key set is fetched on first use and kept as long as the answer's `Cache-Control: max-age`
 *   says, within [JWKS_MIN_MAX_AGE_MS, JWKS_MAX_AGE_CEILING_MS] (a key the provider withdrew is
 *   trusted at most that long); without one, JWKS_DEFAULT_MAX_AGE_MS.
 * - A token naming a `kid` the set lacks (the provider rotated keys) refetches at once, but at most
 *   once per JWKS_REFETCH_INTERVAL_MS per isolate: a flood of forged `kid`s costs the provider one
 *   request a minute, not one per request.
 * - When a fetch fails (down, timeout, not a JWKS), the keys already cached keep working, nothing
 *   is fetched again for JWKS_REFETCH_INTERVAL_MS, and a `kid` the cache lacks is `unavailable`
 *   (the caller answers 503: the token may be fine) rather than `unknown` (401).
 *
 * Only RS256, ES256 and EdDSA keys are kept; the WebCrypto key is imported once per fetch, never per
 * request.
 */

export const JWKS_ALGORITHMS = ["RS256", "ES256", "EdDSA"] as const;
export type JwksAlgorithm = (typeof JWKS_ALGORITHMS)[number];

/** At most one refetch for an unknown `kid`, and no retry after a failed fetch, within this. */
export const JWKS_REFETCH_INTERVAL_MS = 60_000;
export const JWKS_MIN_MAX_AGE_MS = 60_000;
/** Longest a fetched key set is used without asking again, whatever `Cache-Control` says. */
export const JWKS_MAX_AGE_CEILING_MS = 60 * 60_000;
/** When the answer has no `max-age`. */
export const JWKS_DEFAULT_MAX_AGE_MS = 10 * 60_000;
export const JWKS_FETCH_TIMEOUT_MS = 5_000;
/** Keys read from one answer, and bytes: a provider publishes a handful. */
export const JWKS_MAX_KEYS = 100;
export const JWKS_MAX_BYTES = 512 * 1024;

/** How WebCrypto imports and verifies with a key of each algorithm (JWS signatures are raw, as WebCrypto's). */
const IMPORT_PARAMS: Record<JwksAlgorithm, { name: string; hash?: string; namedCurve?: string }> = {
  RS256: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
  ES256: { name: "ECDSA", namedCurve: "P-256" },
  EdDSA: { name: "Ed25519" },
};
export const VERIFY_PARAMS: Record<JwksAlgorithm, { name: string; hash?: string }> = {
  RS256: { name: "RSASSA-PKCS1-v1_5" },
  ES256: { name: "ECDSA", hash: "SHA-256" },
  EdDSA: { name: "Ed25519" },
};

export interface JwksKey {
  alg: JwksAlgorithm;
  key: CryptoKey;
}

/** The key of `kid`, or why there is none: `unknown` (401) or `unavailable` (the JWKS cannot be fetched: 503). */
export type JwksLookup = { key: JwksKey } | { missing: "unknown" | "unavailable" };

type Jwk = Record<string, unknown>;

/** The algorithm a published key verifies, or null for keys this API does not accept. */
function algorithmOf(jwk: Jwk): JwksAlgorithm | null {
  if (jwk.use !== undefined && jwk.use !== "sig") return null;
  if (jwk.kty === "RSA" && (jwk.alg === undefined || jwk.alg === "RS256")) return "RS256";
  if (jwk.kty === "EC" && jwk.crv === "P-256" && (jwk.alg === undefined || jwk.alg === "ES256")) return "ES256";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519" && (jwk.alg === undefined || jwk.alg === "EdDSA" || jwk.alg === "Ed25519")) return "EdDSA";
  return null;
}

/** Imports the public part only (providers add x5c, x5t…, which WebCrypto need not see). */
async function importJwk(jwk: Jwk): Promise<JwksKey | null> {
  const alg = algorithmOf(jwk);
  if (!alg) return null;
  const pick = (...names: string[]) => Object.fromEntries(names.map((n) => [n, jwk[n]]));
  const material = alg === "RS256" ? pick("kty", "n", "e") : alg === "ES256" ? pick("kty", "crv", "x", "y") : pick("kty", "crv", "x");
  try {
    return { alg, key: await crypto.subtle.importKey("jwk", material as unknown as JsonWebKey, IMPORT_PARAMS[alg], false, ["verify"]) };
  } catch {
    return null;
  }
}

/** How long to keep a key set, from its answer's `Cache-Control`. */
export function jwksMaxAgeMs(cacheControl: string | null): number {
  const maxAge = cacheControl?.match(/(?:^|[,\s])max-age=(\d+)/i)?.[1];
  const ms = /no-store|no-cache/i.test(cacheControl ?? "") ? 0 : maxAge === undefined ? JWKS_DEFAULT_MAX_AGE_MS : Number(maxAge) * 1000;
  return Math.min(JWKS_MAX_AGE_CEILING_MS, Math.max(JWKS_MIN_MAX_AGE_MS, ms));
}

export interface JwksDeps {
  /** Defaults to the global `fetch`. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Defaults to `Date.now`. */
  now?: () => number;
}

/** One JWKS URL's keys in this isolate. `jwksFor(url)` gives the shared one; tests build their own. */
export class JwksKeyStore {
  private keys = new Map<string, JwksKey>();
  /** Until when the keys are fresh (0: never fetched). */
  private freshUntil = 0;
  /** No refetch for an unknown kid before this. */
  private nextMissRefetchAt = 0;
  /** No fetch at all before this (set by a failed one). */
  private nextAttemptAt = 0;
  private failing = false;
  private inflight: Promise<void> | undefined;
  private readonly fetchJwks: NonNullable<JwksDeps["fetch"]>;
  private readonly now: () => number;
  /** Fetches started, failed ones included. */
  fetches = 0;

  constructor(
    readonly url: string,
    deps: JwksDeps = {},
  ) {
    // Wrapped: workerd refuses the global fetch called as a method of another object.
    this.fetchJwks = deps.fetch ?? ((url, init) => fetch(url, init));
    this.now = deps.now ?? Date.now;
  }

  async lookup(kid: string): Promise<JwksLookup> {
    const now = this.now();
    const mayFetch = now >= this.nextAttemptAt;
    if (this.inflight) await this.inflight;
    else if (mayFetch && now >= this.freshUntil) await this.refresh();
    else if (mayFetch && !this.keys.has(kid) && now >= this.nextMissRefetchAt) {
      this.nextMissRefetchAt = now + JWKS_REFETCH_INTERVAL_MS;
      await this.refresh();
    }
    const key = this.keys.get(kid);
    if (key) return { key };
    return { missing: this.failing ? "unavailable" : "unknown" };
  }

  /** One fetch at a time: concurrent lookups wait for the same one. */
  private refresh(): Promise<void> {
    this.inflight ??= this.load().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async load(): Promise<void> {
    this.fetches += 1;
    try {
      const res = await this.fetchJwks(this.url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`answered ${res.status}`);
      const text = await res.text();
      if (text.length > JWKS_MAX_BYTES) throw new Error(`answer over ${JWKS_MAX_BYTES} bytes`);
      const body = JSON.parse(text) as { keys?: unknown };
      if (!Array.isArray(body?.keys)) throw new Error("answer has no keys array");
      const keys = new Map<string, JwksKey>();
      for (const jwk of body.keys.slice(0, JWKS_MAX_KEYS) as Jwk[]) {
        if (typeof jwk?.kid !== "string") continue;
        const key = await importJwk(jwk);
        if (key) keys.set(jwk.kid, key);
      }
      this.keys = keys;
      this.freshUntil = this.now() + jwksMaxAgeMs(res.headers.get("cache-control"));
      this.failing = false;
    } catch (error) {
      // Keep the keys we have: tokens signed with them stay valid while the provider is away.
      this.failing = true;
      this.nextAttemptAt = this.now() + JWKS_REFETCH_INTERVAL_MS;
      log.error({ message: "JWKS fetch failed; cached keys stay in use", url: this.url, error: String(error) });
    }
  }
}

/** The isolate's store per JWKS URL (one URL per deployment: the map stays tiny). */
const stores = new Map<string, JwksKeyStore>();
export function jwksFor(url: string): JwksKeyStore {
  let store = stores.get(url);
  if (!store) stores.set(url, (store = new JwksKeyStore(url)));
  return store;
}
