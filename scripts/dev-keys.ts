/**
 * The local identity provider of `npm run dev` and `npm run token -- --alg …`: one signing key per
 * algorithm the API accepts from a JWKS (RS256, ES256, EdDSA), generated on first use and kept in
 * `<data dir>/dev-jwks.json` (under .data/, git-ignored: never committed, never deployed). The
 * dev Worker serves the public half at /.well-known/dev-jwks.json and verifies through it, as it
 * would with Auth0's or Clerk's JWKS; `npm run token` signs with the private half.
 */
import { randomBytes, webcrypto } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const DEV_KEY_ALGS = ["RS256", "ES256", "EdDSA"] as const;
export type DevKeyAlg = (typeof DEV_KEY_ALGS)[number];

/** The issuer `npm run token` writes into provider tokens, and `npm run dev` expects. */
export const DEV_ISSUER = "community-edge-dev";

type Jwk = webcrypto.JsonWebKey & { kid: string; alg: DevKeyAlg };

type GenerateParams = webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams | webcrypto.Algorithm;
const PARAMS: Record<DevKeyAlg, { generate: GenerateParams; sign: { name: string; hash?: string } }> = {
  RS256: { generate: { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, sign: { name: "RSASSA-PKCS1-v1_5" } },
  ES256: { generate: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } },
  EdDSA: { generate: { name: "Ed25519" }, sign: { name: "Ed25519" } },
};

export const devKeysPath = (dataDir: string) => join(dataDir, "dev-jwks.json");

/** The private JWKs of the dev provider, generated (once) when the file is missing. */
export async function devSigningKeys(dataDir: string): Promise<Jwk[]> {
  const path = devKeysPath(dataDir);
  if (existsSync(path)) return (JSON.parse(readFileSync(path, "utf8")) as { keys: Jwk[] }).keys;
  const keys: Jwk[] = [];
  for (const alg of DEV_KEY_ALGS) {
    const pair = (await webcrypto.subtle.generateKey(PARAMS[alg].generate as webcrypto.RsaHashedKeyGenParams, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
    const jwk = await webcrypto.subtle.exportKey("jwk", pair.privateKey);
    keys.push({ ...jwk, kid: `dev-${alg.toLowerCase()}-${randomBytes(4).toString("hex")}`, alg });
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ keys }, null, 2), { mode: 0o600 });
  return keys;
}

/** The public JWKS of those keys (what a provider publishes). */
export function publicJwks(keys: Jwk[]): { keys: Record<string, unknown>[] } {
  return {
    keys: keys.map(({ kty, n, e, crv, x, y, kid, alg }) => Object.fromEntries(Object.entries({ kty, n, e, crv, x, y, kid, alg, use: "sig" }).filter(([, v]) => v !== undefined))),
  };
}

/** A compact JWS of `payload` signed with the dev key of `alg`. */
export async function signWithDevKey(keys: Jwk[], alg: DevKeyAlg, payload: Record<string, unknown>): Promise<string> {
  const jwk = keys.find((k) => k.alg === alg);
  if (!jwk) throw new Error(`no dev key for ${alg}: remove ${"dev-jwks.json"} from the data dir to regenerate`);
  const { kid, alg: _alg, ...material } = jwk;
  const key = await webcrypto.subtle.importKey("jwk", material, PARAMS[alg].generate as webcrypto.RsaHashedImportParams, false, ["sign"]);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const input = `${part({ alg, typ: "JWT", kid })}.${part(payload)}`;
  const signature = Buffer.from(await webcrypto.subtle.sign(PARAMS[alg].sign, key, Buffer.from(input))).toString("base64url");
  return `${input}.${signature}`;
}
