import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./context";
import { originPolicy } from "./cors";
import { ApiError } from "./errors";

/**
 * What every WebSocket route checks before it hands the upgrade on: that it is one, and where its
 * token travels (browsers cannot set headers on a socket).
 */

/** The subprotocol a browser offers next to its token on a WebSocket (it cannot set headers there); answered back. */
export const SOCKET_PROTOCOL = "live";

/**
 * The JWT of a WebSocket upgrade: `?token=`, else the offered subprotocol that is not
 * SOCKET_PROTOCOL (401 when neither is there), and the subprotocol to answer (SOCKET_PROTOCOL when
 * offered, else none). Every socket route reads its token this way.
 */
export function socketToken(queryToken: string | undefined, offeredProtocols: string | undefined): { jwt: string; protocol: typeof SOCKET_PROTOCOL | null } {
  const offered = (offeredProtocols ?? "").split(",").map((p) => p.trim()).filter(Boolean);
  const jwt = queryToken ?? offered.find((p) => p !== SOCKET_PROTOCOL);
  if (!jwt) throw new ApiError("unauthorized", "Missing token (query parameter or subprotocol)");
  return { jwt, protocol: offered.includes(SOCKET_PROTOCOL) ? SOCKET_PROTOCOL : null };
}

/** 400 naming `Upgrade` unless the request asks for a WebSocket. */
export function requireWebSocketUpgrade(upgrade: string | undefined): void {
  if (upgrade?.toLowerCase() !== "websocket") {
    throw new ApiError("bad_request", "Expected a WebSocket upgrade", [{ field: "Upgrade", message: "must be websocket" }]);
  }
}

/**
 * 403 before the upgrade when a browser opens a socket from an origin that `CORS_ORIGINS` does not
 * allow (nor the API's own): a page elsewhere must not ride a user's socket (cross-site WebSocket
 * hijacking; CORS does not apply to sockets). Native apps send no `Origin` and pass.
 */
export function requireAllowedSocketOrigin(origin: string | undefined, requestUrl: string, allowedOrigins: string | undefined): void {
  if (origin === undefined || origin === new URL(requestUrl).origin || originPolicy(allowedOrigins).match(origin)) return;
  throw new ApiError("forbidden", `WebSockets from origin ${origin} are not allowed`, [{ field: "Origin", message: "must be an origin CORS_ORIGINS allows" }]);
}

/** Checks the `Origin` of every WebSocket upgrade, whatever the route, before it reaches one. */
export function socketOrigins() {
  return createMiddleware<AppEnv>(async function socketOrigins(c, next) {
    if (c.req.header("Upgrade")?.toLowerCase() === "websocket") requireAllowedSocketOrigin(c.req.header("Origin"), c.req.url, c.env.CORS_ORIGINS);
    await next();
  });
}
