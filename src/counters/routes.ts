import { createRoute, z } from "@hono/zod-openapi";
import { IdempotencyKeyHeaders } from "../lib/idempotency";
import { benchOnly } from "../lib/bench-only";
import { authenticate } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { IdSchema, idListQuery, idParam } from "../lib/ids";
import { bearerAuth, errorResponses, jsonContent, newRouter } from "../lib/openapi";
import { rateLimit } from "../lib/rate-limit";
import { incrementCounters, readCounters, validateDeltas } from "./counters";
import { addReaction, type Reaction, recordView, removeReaction } from "./reactions";
import { reconcileCounters, reconcileIds } from "./reconcile";
import { COUNTER_ENTITIES, COUNTER_REGISTRY, MAX_ABS_DELTA } from "./registry";
import { queryRows } from "./store";

/** At most this many ids per read: one script call and one batched query stay small. */
export const MAX_READ_IDS = 100;

const EntityParam = z.enum(COUNTER_ENTITIES).openapi({ param: { name: "entity", in: "path" }, example: "post" });
const CountersSchema = z
  .object({
    entity: z.enum(COUNTER_ENTITIES),
    stale: z.boolean().openapi({ description: "true when Redis was unreachable: Postgres values, missing the last minute of increments" }),
    items: z.array(z.object({ id: IdSchema, counts: z.record(z.string(), z.number().int().min(0)) })),
  })
  .openapi("Counters");
const DeltasSchema = z
  .object({
    deltas: z.record(z.string(), z.number()).openapi({
      example: { comments: 1, coins: -5 },
      description: `Field → integer delta (|delta| ≤ ${MAX_ABS_DELTA}); fields per entity: ${Object.entries(COUNTER_REGISTRY)
        .map(([e, f]) => `${e}: ${f.join(", ")}`)
        .join("; ")}`,
    }),
  })
  .openapi("CounterDeltas");
const IncrementSchema = z
  .object({ entity: z.enum(COUNTER_ENTITIES), id: IdSchema, deltas: z.record(z.string(), z.number().int()) })
  .openapi("CounterIncrement");
const ReactionSchema = z
  .object({ postId: IdSchema, userId: IdSchema, liked: z.boolean().optional(), favorited: z.boolean().optional(), changed: z.boolean() })
  .openapi("ReactionChange");
const DriftSchema = z.object({ entity: z.enum(COUNTER_ENTITIES), id: IdSchema, field: z.string(), counted: z.number(), expected: z.number() });
const ReconcileSchema = z
  .object({
    scanned: z.number().int(),
    drifted: z.number().int(),
    drift: z.array(DriftSchema).openapi({ description: "The first 100 drifted counters" }),
    next: z.object({ entity: z.enum(COUNTER_ENTITIES), after: IdSchema }).nullable(),
  })
  .openapi("ReconcileReport");

const reactionRoute = (method: "put" | "delete", kind: Reaction) =>
  createRoute({
    method,
    path: kind === "like" ? "/v1/posts/{id}/likes/me" : "/v1/posts/{id}/favorites/me",
    tags: ["Counters"],
    summary: `${method === "put" ? "Add" : "Remove"} the caller's ${kind === "like" ? "like" : "favourite"} of a post (idempotent)`,
    security: bearerAuth,
    middleware: [authenticate(), rateLimit()] as const,
    request: { params: z.object({ id: idParam("id") }) },
    responses: {
      200: jsonContent(ReactionSchema, "The relation after the call; `changed` says whether this call changed it (and the counter)"),
      ...errorResponses("bad_request", "unauthorized", "not_found", "rate_limited", "unavailable"),
    },
  });

export const countersRoutes = newRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/counters/{entity}",
      tags: ["Counters"],
      summary: "Every counter of up to 100 entities (zeros for unknown ids; never negative)",
      request: { params: z.object({ entity: EntityParam }), query: z.object({ ids: idListQuery(MAX_READ_IDS) }) },
      responses: { 200: jsonContent(CountersSchema, "Counts in the order of `ids`"), ...errorResponses("bad_request", "unavailable") },
    }),
    async (c) => {
      const { entity } = c.req.valid("param");
      const { ids } = c.req.valid("query");
      const read = await readCounters(c.var.services, entity, ids);
      const items = ids.map((id) => ({
        id,
        // The stored truth may dip below zero (an unfollow flushed before its follow was repaired); clients never see it.
        counts: Object.fromEntries(read.fields.map((f, i) => [f, Math.max(0, read.values.get(id)?.[i] ?? 0)])),
      }));
      return c.json({ entity, stale: read.stale, items }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/counters/{entity}/{id}",
      tags: ["Counters"],
      summary: "Add deltas to counters of one entity (role service); Idempotency-Key makes retries apply once",
      security: bearerAuth,
      middleware: [authenticate({ roles: ["service"] }), rateLimit()] as const,
      request: {
        params: z.object({ entity: EntityParam, id: idParam("id") }),
        headers: IdempotencyKeyHeaders,
        body: { content: { "application/json": { schema: DeltasSchema } }, required: true },
      },
      responses: {
        200: jsonContent(IncrementSchema, "Applied (or, with header Idempotent-Replayed: true, the first answer for this key)"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "conflict", "rate_limited", "unavailable"),
      },
    }),
    async (c) => {
      const { entity, id } = c.req.valid("param");
      const key = c.req.valid("header")["idempotency-key"];
      const deltas = validateDeltas(entity, id, c.req.valid("json").deltas);
      const answer = { entity, id, deltas: Object.fromEntries(deltas.map((d) => [d.field, d.delta])) };
      const fingerprint = `${entity}:${id}:${JSON.stringify(Object.entries(answer.deltas).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
      const claim = key ? { callerId: c.var.caller.userId, key, fingerprint, answer: JSON.stringify(answer) } : undefined;
      const outcome = await incrementCounters(c.var.services, deltas, claim);
      if (!outcome.applied) return c.json(JSON.parse(outcome.replayed) as typeof answer, 200, { "Idempotent-Replayed": "true" });
      return c.json(answer, 200);
    },
  )
  .openapi(reactionRoute("put", "like"), async (c) =>
    c.json(await addReaction(c.var.services, "like", c.var.caller.userId, c.req.valid("param").id), 200),
  )
  .openapi(reactionRoute("delete", "like"), async (c) =>
    c.json(await removeReaction(c.var.services, "like", c.var.caller.userId, c.req.valid("param").id), 200),
  )
  .openapi(reactionRoute("put", "favorite"), async (c) =>
    c.json(await addReaction(c.var.services, "favorite", c.var.caller.userId, c.req.valid("param").id), 200),
  )
  .openapi(reactionRoute("delete", "favorite"), async (c) =>
    c.json(await removeReaction(c.var.services, "favorite", c.var.caller.userId, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/posts/{id}/views",
      tags: ["Counters"],
      summary: "Count a view of a post (limited per user by VIEW_LIMITER)",
      security: bearerAuth,
      middleware: [authenticate(), rateLimit("VIEW_LIMITER")] as const,
      request: { params: z.object({ id: idParam("id") }) },
      responses: {
        202: jsonContent(z.object({ postId: IdSchema, counted: z.literal(true) }).openapi("ViewCounted"), "Counted"),
        ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable"),
      },
    }),
    async (c) => c.json(await recordView(c.var.services, c.req.valid("param").id), 202),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/admin/counters/reconcile",
      tags: ["Counters"],
      summary: "Recompute relation-derived counters (followers, following, posts, likes, favorites) and repair drift (role admin)",
      security: bearerAuth,
      middleware: [authenticate({ roles: ["admin"] })] as const,
      request: {
        query: z.object({
          entity: z.enum(COUNTER_ENTITIES).optional().openapi({ param: { name: "entity", in: "query" }, description: "Continue from a previous report's next.entity" }),
          after: IdSchema.optional().openapi({ param: { name: "after", in: "query" }, description: "Continue after this id (next.after)" }),
          ids: idListQuery(MAX_READ_IDS)
            .optional()
            .openapi({ param: { name: "ids", in: "query" }, description: "Reconcile only these ids of `entity` (at most 100)" }),
        }),
      },
      responses: {
        200: jsonContent(ReconcileSchema, "What drifted and was repaired; `next` is where to continue if the time budget ran out"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "unavailable"),
      },
    }),
    async (c) => {
      const { entity, after, ids } = c.req.valid("query");
      if (ids) {
        if (!entity) throw new ApiError("bad_request", "Invalid entity", [{ field: "entity", message: "is required with ids" }]);
        return c.json(await reconcileIds(c.var.services, entity, ids), 200);
      }
      return c.json(await reconcileCounters(c.var.services, entity ? { start: { entity, after: after ?? "0" } } : {}), 200);
    },
  );

/**
 * Benchmark baseline (see benchOnly): the naive design, one Postgres UPDATE per increment.
 */
countersRoutes.post("/v1/bench/naive/counters/:entity/:id/:field", benchOnly, authenticate({ roles: ["service"] }), async (c) => {
  const { entity, id, field } = c.req.param();
  const [row] = await queryRows<{ value: string }>(
    c.var.services.db,
    "UPDATE counters SET value = value + 1 WHERE entity = $1 AND entity_id = $2 AND field = $3 RETURNING value::text AS value",
    [entity, id, field],
  );
  return c.json({ value: Number(row?.value ?? 0) }, 200);
});
