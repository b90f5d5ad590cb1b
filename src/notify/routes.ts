import { createRoute, z } from "@hono/zod-openapi";
import { authenticate } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { bearerAuth, errorResponses, jsonBody, jsonContent, newRouter } from "../lib/openapi";
import { rateLimit } from "../lib/rate-limit";
import { pushConfig } from "./config";
import { DeviceIdParam, DeviceRegistrationSchema, DeviceSchema, MAX_DEVICES_PER_USER } from "./devices";
import { IdSchema, idParam } from "../lib/ids";
import { chooseAuthor, listChosenAuthors, MAX_NOTIFY_AUTHORS, unchooseAuthor } from "./authors";
import { broadcastWanted, PreferencesSchema, savePreferences, userPreferences } from "./preferences";
import { syncBroadcastTopicLater } from "./topic";
import { registerUserDevice, removeUserDevice, userDevices } from "./user-devices";

const DeviceListSchema = z.object({ items: z.array(DeviceSchema).openapi({ description: `Newest registration first, at most ${MAX_DEVICES_PER_USER}` }) }).openapi("DeviceList");
const RegisteredSchema = z
  .object({
    device: DeviceSchema,
    moved: z.boolean().openapi({ description: "true when this endpoint/token was registered by another user, whose device it no longer is" }),
    evicted: z.array(z.string()).openapi({ description: `Device ids of this user dropped to stay within ${MAX_DEVICES_PER_USER} (the oldest registrations)`, example: [] }),
  })
  .openapi("DeviceRegistered");
const DeviceParams = z.object({ deviceId: DeviceIdParam });

const AuthorChoiceSchema = z
  .object({ authorId: IdSchema, chosenAt: z.string().datetime().openapi({ example: "2026-05-01T20:00:00.000Z" }) })
  .openapi("NotificationAuthor");
const AuthorChoiceListSchema = z
  .object({ items: z.array(AuthorChoiceSchema).openapi({ description: `Newest choice first, at most ${MAX_NOTIFY_AUTHORS}; only authors the caller still follows` }) })
  .openapi("NotificationAuthorList");
const AuthorChoiceChangeSchema = z
  .object({
    authorId: IdSchema,
    chosen: z.boolean().openapi({ description: "Whether the author's posts notify the caller after this call" }),
    changed: z.boolean().openapi({ description: "Whether this call changed it" }),
  })
  .openapi("NotificationAuthorChange");
const AuthorParams = z.object({ authorId: idParam("authorId") });

/** PUT (choose) or DELETE (unchoose) one author; both idempotent. */
const authorChoiceRoute = (method: "put" | "delete") =>
  createRoute({
    method,
    path: "/v1/me/notification-authors/{authorId}",
    tags: ["Notifications"],
    summary: method === "put" ? "Be notified of a followed author's posts (idempotent)" : "Stop being notified of an author's posts (idempotent)",
    description:
      method === "put"
        ? `Each post of the author then pushes to the caller's devices (kind \`author\`), as preferences, quiet hours and open apps allow. Only an author the caller follows (409 naming \`authorId\` otherwise), at most ${MAX_NOTIFY_AUTHORS} (409 past it: remove one first). Unfollowing the author removes the choice.`
        : "`changed: false` when the author was not chosen.",
    security: bearerAuth,
    middleware: [authenticate(), rateLimit()] as const,
    request: { params: AuthorParams },
    responses: {
      200: jsonContent(AuthorChoiceChangeSchema, "The choice after the call"),
      ...(method === "put" ? errorResponses("bad_request", "unauthorized", "conflict", "rate_limited", "unavailable") : errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable")),
    },
  });

export const notifyRoutes = newRouter()
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/me/devices/{deviceId}",
      tags: ["Notifications"],
      summary: "Register (or re-register) one of the caller's devices for push notifications",
      description: [
        "`deviceId` is the app's own name for the install. One device per endpoint/token: registering one already registered (by this user under another id, or by another user) moves it here.",
        `A user has at most ${MAX_DEVICES_PER_USER} devices; past that the oldest registration is dropped (listed in \`evicted\`).`,
        "A kind the deployment has no credentials for is refused (`\"fcm is not configured on this deployment\"`).",
      ].join(" "),
      security: bearerAuth,
      middleware: [authenticate(), rateLimit()] as const,
      request: { params: DeviceParams, ...jsonBody(DeviceRegistrationSchema) },
      responses: {
        200: jsonContent(RegisteredSchema, "Registered"),
        ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable"),
      },
    }),
    async (c) => {
      const { deviceId } = c.req.valid("param");
      const result = await registerUserDevice(c.var.services, c.var.caller.userId, deviceId, c.req.valid("json"));
      return c.json({ device: result.device, moved: result.previousUserId !== undefined, evicted: result.evicted }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/devices",
      tags: ["Notifications"],
      summary: "The caller's registered devices",
      security: bearerAuth,
      middleware: [authenticate()] as const,
      responses: { 200: jsonContent(DeviceListSchema, "The caller's devices"), ...errorResponses("unauthorized", "unavailable") },
    }),
    async (c) => c.json({ items: await userDevices(c.var.services, c.var.caller.userId) }, 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/me/devices/{deviceId}",
      tags: ["Notifications"],
      summary: "Unregister one of the caller's devices (idempotent)",
      security: bearerAuth,
      middleware: [authenticate(), rateLimit()] as const,
      request: { params: DeviceParams },
      responses: {
        200: jsonContent(z.object({ deviceId: z.string(), deleted: z.boolean().openapi({ description: "false when the caller had no device by that id" }) }).openapi("DeviceDeleted"), "Done"),
        ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable"),
      },
    }),
    async (c) => {
      const { deviceId } = c.req.valid("param");
      return c.json({ deviceId, deleted: await removeUserDevice(c.var.services, c.var.caller.userId, deviceId) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/devices/webpush-key",
      tags: ["Notifications"],
      summary: "The deployment's VAPID public key: the applicationServerKey a page subscribes with",
      responses: {
        200: jsonContent(z.object({ publicKey: z.string().openapi({ description: "base64url, 65-byte uncompressed P-256 point", example: "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8" }) }).openapi("WebPushKey"), "The key"),
        ...errorResponses("not_found"),
      },
    }),
    (c) => {
      const webpush = pushConfig(c.env).webpush;
      if (!webpush) throw new ApiError("not_found", "webpush is not configured on this deployment");
      return c.json({ publicKey: webpush.publicKey }, 200, { "Cache-Control": "public, max-age=3600" });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/notification-preferences",
      tags: ["Notifications"],
      summary: "The caller's push preferences (the defaults until changed)",
      security: bearerAuth,
      middleware: [authenticate()] as const,
      responses: { 200: jsonContent(PreferencesSchema, "The preferences"), ...errorResponses("unauthorized", "unavailable") },
    }),
    async (c) => c.json(await userPreferences(c.var.services, c.var.caller.userId), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/me/notification-preferences",
      tags: ["Notifications"],
      summary: "Replace the caller's push preferences",
      description:
        "Checked before any push is queued: kinds and notification types on or off, who may reach the caller by a direct message or a mention, and quiet hours (held pushes are sent when they end). Fields left out take their defaults.",
      security: bearerAuth,
      middleware: [authenticate(), rateLimit()] as const,
      request: jsonBody(PreferencesSchema),
      responses: { 200: jsonContent(PreferencesSchema, "Stored"), ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable") },
    }),
    async (c) => {
      const { services, caller } = c.var;
      const { saved, previous } = await savePreferences(services, caller.userId, c.req.valid("json"));
      // Broadcasts turned on or off: the user's FCM devices join or leave the broadcast topic (one
      // call per device). Any other change leaves the topic alone.
      if (broadcastWanted(saved) !== broadcastWanted(previous)) {
        syncBroadcastTopicLater(services, caller.userId, async (later) => (await userDevices(later, caller.userId)).flatMap((d) => (d.kind === "fcm" ? [d.token] : [])));
      }
      return c.json(saved, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/notification-authors",
      tags: ["Notifications"],
      summary: "The followed authors whose posts notify the caller",
      security: bearerAuth,
      middleware: [authenticate()] as const,
      responses: { 200: jsonContent(AuthorChoiceListSchema, "The chosen authors"), ...errorResponses("unauthorized", "unavailable") },
    }),
    async (c) => c.json({ items: await listChosenAuthors(c.var.services.db, c.var.caller.userId) }, 200),
  )
  .openapi(authorChoiceRoute("put"), async (c) => c.json(await chooseAuthor(c.var.services.db, c.var.caller.userId, c.req.valid("param").authorId), 200))
  .openapi(authorChoiceRoute("delete"), async (c) => c.json(await unchooseAuthor(c.var.services.db, c.var.caller.userId, c.req.valid("param").authorId), 200));
