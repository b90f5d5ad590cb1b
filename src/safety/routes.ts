import { createRoute, z } from "@hono/zod-openapi";
import { authenticate } from "../lib/auth";
import { IdSchema, idParam } from "../lib/ids";
import { bearerAuth, errorResponses, jsonContent, newRouter } from "../lib/openapi";
import { PaginationQuery, pageSchema } from "../lib/pagination";
import { rateLimit } from "../lib/rate-limit";
import { block, listUserBlocks, unblock } from "./blocks";
import { listUserMutes, MAX_MUTE_SECONDS, MIN_MUTE_SECONDS, mute, unmute } from "./mutes";

const BlockSchema = z.object({ userId: IdSchema, createdAt: z.string().datetime() }).openapi("Block");
const MuteSchema = z
  .object({
    userId: IdSchema,
    notifications: z.boolean().describe("The mute silences the user's notifications and DMs too"),
    expiresAt: z.string().datetime().nullable().describe("When the mute ends by itself; null: until unmuted"),
    createdAt: z.string().datetime(),
  })
  .openapi("Mute");
const Changed = z.boolean().describe("Whether this call changed anything");
const NewMuteSchema = z
  .object({
    notifications: z.boolean().default(true).describe("Also silence their notifications and DMs (counted and pushed nothing)"),
    durationSeconds: z.number().int().min(MIN_MUTE_SECONDS).max(MAX_MUTE_SECONDS).optional().describe("End the mute by itself after this long; without it the mute lasts until unmuted"),
  })
  .openapi("NewMute");

const me = { security: bearerAuth, middleware: [authenticate()] };
const meWrite = { security: bearerAuth, middleware: [authenticate(), rateLimit()] };
const target = { params: z.object({ userId: idParam("userId") }) };

export const safetyRoutes = newRouter()
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/me/blocks/{userId}",
      tags: ["Safety"],
      summary: "Block a user (idempotent): both follows end, and nothing of theirs reaches you",
      description:
        "Ends the caller's follow of the user and the user's follow of the caller, as two unfollows would. From then on the user's follows of the caller, likes and favourites of the caller's posts and DMs to the caller are refused with 403 `blocked`, and notifications they cause for the caller are accepted but neither counted nor pushed. Unblocking restores nothing.",
      ...meWrite,
      request: target,
      responses: {
        200: jsonContent(BlockSchema.extend({ changed: Changed }).openapi("BlockChange"), "The block (its first `createdAt` when it already existed)"),
        ...errorResponses("bad_request", "unauthorized", "conflict", "rate_limited", "unavailable"),
      },
    }),
    async (c) => c.json(await block(c.var.services, c.var.caller.userId, c.req.valid("param").userId), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/me/blocks/{userId}",
      tags: ["Safety"],
      summary: "Unblock a user (idempotent); no follow comes back",
      ...meWrite,
      request: target,
      responses: {
        200: jsonContent(z.object({ userId: IdSchema, blocked: z.literal(false), changed: Changed }).openapi("Unblock"), "No block after the call"),
        ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable"),
      },
    }),
    async (c) => c.json(await unblock(c.var.services, c.var.caller.userId, c.req.valid("param").userId), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/blocks",
      tags: ["Safety"],
      summary: "Users the caller blocked, newest first",
      ...me,
      request: { query: PaginationQuery },
      responses: { 200: jsonContent(pageSchema(BlockSchema, "BlocksPage"), "One page"), ...errorResponses("bad_request", "unauthorized", "unavailable") },
    }),
    async (c) => c.json(await listUserBlocks(c.var.services, c.var.caller.userId, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/me/mutes/{userId}",
      tags: ["Safety"],
      summary: "Mute a user, optionally their notifications and for a while (PUT: sets the mute as sent)",
      description:
        "The user stays followed. With `notifications` (default true) their notifications and DMs to the caller are accepted but neither counted nor pushed (`applied: false, suppressed: \"muted\"`). With `durationSeconds` the mute ends by itself; what they posted meanwhile does not come back.",
      ...meWrite,
      request: { ...target, body: { content: { "application/json": { schema: NewMuteSchema } }, required: false } },
      responses: {
        200: jsonContent(MuteSchema.extend({ changed: Changed }).openapi("MuteChange"), "The mute after the call"),
        ...errorResponses("bad_request", "unauthorized", "conflict", "rate_limited", "unavailable"),
      },
    }),
    async (c) => {
      // Without a body the validator hands back nothing (or {}), its defaults unapplied: apply them here.
      const body: { notifications?: boolean; durationSeconds?: number } = c.req.valid("json") ?? {};
      const input = { notifications: body.notifications ?? true, ...(body.durationSeconds === undefined ? {} : { durationSeconds: body.durationSeconds }) };
      return c.json(await mute(c.var.services, c.var.caller.userId, c.req.valid("param").userId, input), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/me/mutes/{userId}",
      tags: ["Safety"],
      summary: "Unmute a user (idempotent)",
      ...meWrite,
      request: target,
      responses: {
        200: jsonContent(z.object({ userId: IdSchema, muted: z.literal(false), changed: Changed }).openapi("Unmute"), "No mute after the call"),
        ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable"),
      },
    }),
    async (c) => c.json(await unmute(c.var.services, c.var.caller.userId, c.req.valid("param").userId), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/me/mutes",
      tags: ["Safety"],
      summary: "Users the caller mutes (mutes in force), newest first",
      ...me,
      request: { query: PaginationQuery },
      responses: { 200: jsonContent(pageSchema(MuteSchema, "MutesPage"), "One page"), ...errorResponses("bad_request", "unauthorized", "unavailable") },
    }),
    async (c) => c.json(await listUserMutes(c.var.services, c.var.caller.userId, c.req.valid("query")), 200),
  );
