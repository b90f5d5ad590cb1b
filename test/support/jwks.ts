/**
 * An identity provider for tests inside workerd: signing keys of each algorithm the API accepts,
 * tokens signed with them (or forged in the ways attackers forge them), and a JWKS endpoint of its
 * own on the stack's control server (`/jwks/:name.json`) that counts fetches and can be taken down.
 */
import { env } from "cloudflare:test";

export type ProviderAlg = "RS256" | "ES256" | "EdDSA";

export interface SigningKey {
  kid: string;
  alg: ProviderAlg;
  privateKey: CryptoKey;
  /** What the provider publishes in its JWKS. */
  publicJwk: Record<string, unknown>;
  /** The public key as PEM text: what a key-confusion attack uses as an HMAC secret. */
  publicPem: string;
}

const GENERATE: Record<ProviderAlg, { name: string; modulusLength?: number; publicExponent?: Uint8Array; hash?: string; namedCurve?: string }> = {
  RS256: { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
  ES256: { name: "ECDSA", namedCurve: "P-256" },
  EdDSA: { name: "Ed25519" },
};
const SIGN: Record<ProviderAlg, { name: string; hash?: string }> = {
  RS256: { name: "RSASSA-PKCS1-v1_5" },
  ES256: { name: "ECDSA", hash: "SHA-256" },
  EdDSA: { name: "Ed25519" },
};

export async function generateSigningKey(alg: ProviderAlg, kid = `${alg}-${crypto.randomUUID()}`): Promise<SigningKey> {
  const pair = (await crypto.subtle.generateKey(GENERATE[alg] as Parameters<typeof crypto.subtle.generateKey>[0], true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  const spki = new Uint8Array((await crypto.subtle.exportKey("spki", pair.publicKey)) as ArrayBuffer);
  const publicPem = `-----BEGIN PUBLIC KEY-----\n${btoa(String.fromCharCode(...spki))}\n-----END PUBLIC KEY-----\n`;
  const { key_ops: _ops, ext: _ext, ...published } = jwk as unknown as Record<string, unknown>;
  return { kid, alg, privateKey: pair.privateKey, publicJwk: { ...published, kid, alg, use: "sig" }, publicPem };
}

const encoder = new TextEncoder();
export const b64url = (bytes: Uint8Array | string) =>
  btoa(typeof bytes === "string" ? bytes : String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const part = (value: unknown) => b64url(String.fromCharCode(...encoder.encode(JSON.stringify(value))));

/** Claims a provider token usually has: `sub`, and `exp` 10 minutes ahead. */
export function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { exp: Math.floor(Date.now() / 1000) + 600, iat: Math.floor(Date.now() / 1000), ...extra };
}

/** A token signed with `key`; `header` overrides the header (e.g. another `kid`). */
export async function signToken(key: SigningKey, payload: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const input = `${part({ alg: key.alg, typ: "JWT", kid: key.kid, ...header })}.${part(payload)}`;
  const signature = new Uint8Array(await crypto.subtle.sign(SIGN[key.alg], key.privateKey, encoder.encode(input)));
  return `${input}.${b64url(signature)}`;
}

/** `alg: none`: no signature at all. */
export function unsignedToken(payload: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  return `${part({ alg: "none", typ: "JWT", ...header })}.${part(payload)}.`;
}

/** HS256 with an arbitrary secret (e.g. a public key's PEM: the key-confusion attack). */
export async function hmacToken(secret: string, payload: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const input = `${part({ alg: "HS256", typ: "JWT", ...header })}.${part(payload)}`;
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `${input}.${b64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(input))))}`;
}

/** A JWKS endpoint of the test's own on the control server (fresh name: a fresh per-isolate key cache). */
export interface JwksEndpoint {
  url: string;
  publish(keys: SigningKey[], options?: { cacheControl?: string }): Promise<void>;
  setDown(down: boolean): Promise<void>;
  fetches(): Promise<number>;
}

export async function jwksEndpoint(keys: SigningKey[] = [], options: { cacheControl?: string } = {}): Promise<JwksEndpoint> {
  const base = (env as unknown as { STACK_CONTROL_URL: string }).STACK_CONTROL_URL;
  const name = crypto.randomUUID().replace(/-/g, "");
  const put = async (body: unknown) => {
    const res = await fetch(`${base}/jwks/${name}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    if (res.status !== 204) throw new Error(`PUT /jwks/${name} → ${res.status} ${await res.text()}`);
  };
  const endpoint: JwksEndpoint = {
    url: `${base}/jwks/${name}.json`,
    publish: (published, opts = {}) => put({ keys: published.map((k) => k.publicJwk), ...opts }),
    setDown: (down) => put({ down }),
    fetches: async () => ((await (await fetch(`${base}/jwks/${name}/stats`)).json()) as { fetches: number }).fetches,
  };
  await endpoint.publish(keys, options);
  return endpoint;
}
