import { base64UrlDecode, base64UrlEncode } from "../lib/base64url";

/**
 * The provider tokens a push is authorised with, signed on WebCrypto (so they run in Workers):
 * ES256 for VAPID (RFC 8292) and APNs provider tokens, RS256 for the FCM service account's OAuth
 * assertion. Only signing lives here; each provider decides claims and lifetime.
 */

export type SigningAlgorithm = "ES256" | "RS256";

const IMPORT_PARAMS: Record<SigningAlgorithm, SubtleCryptoImportKeyAlgorithm> = {
  ES256: { name: "ECDSA", namedCurve: "P-256" },
  RS256: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
};
const SIGN_PARAMS: Record<SigningAlgorithm, SubtleCryptoSignAlgorithm> = {
  ES256: { name: "ECDSA", hash: "SHA-256" },
  RS256: { name: "RSASSA-PKCS1-v1_5" },
};

const utf8 = new TextEncoder();

/**
 * A compact JWS. WebCrypto's ECDSA signature is already JOSE's form (r ‖ s, 64 bytes), not DER.
 */
export async function signJwt(alg: SigningAlgorithm, key: CryptoKey, payload: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  const input = `${encodeJson({ typ: "JWT", alg, ...header })}.${encodeJson(payload)}`;
  const signature = await crypto.subtle.sign(SIGN_PARAMS[alg], key, utf8.encode(input));
  return `${input}.${base64UrlEncode(signature)}`;
}

function encodeJson(value: unknown): string {
  return base64UrlEncode(utf8.encode(JSON.stringify(value)));
}

/**
 * A private key from PEM PKCS#8 text (`-----BEGIN PRIVATE KEY-----`): an APNs `.p8` file, the
 * `private_key` of a Google service account. Secrets often arrive with `\n` escaped: both work.
 */
export async function importPkcs8Pem(pem: string, alg: SigningAlgorithm): Promise<CryptoKey> {
  const body = pem
    .replace(/\\n/g, "\n")
    .replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "")
    .replace(/\s+/g, "");
  const der = Uint8Array.from(atob(body), (ch) => ch.charCodeAt(0));
  return crypto.subtle.importKey("pkcs8", der, IMPORT_PARAMS[alg], false, ["sign"]);
}

/**
 * A P-256 private key given as its 32-byte scalar `d` and its 65-byte uncompressed public point,
 * both base64url (how VAPID keys are handed around: `web-push generate-vapid-keys`).
 */
export async function importP256PrivateKey(publicKey: string, privateKey: string, usage: "sign" | "deriveBits"): Promise<CryptoKey> {
  const point = base64UrlDecode(publicKey);
  if (point.length !== 65 || point[0] !== 4) throw new Error("not an uncompressed P-256 point");
  const jwk: JsonWebKey = { kty: "EC", crv: "P-256", d: privateKey, x: base64UrlEncode(point.slice(1, 33)), y: base64UrlEncode(point.slice(33, 65)) };
  const algorithm = usage === "sign" ? { name: "ECDSA", namedCurve: "P-256" } : { name: "ECDH", namedCurve: "P-256" };
  return crypto.subtle.importKey("jwk", jwk, algorithm, false, [usage]);
}

/**
 * A signed token reused while `reusable` says so, per isolate and per key: one
 * signature per window instead of one per push (APNs refuses new provider tokens more often than
 * every 20 minutes; FCM and VAPID tokens last an hour or more). Concurrent callers share one
 * signing.
 */
export class ReusedToken<T extends { token: string }> {
  #current: { value: Promise<T>; issuedAt: number } | undefined;

  constructor(
    private readonly issue: (now: number) => Promise<T>,
    private readonly reusable: (value: T, ageMs: number, now: number) => boolean,
  ) {}

  async get(now: number = Date.now()): Promise<T> {
    const current = this.#current;
    if (current) {
      const value = await current.value.catch(() => undefined);
      if (value && this.reusable(value, now - current.issuedAt, now)) return value;
      if (this.#current !== current) return this.get(now); // another caller already replaced it
    }
    const next = { value: this.issue(now), issuedAt: now };
    this.#current = next;
    try {
      return await next.value;
    } catch (err) {
      if (this.#current === next) this.#current = undefined; // a failure is not kept: the next call tries again
      throw err;
    }
  }

  /** When the current token was issued (ms), if there is one. */
  get issuedAt(): number | undefined {
    return this.#current?.issuedAt;
  }

  /** Forgets the current token (the provider refused it), unless it is younger than `minAgeMs`. */
  invalidate(now: number = Date.now(), minAgeMs = 0): boolean {
    if (!this.#current || now - this.#current.issuedAt < minAgeMs) return false;
    this.#current = undefined;
    return true;
  }
}
