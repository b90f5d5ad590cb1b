import { createRoute, z } from "@hono/zod-openapi";
import { authenticate } from "../lib/auth";
import { IdSchema, idParam } from "../lib/ids";
import { bearerAuth, errorResponses, jsonBody, jsonContent, newRouter } from "../lib/openapi";
import { CursorQuery, LimitQuery, pageSchema } from "../lib/pagination";
import { rateLimit } from "../lib/rate-limit";
import { MAX_TERM_LENGTH, MAX_TERMS } from "./keys";
import { actOnReport, createReport, listReports, MAX_COMMENT_LENGTH, MAX_POSTS_PER_CALL, REPORT_ACTIONS, REPORT_RESOLUTIONS } from "./reports";
import { REPORT_CATEGORIES } from "./schema";
import { liftSuspension, suspendUser } from "./suspension";
import { getTerms, putTerms } from "./terms";

const NewReportSchema = z
  .object({
    userId: IdSchema.describe("The user reported"),
    postIds: z.array(IdSchema).max(MAX_POSTS_PER_CALL).default([]).describe(`Up to ${MAX_POSTS_PER_CALL} of that user's posts`),
    category: z.enum(REPORT_CATEGORIES),
    comment: z.string().max(MAX_COMMENT_LENGTH).default(""),
  })
  .openapi("NewReport");
const ReportReceiptSchema = z
  .object({
    id: IdSchema,
    userId: IdSchema,
    category: z.enum(REPORT_CATEGORIES).describe("The open report's category (its first report's)"),
    postIds: z.array(IdSchema).describe("Every post the open report names so far"),
    status: z.literal("open"),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi("ReportReceipt");
const ReportSchema = z
  .object({
    id: IdSchema,
    status: z.enum(["open", "resolved"]),
    reporterId: IdSchema.nullable().describe("null: an automatic report (a post the term filter held), or a reporter whose account was deleted (`reporterErased`)"),
    reporterErased: z.boolean().describe("The reporter deleted their account: the report stays, without them"),
    userId: IdSchema.describe("The user reported"),
    category: z.enum(REPORT_CATEGORIES),
    comment: z.string(),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
    ageSeconds: z.number().int().describe("Since the report was opened"),
    resolvedAt: z.string().datetime().nullable(),
    resolution: z.enum(REPORT_RESOLUTIONS).nullable().describe("The action that resolved it, or `account-deleted`: the reported user deleted their account while it was open"),
    posts: z.array(
      z.object({
        postId: IdSchema,
        text: z.string().describe("The text as it was when reported (empty once the author deleted their account, unless the report was resolved by `remove-posts` or `suspend`)"),
        reportedAt: z.string().datetime(),
        state: z.enum(["live", "held", "deleted"]).describe("The post now: shown, held by the term filter, or deleted"),
      }),
    ),
    actions: z.array(z.object({ action: z.enum(REPORT_ACTIONS), actorId: IdSchema.nullable().describe("null: the operator's account was deleted"), note: z.string(), at: z.string().datetime() })).describe("Every operator action, oldest first"),
  })
  .openapi("Report");
const SuspensionSchema = z
  .object({
    userId: IdSchema,
    suspended: z.boolean(),
    reason: z.string().nullable(),
    suspendedAt: z.string().datetime().nullable(),
    changed: z.boolean().describe("Whether this call changed anything"),
  })
  .openapi("Suspension");
const TermsSchema = z
  .object({ terms: z.array(z.string()), version: z.number().int().describe("Grows with every PUT; 0 before the first"), updatedAt: z.string().datetime().nullable() })
  .openapi("ModerationTerms");

const admin = { security: bearerAuth, middleware: [authenticate({ roles: ["admin"] })] };
const userIdParam = { params: z.object({ id: idParam("id") }) };

export const moderationRoutes = newRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/reports",
      tags: ["Safety"],
      summary: "Report a user and some of their posts to the operators",
      description: `Rate-limited per reporter (10 a minute). A second report of the same user by the same reporter while the first is open adds its posts and comment to it: \`200\` with the same id (\`201\` for a new report). The posts' text is kept as it is now.`,
      security: bearerAuth,
      middleware: [authenticate(), rateLimit("REPORT_LIMITER")] as const,
      request: jsonBody(NewReportSchema),
      responses: {
        201: jsonContent(ReportReceiptSchema, "A new report"),
        200: jsonContent(ReportReceiptSchema, "Added to the caller's open report of this user"),
        ...errorResponses("bad_request", "unauthorized", "conflict", "rate_limited", "unavailable"),
      },
    }),
    async (c) => {
      const { report, created } = await createReport(c.var.services, c.var.caller.userId, c.req.valid("json"));
      return created ? c.json(report, 201) : c.json(report, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/reports",
      tags: ["Admin"],
      summary: "The report queue: open reports oldest first (resolved: newest first), with their age and the posts' text as reported",
      ...admin,
      request: { query: z.object({ status: z.enum(["open", "resolved"]).default("open"), limit: LimitQuery, cursor: CursorQuery }) },
      responses: { 200: jsonContent(pageSchema(ReportSchema, "ReportsPage"), "One page"), ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable") },
    }),
    async (c) => c.json(await listReports(c.var.services, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/admin/reports/{id}/actions",
      tags: ["Admin"],
      summary: "Act on an open report: dismiss, remove-posts, suspend or approve (held posts); recorded and the report resolved",
      ...admin,
      request: {
        params: z.object({ id: idParam("id") }),
        ...jsonBody(z.object({ action: z.enum(REPORT_ACTIONS), note: z.string().max(MAX_COMMENT_LENGTH).default("") }).openapi("ReportAction")),
      },
      responses: {
        200: jsonContent(ReportSchema, "The report after the action"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "not_found", "conflict", "unavailable"),
      },
    }),
    async (c) => c.json(await actOnReport(c.var.services, c.var.caller, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/admin/users/{id}/suspension",
      tags: ["Admin"],
      summary: "Suspend a user (idempotent): their requests answer 403 `suspended`, their posts are hidden everywhere, nothing they cause is pushed",
      ...admin,
      request: { ...userIdParam, ...jsonBody(z.object({ reason: z.string().trim().min(1).max(MAX_COMMENT_LENGTH) }).openapi("NewSuspension")) },
      responses: { 200: jsonContent(SuspensionSchema, "The suspension"), ...errorResponses("bad_request", "unauthorized", "forbidden", "conflict", "unavailable") },
    }),
    async (c) => c.json(await suspendUser(c.var.services, c.var.caller.userId, c.req.valid("param").id, c.req.valid("json").reason), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/admin/users/{id}/suspension",
      tags: ["Admin"],
      summary: "Lift a suspension (idempotent): everything the user posted shows again",
      ...admin,
      request: userIdParam,
      responses: { 200: jsonContent(SuspensionSchema, "No suspension after the call"), ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable") },
    }),
    async (c) => c.json(await liftSuspension(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/admin/moderation/terms",
      tags: ["Admin"],
      summary: `Replace the term filter's list (up to ${MAX_TERMS} terms): a new post containing one is held for an operator`,
      description: "Matched case-insensitively after NFKC normalisation, anywhere in the text (so in text without spaces too). Every isolate applies a new list within seconds.",
      ...admin,
      request: jsonBody(z.object({ terms: z.array(z.string().trim().min(1).max(MAX_TERM_LENGTH)).max(MAX_TERMS) }).openapi("NewModerationTerms")),
      responses: { 200: jsonContent(TermsSchema, "The list now"), ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable") },
    }),
    async (c) => c.json(await putTerms(c.var.services, c.var.caller.userId, c.req.valid("json").terms), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/admin/moderation/terms",
      tags: ["Admin"],
      summary: "The term filter's list",
      ...admin,
      responses: { 200: jsonContent(TermsSchema, "The list"), ...errorResponses("unauthorized", "forbidden", "unavailable") },
    }),
    async (c) => c.json(await getTerms(c.var.services), 200),
  );
