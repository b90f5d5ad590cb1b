import { admitCaller } from "../../lib/admission";
import { createRoute, z } from "@hono/zod-openapi";
import { tokenExpiresAt, verifyCallerToken } from "../../lib/auth";
import { requireWebSocketUpgrade, SOCKET_PROTOCOL, socketToken } from "../../lib/sockets";
import { errorResponses, newRouter } from "../../lib/openapi";
import { CLOSE_MESSAGE_TOO_BIG, CLOSE_TOKEN_EXPIRED, CLOSE_TOO_MANY_SOCKETS, MAX_CLIENT_MESSAGE_BYTES, MAX_SOCKETS_PER_USER, PUSH_INTERVAL_MS } from "./protocol";
import { connectLive } from "./push";
import { CapQuery } from "../shared";

export const liveBadgeRoutes = newRouter().openapi(
  createRoute({
    method: "get",
    path: "/v1/me/live",
    tags: ["Badges"],
    summary: "WebSocket: the caller's badges, pushed when they change",
    description: [
      `The JWT comes as \`?token=\` or as a subprotocol next to \`${SOCKET_PROTOCOL}\` (answered \`${SOCKET_PROTOCOL}\`); \`?cap=\` as on GET /v1/me/badges.`,
      "A missing, bad or expired token gets a 401 JSON error before any upgrade.",
      '- First message: `{"type":"badges","badges":<the body GET /v1/me/badges?cap= answers>}` (with `degraded: true` when Redis is down; a fresh snapshot follows once it is back).',
      '- Then, when badges change (from any device or service): `{"type":"badges","changed":{<kind>:<value>}}` with only the kinds that changed, in the shapes of GET /v1/me/badges.',
      `  The first change after a quiet second goes out at once; then at most one message per ${PUSH_INTERVAL_MS} ms, carrying the latest values.`,
      "- The client may send `ping` (answered `pong` by the runtime) and `badges` (answered with a fresh snapshot); anything else gets",
      '  `{"type":"error","error":{"code":"bad_request","message":…}}` and changes nothing.',
      `- Close codes: ${CLOSE_TOKEN_EXPIRED} "token expired" (reconnect with a fresh token: a new snapshot), ${CLOSE_TOO_MANY_SOCKETS} beyond ${MAX_SOCKETS_PER_USER} sockets per user,`,
      `  ${CLOSE_MESSAGE_TOO_BIG} for a client message over ${MAX_CLIENT_MESSAGE_BYTES} bytes.`,
    ].join("\n"),
    request: {
      query: z.object({
        token: z.string().max(4096).optional().openapi({ param: { name: "token", in: "query" } }),
        cap: CapQuery,
      }),
    },
    responses: {
      101: { description: "Switching to the WebSocket protocol" },
      ...errorResponses("bad_request", "unauthorized", "unavailable"),
    },
  }),
  async (c) => {
    const { token, cap } = c.req.valid("query");
    const { jwt, protocol } = socketToken(token, c.req.header("Sec-WebSocket-Protocol"));
    const caller = await verifyCallerToken(jwt, c.env);
    await admitCaller(c.var.services, caller);
    c.set("caller", caller);
    requireWebSocketUpgrade(c.req.header("Upgrade"));
    const response = await connectLive(c.env, c.req.raw, { userId: caller.userId, cap, expiresAt: tokenExpiresAt(jwt), protocol });
    return response as never;
  },
);
