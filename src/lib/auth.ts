import { createMiddleware } from "hono/factory";
import { decode, verify } from "hono/jwt";
import { ApiError } from "./errors";
import { isId } from "./ids";
import type { AppEnv } from "./context";

import { ROLES, type Caller, type Role } from "./caller";

// In a module of their own so the request context can name the caller without importing this one.
export { ROLES, type Caller, type Role };

/**
 * Requires `Authorization: Bearer <JWT>` signed HS256 with `JWT_SECRET`, with an `exp` claim and a
 * `sub` that is a user id. With `roles`, the caller's role must be one of them (403 otherwise).
 *
 * @example
 * app.openapi(createRoute({ ..., middleware: [authenticate({ roles: ["service"] })] }), handler)
 */
export function authenticate({ roles }: { roles?: readonly Role[] } = {}) {
  return createMiddleware<AppEnv>(async function authenticate(c, next) {
    const header = c.req.header("Authorization");
    const token = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!token) throw new ApiError("unauthorized", "Missing bearer token");
    const caller = await verifyCallerToken(token, c.env.JWT_SECRET);
    if (roles && !roles.includes(caller.role)) {
      throw new ApiError("forbidden", `This operation requires role ${roles.join(" or ")}`);
    }
    c.set("caller", caller);
    await next();
  });
}

/** Verifies a caller token; also used where the token cannot travel in a header (WebSockets). */
export async function verifyCallerToken(token: string, secret: string): Promise<Caller> {
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
  return { userId: sub, role: role as Role };
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
