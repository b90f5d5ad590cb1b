import { admitCaller } from "../lib/admission";
import { createRoute, z } from "@hono/zod-openapi";
import { authenticate, tokenExpiresAt, verifyCallerToken } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { IdSchema, idParam } from "../lib/ids";
import { bearerAuth, errorResponses, jsonBody, jsonContent, newRouter } from "../lib/openapi";
import { requireWebSocketUpgrade, socketToken } from "../lib/sockets";
import { CursorQuery, LimitQuery, pageSchema } from "../lib/pagination";
import { rateLimit } from "../lib/rate-limit";
import {
  connectSocket,
  endSession,
  enterRoom,
  joinedFans,
  leaveRoom,
  listOnlineFans,
  loyalFans,
  manyRoomCounts,
  MAX_LOYAL_SESSIONS,
  MAX_SHARDS,
  ROOM_ID_PATTERN,
  roomCounts,
  startSession,
  viewerStatus,
} from "./rooms";
import { chooseLocationHint, LOCATION_HINTS, type RequestPlace } from "./placement";

/** Most rooms one `GET /v1/live/online` may ask about (one object call each, in parallel). */
export const MAX_ROOMS_PER_CALL = 100;

const RoomIdSchema = z
  .string()
  .regex(ROOM_ID_PATTERN, "must be 1-64 letters, digits, '_' or '-'")
  .openapi({ param: { name: "roomId", in: "path" }, example: "stream-42" });
const roomParams = z.object({ roomId: RoomIdSchema });
const DeviceQuery = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, '_' or '-'")
  .default("default")
  .openapi({ param: { name: "device", in: "query" }, description: "Which of the caller's devices; one viewer until all have left" });

const SessionSchema = z
  .object({
    roomId: z.string(),
    sessionId: IdSchema,
    hostId: IdSchema,
    ownerId: IdSchema.openapi({ description: "The room's owner: the host of its first session, unless a service or an admin assigned another" }),
    shards: z.number().int(),
    location: z.enum(LOCATION_HINTS).nullable().openapi({
      description:
        "Where the room's objects were placed when it was created (a Durable Objects location hint): its first session's choice; null when none was given",
    }),
    startedAt: z.string().datetime(),
    endedAt: z.string().datetime().nullable(),
  })
  .openapi("LiveSession");
const NewSessionSchema = z
  .object({
    hostId: IdSchema,
    assignOwner: z.boolean().default(false).openapi({
      description: "Services and admins: make hostId the room's owner (a room nobody owns is owned by its first host anyway)",
    }),
    shards: z.number().int().min(1).max(MAX_SHARDS).default(1).openapi({ description: "Objects to spread a big room over (by user id)" }),
    locationHint: z.enum(LOCATION_HINTS).optional().openapi({
      description:
        "Where to create the room if this start creates it (a Durable Objects location hint); by default the region of the caller's continent. A room stays where it was created",
    }),
  })
  .openapi("NewLiveSession");
const PresenceSchema = z
  .object({ roomId: z.string(), userId: IdSchema, online: z.boolean(), isFan: z.boolean().optional(), joined: z.boolean().optional(), left: z.boolean().optional(), sessionId: IdSchema.optional() })
  .openapi("LivePresence");
const CountsSchema = z
  .object({ roomId: z.string(), viewers: z.number().int(), onlineFans: z.number().int(), sessionId: IdSchema.nullable(), live: z.boolean() })
  .openapi("LiveCounts");
const UserItemSchema = z.object({ userId: IdSchema }).openapi("LiveUser");
const ViewerSchema = z
  .object({ roomId: z.string(), userId: IdSchema, online: z.boolean(), isFan: z.boolean(), joinedAt: z.string().datetime().nullable() })
  .openapi("LiveViewer");
const JoinedSchema = z
  .object({ roomId: z.string(), from: z.string().datetime(), to: z.string().datetime(), fans: z.number().int() })
  .openapi("LiveJoinedFans");
const LoyalSchema = z
  .object({
    roomId: z.string(),
    mode: z.enum(["all", "any"]),
    sessionIds: z.array(IdSchema),
    count: z.number().int(),
    items: z.array(UserItemSchema).nullable().openapi({ description: "A page of fan ids: the room's owner, services and admins only (null otherwise)" }),
    nextCursor: z.string().nullable(),
  })
  .openapi("LiveLoyalFans");

const Instant = (name: string) =>
  z.string().datetime({ offset: true }).openapi({ param: { name, in: "query" }, example: "2026-01-01T00:00:00Z" });
const MAX_WINDOW_MS = 31 * 24 * 60 * 60 * 1000;

const presenceRoute = (method: "post" | "delete") =>
  createRoute({
    method,
    path: "/v1/live/{roomId}/presence",
    tags: ["Live"],
    summary:
      method === "post"
        ? "Enter the room, or refresh presence (HTTP clients refresh within 60 s or are dropped)"
        : "Leave the room from this device (idempotent)",
    security: bearerAuth,
    middleware: [authenticate(), rateLimit()] as const,
    request: { params: roomParams, query: z.object({ device: DeviceQuery }) },
    responses: {
      200: jsonContent(PresenceSchema, "The caller's presence after the call"),
      ...errorResponses("bad_request", "unauthorized", ...(method === "post" ? (["conflict"] as const) : []), "rate_limited", "unavailable"),
    },
  });

export const liveRoutes = newRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/live/{roomId}/sessions",
      tags: ["Live"],
      summary:
        "Start a live session (the room's owner hosting themself, a user hosting themself in a room nobody owns, which they then own, or role service or admin); a live one ends first",
      security: bearerAuth,
      middleware: [authenticate(), rateLimit()] as const,
      request: { params: roomParams, ...jsonBody(NewSessionSchema) },
      responses: {
        201: jsonContent(SessionSchema, "The new session"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "rate_limited", "unavailable"),
      },
    }),
    async (c) => {
      const { roomId } = c.req.valid("param");
      const { hostId, shards, locationHint, assignOwner } = c.req.valid("json");
      const location = chooseLocationHint(locationHint, c.req.raw.cf as RequestPlace);
      return c.json(await startSession(c.var.services, c.var.caller, roomId, { hostId, shards, location, assignOwner }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/live/{roomId}/sessions/current",
      tags: ["Live"],
      summary: "End the live session (the room's owner, service or admin); everyone leaves, the room expires 6 h later",
      security: bearerAuth,
      middleware: [authenticate(), rateLimit()] as const,
      request: { params: roomParams },
      responses: {
        200: jsonContent(SessionSchema, "The ended session"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "conflict", "rate_limited", "unavailable"),
      },
    }),
    async (c) => c.json(await endSession(c.var.services, c.var.caller, c.req.valid("param").roomId), 200),
  )
  .openapi(presenceRoute("post"), async (c) => {
    const { roomId } = c.req.valid("param");
    return c.json(await enterRoom(c.var.services, roomId, c.var.caller.userId, c.req.valid("query").device), 200);
  })
  .openapi(presenceRoute("delete"), async (c) => {
    const { roomId } = c.req.valid("param");
    return c.json(await leaveRoom(c.var.services, roomId, c.var.caller.userId, c.req.valid("query").device), 200);
  })
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/live/online",
      tags: ["Live"],
      summary: "Counts of many rooms in one call (role service)",
      security: bearerAuth,
      middleware: [authenticate({ roles: ["service"] })] as const,
      request: {
        query: z.object({
          rooms: z
            .string()
            .transform((raw, ctx) => {
              const ids = [...new Set(raw.split(",").map((s) => s.trim()).filter(Boolean))];
              if (ids.length === 0) ctx.addIssue({ code: "custom", message: "must list at least one room id" });
              if (ids.length > MAX_ROOMS_PER_CALL) ctx.addIssue({ code: "custom", message: `must list at most ${MAX_ROOMS_PER_CALL} rooms` });
              const bad = ids.find((id) => !ROOM_ID_PATTERN.test(id));
              if (bad !== undefined) ctx.addIssue({ code: "custom", message: `"${bad}" is not a room id` });
              return ids;
            })
            .openapi({ param: { name: "rooms", in: "query" }, type: "string", example: "a,b,c" }),
        }),
      },
      responses: {
        200: jsonContent(z.object({ items: z.array(CountsSchema) }).openapi("LiveCountsList"), "Counts per room, in the order asked"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable"),
      },
    }),
    async (c) => c.json(await manyRoomCounts(c.env, c.req.valid("query").rooms), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/live/{roomId}/online",
      tags: ["Live"],
      summary: "Viewers and online fans now; with list=fans, a page of the online fans (the room's owner, service or admin only)",
      security: bearerAuth,
      middleware: [authenticate()] as const,
      request: {
        params: roomParams,
        query: z.object({
          list: z.enum(["fans"]).optional().openapi({ param: { name: "list", in: "query" } }),
          limit: LimitQuery,
          cursor: CursorQuery,
        }),
      },
      responses: {
        200: jsonContent(z.union([CountsSchema, pageSchema(UserItemSchema, "LiveFansPage")]), "Counts, or a page of online fans"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable"),
      },
    }),
    async (c) => {
      const { roomId } = c.req.valid("param");
      const { list, limit, cursor } = c.req.valid("query");
      if (list === "fans") return c.json(await listOnlineFans(c.env, c.var.caller, roomId, { limit, cursor }), 200);
      return c.json(await roomCounts(c.env, roomId), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/live/{roomId}/online/{userId}",
      tags: ["Live"],
      summary: "Whether a user is in the room now, and as a fan",
      security: bearerAuth,
      middleware: [authenticate()] as const,
      request: { params: z.object({ roomId: RoomIdSchema, userId: idParam("userId") }) },
      responses: { 200: jsonContent(ViewerSchema, "Presence of the user"), ...errorResponses("bad_request", "unauthorized", "unavailable") },
    }),
    async (c) => {
      const { roomId, userId } = c.req.valid("param");
      return c.json(await viewerStatus(c.env, roomId, userId), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/live/{roomId}/joined",
      tags: ["Live"],
      summary: "How many distinct fans joined in [from, to) (at most 31 days)",
      security: bearerAuth,
      middleware: [authenticate()] as const,
      request: { params: roomParams, query: z.object({ from: Instant("from"), to: Instant("to") }) },
      responses: { 200: jsonContent(JoinedSchema, "The count"), ...errorResponses("bad_request", "unauthorized", "unavailable") },
    }),
    async (c) => {
      const { roomId } = c.req.valid("param");
      const { from, to } = c.req.valid("query");
      const [start, end] = [new Date(from), new Date(to)];
      if (end.getTime() <= start.getTime() || end.getTime() - start.getTime() > MAX_WINDOW_MS) {
        throw new ApiError("bad_request", "Invalid to", [{ field: "to", message: "must be after from and at most 31 days later" }]);
      }
      return c.json(await joinedFans(c.env, roomId, start, end), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/live/{roomId}/loyal",
      tags: ["Live"],
      summary: "Fans who attended every (mode=all) or any (mode=any) of the last N sessions: the count to anyone, ids to the room's owner, service or admin",
      security: bearerAuth,
      middleware: [authenticate()] as const,
      request: {
        params: roomParams,
        query: z.object({
          sessions: z.coerce.number().int().min(1).max(MAX_LOYAL_SESSIONS).default(7).openapi({ param: { name: "sessions", in: "query" } }),
          mode: z.enum(["all", "any"]).default("all").openapi({ param: { name: "mode", in: "query" } }),
          limit: LimitQuery,
          cursor: CursorQuery,
        }),
      },
      responses: { 200: jsonContent(LoyalSchema, "Count, and ids for the room's owner, services and admins"), ...errorResponses("bad_request", "unauthorized", "unavailable") },
    }),
    async (c) => {
      const { roomId } = c.req.valid("param");
      return c.json(await loyalFans(c.env, c.var.caller, roomId, c.req.valid("query")), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/live/{roomId}/ws",
      tags: ["Live"],
      summary:
        "WebSocket: view the room (mode=view, default) or watch its counts (mode=watch; the host always watches). " +
        "The JWT comes as ?token= or as a subprotocol next to `live` (answered `live`). Send `ping` at least every 60 s (answered `pong`); " +
        "watchers receive {type:'counts', viewers, onlineFans} at most once per second. " +
        "When the token expires the socket is closed with 4001 \"token expired\" (reconnect with a fresh token).",
      request: {
        params: roomParams,
        query: z.object({
          token: z.string().max(4096).optional().openapi({ param: { name: "token", in: "query" } }),
          mode: z.enum(["view", "watch"]).default("view").openapi({ param: { name: "mode", in: "query" } }),
        }),
      },
      responses: {
        101: { description: "Switching to the WebSocket protocol" },
        ...errorResponses("bad_request", "unauthorized", "conflict", "unavailable"),
      },
    }),
    async (c) => {
      const { roomId } = c.req.valid("param");
      const { token, mode } = c.req.valid("query");
      requireWebSocketUpgrade(c.req.header("Upgrade"));
      const { jwt, protocol } = socketToken(token, c.req.header("Sec-WebSocket-Protocol"));
      const caller = await verifyCallerToken(jwt, c.env);
      await admitCaller(c.var.services, caller);
      c.set("caller", caller);
      const response = await connectSocket(c.var.services, c.req.raw, caller, roomId, mode, protocol, tokenExpiresAt(jwt));
      return response as never;
    },
  );
