import { createRoute, z } from "@hono/zod-openapi";
import { authenticate } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { IdSchema, idParam } from "../lib/ids";
import { bearerAuth, errorResponses, jsonBody, jsonContent, newRouter } from "../lib/openapi";
import { createServices } from "../lib/services";
import { startAccountDeletion } from "./deletion";
import type { Eraser } from "../lib/erasers";
import { claimExport, exportRecords, exportStream } from "./export";
import { loadDeletion, recentDeletions, type DeletionRow } from "./store";

const DeletionStartedSchema = z.object({ deletionId: IdSchema, status: z.literal("running") }).openapi("DeletionStarted");
const DeletionSchema = z
  .object({
    deletionId: IdSchema,
    userId: IdSchema,
    status: z.enum(["running", "finished"]),
    askedAt: z.string().datetime(),
    finishedAt: z.string().datetime().nullable(),
    progress: z.array(z.object({ capability: z.string(), removed: z.number().int(), done: z.boolean() })),
  })
  .openapi("Deletion");
const DeletionListSchema = z.object({ items: z.array(DeletionSchema) }).openapi("DeletionList");
/** The console's list: at most this many deletions a page. */
export const MAX_DELETIONS_LISTED = 50;
const ConfirmSchema = z
  .object({ confirm: z.string().openapi({ description: "The caller's own user id: a stray call cannot delete an account", example: "42" }) })
  .openapi("DeletionConfirm");

const started = { 202: jsonContent(DeletionStartedSchema, "The deletion runs (the same one for a repeated request); the user's token gets 409 account_deleting until it finishes") };

/** The accounts routes; `erasers` is the registry (src/app.ts), whose names the progress lists. */
export function accountsRoutes(erasers: readonly Eraser[]) {
  const answer = (row: DeletionRow) => ({
    deletionId: row.id,
    userId: row.userId,
    status: row.status,
    askedAt: row.askedAt,
    finishedAt: row.finishedAt,
    progress: erasers.map((e) => ({ capability: e.name, removed: Number(row.progress[e.name]?.removed ?? 0), done: row.progress[e.name]?.done ?? false })),
  });
  return newRouter()
    .openapi(
      createRoute({
        method: "delete",
        path: "/v1/me",
        tags: ["Accounts"],
        summary: "Delete the caller's account and everything it holds",
        description: "Body `{\"confirm\": \"<your user id>\"}`. Answers at once; the deletion runs in the background (GET /v1/admin/deletions/{id}).",
        security: bearerAuth,
        middleware: [authenticate({ roles: ["user"] })] as const,
        request: jsonBody(ConfirmSchema),
        responses: { ...started, ...errorResponses("bad_request", "unauthorized", "forbidden", "account_deleting", "unavailable") },
      }),
      async (c) => {
        const { userId } = c.var.caller;
        if (c.req.valid("json").confirm !== userId) {
          throw new ApiError("bad_request", "confirm must be your own user id", [{ field: "confirm", message: "must equal the caller's user id" }]);
        }
        return c.json(await startAccountDeletion(c.var.services, erasers, userId), 202);
      },
    )
    .openapi(
      createRoute({
        method: "delete",
        path: "/v1/users/{id}",
        tags: ["Accounts"],
        summary: "Delete a user's account (a service or an admin)",
        security: bearerAuth,
        middleware: [authenticate({ roles: ["service", "admin"] })] as const,
        request: { params: z.object({ id: idParam("id") }) },
        responses: { ...started, ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable") },
      }),
      async (c) => c.json(await startAccountDeletion(c.var.services, erasers, c.req.valid("param").id), 202),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/v1/admin/deletions/{id}",
        tags: ["Accounts"],
        summary: "A deletion's progress: what each capability removed so far, and its end",
        security: bearerAuth,
        middleware: [authenticate({ roles: ["admin"] })] as const,
        request: { params: z.object({ id: idParam("id") }) },
        responses: { 200: jsonContent(DeletionSchema, "The deletion"), ...errorResponses("bad_request", "unauthorized", "forbidden", "not_found", "unavailable") },
      }),
      async (c) => {
        const row = await loadDeletion(c.var.services.db, c.req.valid("param").id);
        if (!row) throw new ApiError("not_found", `Deletion ${c.req.valid("param").id} not found`);
        return c.json(answer(row), 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/v1/admin/deletions",
        tags: ["Accounts"],
        summary: "Running deletions (newest first), then the most recent finished ones, with their progress",
        security: bearerAuth,
        middleware: [authenticate({ roles: ["admin"] })] as const,
        request: { query: z.object({ limit: z.coerce.number().int().min(1).max(MAX_DELETIONS_LISTED).default(20).openapi({ description: `1–${MAX_DELETIONS_LISTED}, default 20` }) }) },
        responses: { 200: jsonContent(DeletionListSchema, "The deletions"), ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable") },
      }),
      async (c) => c.json({ items: (await recentDeletions(c.var.services.db, c.req.valid("query").limit)).map(answer) }, 200),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/v1/me/export",
        tags: ["Accounts"],
        summary: "The caller's data as NDJSON, one record a line (once an hour)",
        description:
          "Records `{\"type\": …}`: account, post (with counts), following, followers (the count), like, favorite, device (kind and registration time only), preferences, chosen_author, block, mute (in force), report (made), unread. Streamed; at most one export per user per hour (429 with Retry-After).",
        security: bearerAuth,
        middleware: [authenticate({ roles: ["user"] })] as const,
        responses: {
          200: { description: "One JSON record a line", content: { "application/x-ndjson": { schema: z.string() } } },
          ...errorResponses("unauthorized", "forbidden", "account_deleting", "rate_limited", "unavailable"),
        },
      }),
      async (c) => {
        const { userId } = c.var.caller;
        await claimExport(c.var.services, userId);
        // Services of its own: the request's Postgres pool closes as the response leaves, before the body is read.
        const { services, close } = createServices(c.env, c.executionCtx, c.var.services.events);
        const body = exportStream(exportRecords(services, userId), close);
        // A stream, not a typed JSON answer: the OpenAPI handler type has no shape for it.
        return new Response(body, { status: 200, headers: { "Content-Type": "application/x-ndjson; charset=utf-8", "Cache-Control": "no-store" } }) as never;
      },
    );
}
