import { createMiddleware } from "hono/factory";
import { decode, verify } from "hono/jwt";
import type { Env } from "../env";
import { base64UrlDecode } from "./base64url";
import { ApiError } from "./errors";
import { isId } from "./ids";
import { JWKS_ALGORITHMS, jwksFor, VERIFY_PARAMS, type JwksAlgorithm, type JwksKeyStore } from "./jwks";
import type { AppEnv } from "./context";

import { ROLES, type Caller, type Role } from "./caller";
import { log } from "./log";
import { admitCaller } from "./admission";
import type { Context } from "hono";

// In a module of their own so the request context can name the caller without importing this one.
export { ROLES, type Caller, type Role };

/** The settings token verification reads (the Worker's bindings). */
export type AuthConfig = Pick<Env, "JWT_SECRET" | "JWT_JWKS_URL" | "JWT_ISSUER" | "JWT_AUDIENCE" | "JWT_USER_ID_CLAIM" | "JWT_ROLE_CLAIM">;

/**
 * Requires `Authorization: Bearer <JWT>`: HS256 signed with `JWT_SECRET`, or RS256 / ES256 / EdDSA
 * signed by the identity provider whose keys `JWT_JWKS_URL` publishes (see `verifyCallerToken`).
 * With `roles`, the caller's role must be one of them (403 otherwise).
 *
 * @example
 * app.openapi(createRoute({ ..., middleware: [authenticate({ roles: ["service"] })] }), handler)
 */
export function authenticate({ roles }: { roles?: readonly Role[] } = {}) {
  return createMiddleware<AppEnv>(async function authenticate(c, next) {
    const header = c.req.header("Authorization");
    const token = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!token) throw new ApiError("unauthorized", "Missing bearer token");
    const caller = await verifyCallerToken(token, c.env);
    if (roles && !roles.includes(caller.role)) {
      throw new ApiError("forbidden", `This operation requires role ${roles.join(" or ")}`);
    }
    // The checks capabilities registered (a deletion running: src/accounts/deleting.ts), from isolate snapshots: no round trip.
    if (c.var.services) await admitCaller(c.var.services, caller);
    c.set("caller", caller);
    await next();
  });
}

/**
 * The caller of a public read, when its request carries a valid token (`undefined` otherwise: a
 * missing, bad or expired token reads as anyone would). A public read that answers differently to
 * someone (their own held posts; a block: src/safety) asks this instead of requiring a token; a
 * caller the admission checks refuse (suspended, being deleted) is refused as `authenticate` does.
 */
export async function optionalCaller(c: Context<AppEnv>): Promise<Caller | undefined> {
  const token = c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!token) return undefined;
  const caller = await verifyCallerToken(token, c.env).catch(() => undefined);
  if (caller) await admitCaller(c.var.services, caller);
  return caller;
}

/**
 * Verifies a caller token; also used where the token cannot travel in a header (WebSockets).
 * The token's `alg` picks the path:
 * - HS256: `JWT_SECRET`, `sub` = user id, `role` as signed (the app's own tokens, as always);
 * - RS256, ES256, EdDSA: the JWKS key named by `kid` (`jwks`: the isolate's store for
 *   `JWT_JWKS_URL`), see `verifyProviderToken`;
 * - anything else (`none`, HS384…) is refused, and so is an HS* token naming a JWKS key: a public
 *   key must never serve as an HMAC secret.
 */
export async function verifyCallerToken(token: string, config: AuthConfig, jwks: JwksKeyStore | undefined = config.JWT_JWKS_URL ? jwksFor(config.JWT_JWKS_URL) : undefined): Promise<Caller> {
  // A token this isolate verified already is not decoded again (with JWKS keys configured the header
  // is read first: an HS token naming one of their kids is refused, whatever was remembered).
  if (!jwks && config.JWT_SECRET) {
    const known = rememberedCaller(token, config.JWT_SECRET);
    if (known) return known;
  }
  // The header alone picks the path: an HS256 token (every request of an app minting its own) is
  // then decoded once, by the verifier, not a second time here.
  const header = decodeHeader(token);
  const alg = header.alg;
  if (typeof alg === "string" && alg.startsWith("HS")) {
    if (jwks && typeof header.kid === "string" && "key" in (await jwks.lookup(header.kid))) {
      throw new ApiError("unauthorized", `Token alg ${alg} names a key of JWT_JWKS_URL (kid ${header.kid}); those keys verify RS256, ES256 or EdDSA only`);
    }
    return verifySecretToken(token, config.JWT_SECRET);
  }
  if (JWKS_ALGORITHMS.includes(alg as JwksAlgorithm)) {
    if (!jwks) throw new ApiError("unauthorized", `Token alg ${String(alg)} needs JWT_JWKS_URL, which is not set`);
    return verifyProviderToken(token, config, jwks);
  }
  throw new ApiError("unauthorized", `Token alg ${JSON.stringify(alg)} is not accepted (HS256, RS256, ES256 or EdDSA)`);
}

/** HS256 with `JWT_SECRET`: `exp` required, `sub` a user id, `role` one of ROLES (default user). */
async function verifySecretToken(token: string, secret: string | undefined): Promise<Caller> {
  if (!secret) throw new ApiError("unauthorized", "HS256 tokens are not accepted: JWT_SECRET is not set");
  const known = rememberedCaller(token, secret);
  if (known) return known;
  let payload: Record<string, unknown>;
  try {
    payload = await verify(token, await verificationKey(secret), "HS256");
  } catch {
    throw new ApiError("unauthorized", "Invalid or expired token");
  }
  if (typeof payload.exp !== "number") throw new ApiError("unauthorized", "Token has no exp claim");
  const sub = typeof payload.sub === "number" ? String(payload.sub) : payload.sub;
  if (typeof sub !== "string" || !isId(sub)) throw new ApiError("unauthorized", "Token sub is not a user id");
  const role = payload.role ?? "user";
  if (!ROLES.includes(role as Role)) throw new ApiError("unauthorized", "Token role is not recognised");
  const caller: Caller = { userId: sub, role: role as Role };
  if (verifiedTokens.size >= MAX_VERIFIED_TOKENS) verifiedTokens.clear();
  verifiedTokens.set(memoKey(secret, token), { caller, exp: payload.exp });
  return caller;
}

/**
 * HS256 tokens this isolate has verified (by secret and token), with their `exp`: a client sends
 * the same token on every request until it expires, so the signature check (decode, base64, HMAC)
 * runs once per token, not once per request. Only successes are kept; a kept token is refused once
 * its `exp` passes, as `verify` would. Bounded: emptied when full.
 */
const verifiedTokens = new Map<string, { caller: Caller; exp: number }>();
const MAX_VERIFIED_TOKENS = 1_000;
const memoKey = (secret: string, token: string) => `${secret}\u0000${token}`;

/** The caller of a remembered token; undefined when not remembered; 401 once its `exp` has passed. */
function rememberedCaller(token: string, secret: string): Caller | undefined {
  const key = memoKey(secret, token);
  const known = verifiedTokens.get(key);
  if (!known) return undefined;
  // What `verify` checks that can change with time is `exp` alone (`nbf` and `iat` once passed stay passed).
  if (known.exp > Math.floor(Date.now() / 1000)) return known.caller;
  verifiedTokens.delete(key);
  throw new ApiError("unauthorized", "Invalid or expired token");
}

/** Clock difference tolerated on `nbf` between the provider and the edge. */
const NOT_BEFORE_LEEWAY_SECONDS = 60;

/**
 * A token from the identity provider: signature by the JWKS key its `kid` names (with that key's
 * algorithm), then `exp` (required), `nbf`, `iss` = `JWT_ISSUER` and `aud` ∋ `JWT_AUDIENCE` when
 * set, the user id from `JWT_USER_ID_CLAIM` (default `sub`), and the role from `JWT_ROLE_CLAIM`'s
 * mapping only (`user` otherwise: a provider's own `role` claim means something else, e.g.
 * Supabase's "authenticated"). Each refusal names what is wrong; a key that cannot be fetched is a
 * 503, not a 401.
 */
async function verifyProviderToken(token: string, config: AuthConfig, jwks: JwksKeyStore): Promise<Caller> {
  const { header, payload, signingInput, signature } = decodeToken(token);
  const kid = header.kid;
  if (typeof kid !== "string" || !kid) throw new ApiError("unauthorized", "Token has no kid header naming its JWKS key");
  const found = await jwks.lookup(kid);
  if ("missing" in found) {
    if (found.missing === "unavailable") {
      throw new ApiError("unavailable", "The identity provider's keys (JWT_JWKS_URL) cannot be fetched; retry shortly", undefined, { "Retry-After": "60" });
    }
    throw new ApiError("unauthorized", `Token kid ${JSON.stringify(kid)} is not a key of JWT_JWKS_URL`);
  }
  if (found.key.alg !== header.alg) throw new ApiError("unauthorized", `Token alg ${String(header.alg)} does not match its key (kid ${JSON.stringify(kid)} is ${found.key.alg})`);
  if (!(await crypto.subtle.verify(VERIFY_PARAMS[found.key.alg], found.key.key, signature, signingInput))) {
    throw new ApiError("unauthorized", "Token signature is invalid");
  }
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.exp !== "number") throw new ApiError("unauthorized", "Token has no exp claim");
  if (payload.exp <= now) throw new ApiError("unauthorized", "Token expired (exp)");
  if (typeof payload.nbf === "number" && payload.nbf > now + NOT_BEFORE_LEEWAY_SECONDS) throw new ApiError("unauthorized", "Token is not valid yet (nbf)");
  if (config.JWT_ISSUER && payload.iss !== config.JWT_ISSUER) {
    throw new ApiError("unauthorized", `Token iss ${JSON.stringify(payload.iss ?? null)} is not the issuer JWT_ISSUER names`);
  }
  if (config.JWT_AUDIENCE) {
    const expected = config.JWT_AUDIENCE.split(",").map((a) => a.trim()).filter(Boolean);
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.some((a) => typeof a === "string" && expected.includes(a))) {
      throw new ApiError("unauthorized", `Token aud ${JSON.stringify(payload.aud ?? null)} does not include the audience JWT_AUDIENCE names`);
    }
  }
  const claim = config.JWT_USER_ID_CLAIM || "sub";
  const raw = payload[claim];
  if (raw === undefined) throw new ApiError("unauthorized", `Token has no ${claim} claim (JWT_USER_ID_CLAIM) holding the user id`);
  const userId = typeof raw === "number" && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (typeof userId !== "string" || !isId(userId)) {
    throw new ApiError("unauthorized", `Token claim ${claim} (JWT_USER_ID_CLAIM) is not a user id: a positive 64-bit integer as a decimal string`);
  }
  return { userId, role: roleMapping(config.JWT_ROLE_CLAIM).roleOf(payload) };
}

/**
 * `JWT_ROLE_CLAIM`: `<claim> <value>=<role>[,<value>=<role>…]`, e.g.
 * `https://example.com/roles ops=admin,backend=service`: a provider token whose claim equals (or,
 * for an array, contains) a listed value gets that role, the first listed pair that matches
 * winning; every other provider token is a `user`. Unset, or not in this form (logged): nobody
 * is mapped.
 */
export interface RoleMapping {
  roleOf(payload: Record<string, unknown>): Role;
}

const roleMappings = new Map<string, RoleMapping>();
export function roleMapping(setting: string | undefined): RoleMapping {
  const key = setting?.trim() ?? "";
  let mapping = roleMappings.get(key);
  if (!mapping) {
    mapping = parseRoleMapping(key);
    roleMappings.set(key, mapping);
  }
  return mapping;
}

function parseRoleMapping(setting: string): RoleMapping {
  const nobody: RoleMapping = { roleOf: () => "user" };
  if (!setting) return nobody;
  const [claim, list, ...rest] = setting.split(/\s+/);
  const pairs = (list ?? "").split(",").map((pair) => pair.split("="));
  if (!claim || rest.length > 0 || pairs.some((p) => p.length !== 2 || !p[0] || !ROLES.includes(p[1] as Role))) {
    log.error({ message: "JWT_ROLE_CLAIM is not `<claim> <value>=<role>,…`: no provider token gets a role", setting });
    return nobody;
  }
  return {
    roleOf(payload) {
      const value = payload[claim];
      const values = Array.isArray(value) ? value : [value];
      return (pairs.find(([v]) => values.includes(v))?.[1] as Role | undefined) ?? "user";
    },
  };
}

/** The parts of a compact JWS; 401 when it is not one. */
/** The JOSE header of a three-part token (401 "Malformed token" otherwise). */
function decodeHeader(token: string): Record<string, unknown> {
  const parts = token.split(".");
  try {
    if (parts.length !== 3) throw new Error("not three parts");
    const header = JSON.parse(new TextDecoder().decode(base64UrlDecode(parts[0]!)));
    if (!isObject(header)) throw new Error("not an object");
    return header;
  } catch {
    throw new ApiError("unauthorized", "Malformed token: not a JWT");
  }
}

function decodeToken(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signingInput: Uint8Array; signature: Uint8Array } {
  const header = decodeHeader(token);
  const [head, body, signature] = token.split(".") as [string, string, string];
  try {
    const payload = JSON.parse(new TextDecoder().decode(base64UrlDecode(body)));
    if (!isObject(payload)) throw new Error("not an object");
    return { header, payload, signingInput: new TextEncoder().encode(`${head}.${body}`), signature: base64UrlDecode(signature) };
  } catch {
    throw new ApiError("unauthorized", "Malformed token: not a JWT");
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** When a token that `verifyCallerToken` accepted expires, in ms since the epoch (sockets close then). */
export function tokenExpiresAt(token: string): number {
  return Number(decode(token).payload.exp) * 1000;
}

/**
 * The HMAC key of a secret, imported once per isolate: importing it on every request costs more
 * than the verification itself. A CryptoKey is plain data, safe to share across requests.
 */
const verificationKeys = new Map<string, Promise<CryptoKey>>();
function verificationKey(secret: string): Promise<CryptoKey> {
  let key = verificationKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    verificationKeys.set(secret, key);
  }
  return key;
}

/** Throws 403 unless the caller is `userId` or holds one of `roles`. */
export function requireSelfOr(caller: Caller, userId: string, roles: readonly Role[] = ["admin"]) {
  if (caller.userId !== userId && !roles.includes(caller.role)) {
    throw new ApiError("forbidden", "You may only act on your own data");
  }
}
