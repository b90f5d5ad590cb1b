import type { Env } from "../env";
import { base64UrlDecode, base64UrlEncode } from "./base64url";
import { MalformedConsistencyTokenError, readConsistencyToken, signedText, type SignedSyncTokens, type SyncTokens } from "./consistency-token";

/**
 * The tags of `X-Consistency-Token` (docs/regions.md#read-your-own-writes): an HMAC-SHA-256 per
 * database entry under a secret of the deployment, so a client can only hand back sync tokens the
 * deployment answered. Without them a client could send an offset far in the future and make the
 * read region hold its reads until they fail; with them the worst it can send is a token the
 * deployment issued, which a region reaches within the replication lag.
 *
 * The secret: `CONSISTENCY_TOKEN_SECRET` when set (rotate it on its own; tokens held by apps then
 * answer 400 once and the client drops them), otherwise derived from `JWT_SECRET`, as
 * HMAC-SHA-256(JWT_SECRET, DERIVATION_LABEL): every deployment that signs its callers' tokens
 * already holds that secret, so turning read regions on needs no new one, and the label keeps the
 * two keys apart (no tag is ever an HS256 signature of the same bytes). A deployment with
 * neither (JWKS-only callers) must set CONSISTENCY_TOKEN_SECRET to turn read regions on.
 */

type SecretEnv = Partial<Pick<Env, "JWT_SECRET" | "CONSISTENCY_TOKEN_SECRET">>;

/** What the fallback key is derived with: names its one purpose, so it serves no other. */
const DERIVATION_LABEL = "community-edge consistency token v2";

/** The deployment has no secret to sign tokens with: a setting to fix, refused before any work. */
export class ConsistencyTokenSecretMissingError extends Error {
  constructor() {
    super("REDIS_READ_REGIONS is on but neither CONSISTENCY_TOKEN_SECRET nor JWT_SECRET is set: X-Consistency-Token cannot be signed");
  }
}

/** Keys imported in this isolate, by secret: one setting in production; tests bind a few. */
const MAX_KEYS = 8;
const keys = new Map<string, Promise<CryptoKey>>();
const encoder = new TextEncoder();

/** Throws ConsistencyTokenSecretMissingError when `env` has no secret to sign tokens with. */
export function assertTokenSecret(env: SecretEnv): void {
  if (!env.CONSISTENCY_TOKEN_SECRET && !env.JWT_SECRET) throw new ConsistencyTokenSecretMissingError();
}

/** The HMAC key of `env`, imported once per isolate (verification runs on every request sending a token). */
function tokenKey(env: SecretEnv): Promise<CryptoKey> {
  assertTokenSecret(env);
  const own = env.CONSISTENCY_TOKEN_SECRET;
  const cacheKey = own ? `own\n${own}` : `jwt\n${env.JWT_SECRET}`;
  let key = keys.get(cacheKey);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = (own ? Promise.resolve(encoder.encode(own)) : derive(env.JWT_SECRET!)).then((bytes) => hmacKey(bytes));
    // A failed import is not kept: the next request tries again.
    key.catch(() => keys.delete(cacheKey));
    keys.set(cacheKey, key);
  }
  return key;
}

function hmacKey(bytes: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

async function derive(jwtSecret: string): Promise<Uint8Array> {
  const parent = await hmacKey(encoder.encode(jwtSecret));
  return new Uint8Array(await crypto.subtle.sign("HMAC", parent, encoder.encode(DERIVATION_LABEL)));
}

/**
 * Reads a header value and checks every entry's tag (crypto.subtle.verify: constant time); throws
 * MalformedConsistencyTokenError when the structure is wrong or a tag is not this deployment's (an
 * entry altered, cut short, or signed with another secret).
 */
export async function verifyConsistencyToken(env: SecretEnv, value: string): Promise<SignedSyncTokens> {
  const entries = readConsistencyToken(value);
  const key = await tokenKey(env);
  const checks: Promise<boolean>[] = [];
  const indexes: number[] = [];
  entries.forEach((entry, index) => {
    if (!entry) return;
    indexes.push(index);
    checks.push(crypto.subtle.verify("HMAC", key, base64UrlDecode(entry.tag), encoder.encode(signedText(index, entry.token))));
  });
  const verified = await Promise.all(checks);
  const refused = verified.indexOf(false);
  if (refused >= 0) throw new MalformedConsistencyTokenError(`the entry of database ${indexes[refused]} was not issued by this deployment (altered, or signed with another secret)`);
  return entries;
}

/**
 * The entries for `tokens`, each tagged under the deployment's secret. An entry of `issued` (what
 * the request was sent, verified) whose sync token is the one to answer keeps its tag: only the
 * databases the request's writes moved are signed.
 */
export async function signSyncTokens(env: SecretEnv, tokens: SyncTokens, issued: SignedSyncTokens = []): Promise<SignedSyncTokens> {
  const key = await tokenKey(env);
  const entries: SignedSyncTokens = [];
  const signing: Promise<void>[] = [];
  tokens.forEach((token, index) => {
    if (!token) return;
    const kept = issued[index];
    if (kept?.token === token) entries[index] = kept;
    else {
      signing.push(
        crypto.subtle.sign("HMAC", key, encoder.encode(signedText(index, token))).then((tag) => {
          entries[index] = { token, tag: base64UrlEncode(tag) };
        }),
      );
    }
  });
  await Promise.all(signing);
  return entries;
}
