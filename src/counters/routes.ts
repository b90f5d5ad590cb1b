import { createRoute, z } from "@hono/zod-openapi";
import { IdempotencyKeyHeaders } from "../lib/idempotency";
import { authenticate } from "../lib/auth";
import { ApiError } from "../lib/errors";
import { IdSchema, idListQuery, idParam } from "../lib/ids";
import { bearerAuth, errorResponses, jsonContent, newRouter } from "../lib/openapi";
import { rateLimit } from "../lib/rate-limit";
import { shownCounts, validateDeltas } from "./counters";
import { edgeCacheBoundMs, incrementWithCounts, readCountersAtEdge } from "./edge-cache";
import { addReaction, type Reaction, recordView, removeReaction } from "./reactions";
import { reconcileCounters, reconcileIds } from "./reconcile";
import { COUNTER_ENTITIES, COUNTER_REGISTRY, fieldsOf, MAX_ABS_DELTA } from "./registry";

/** At most this many ids per read: one script call and one batched query stay small. */
export const MAX_READ_IDS = 100;

const EntityParam = z.enum(COUNTER_ENTITIES).openapi({ param: { name: "entity", in: "path" }, example: "post" });
const CountersSchema = z
  .object({
    entity: z.enum(COUNTER_ENTITIES).openapi({ example: "post" }),
    stale: z.boolean().openapi({ description: "true when Redis was unreachable: Postgres values, missing the last minute of increments" }),
    items: z.array(z.object({ id: IdSchema, counts: z.record(z.string(), z.number().int().min(0)).openapi({ example: { views: 120, comments: 4, likes: 17, favorites: 2, forwards: 1 } }) })),
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
const CountsAfterWrite = z
  .record(z.string(), z.number().int().min(0))
  .optional()
  .openapi({
    description:
      "Every counter of the entity after this call, from Redis (never from the edge copy), so the caller sees its own write. Absent only when they could not be read; the write itself succeeded.",
  });
const IncrementSchema = z
  .object({
    entity: z.enum(COUNTER_ENTITIES),
    id: IdSchema,
    deltas: z.record(z.string(), z.number().int()),
    counts: CountsAfterWrite.openapi({
      description:
        "Every counter of the entity after this call (also on a replay: as it is now), returned by the increment itself (no extra command or round trip). Absent when the entity is not cached in Redis (not read for 12 h) or Redis was down: its next read includes this write.",
    }),
  })
  .openapi("CounterIncrement");
const ReactionSchema = z
  .object({
    postId: IdSchema,
    userId: IdSchema,
    liked: z.boolean().optional(),
    favorited: z.boolean().optional(),
    changed: z.boolean(),
    counts: CountsAfterWrite.openapi({ description: "Every counter of the post after this call, from Redis (not the edge copy): reported by the increment the change ran, or read afterwards when nothing changed or the post was not cached in Redis (that read warms it)" }),
  })
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

const FreshQuery = z
  .enum(["true", "false"])
  .optional()
  .openapi({
    param: { name: "fresh", in: "query" },
    description: "true: read Redis, not the edge copy (e.g. right after the caller's own write); the answer is not cacheable",
  });


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
      ...(method === "put"
        ? errorResponses("bad_request", "unauthorized", "blocked", "not_found", "rate_limited", "unavailable")
        : errorResponses("bad_request", "unauthorized", "not_found", "rate_limited", "unavailable")),
    },
  });

export const countersRoutes = newRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/counters/{entity}",
      tags: ["Counters"],
      summary: "Every counter of up to 100 entities (zeros for unknown ids; never negative)",
      description:
        "Hot entities are answered from a per-isolate copy at most `COUNTER_EDGE_CACHE_MS` (≤ 1 s) old, never older; `fresh=true` reads Redis. A single-id answer carries `Cache-Control: public, max-age=` the same bound in whole seconds.",
      request: { params: z.object({ entity: EntityParam }), query: z.object({ ids: idListQuery(MAX_READ_IDS), fresh: FreshQuery }) },
      responses: { 200: jsonContent(CountersSchema, "Counts in the order of `ids`"), ...errorResponses("bad_request", "unavailable") },
    }),
    async (c) => {
      const { entity } = c.req.valid("param");
      const { ids, fresh } = c.req.valid("query");
      const boundMs = edgeCacheBoundMs(c.env);
      const read = await readCountersAtEdge(c.var.services, entity, ids, { boundMs, fresh: fresh === "true" });
      const items = ids.map((id) => ({ id, counts: shownCounts(read.fields, read.values.get(id)) }));
      // Clients may share a single-entity answer for the same bound (whole seconds, max-age's unit);
      // a fresh or stale answer must not be reused. Batches differ per screen: nothing to share.
      const headers: Record<string, string> = {};
      if (ids.length === 1) {
        headers["Cache-Control"] = fresh === "true" || read.stale ? "no-store" : `public, max-age=${Math.floor(boundMs / 1000)}`;
      }
      return c.json({ entity, stale: read.stale, items }, 200, headers);
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
      const claim = key ? { callerId: c.var.caller.userId, key, fingerprint, answer: JSON.stringify(answer), ownerId: id } : undefined;
      const { outcome, values } = await incrementWithCounts(c.var.services, entity, id, deltas, claim, edgeCacheBoundMs(c.env));
      // Counts are what the counter is after the call (also on a replay).
      const counts = values && shownCounts(fieldsOf(entity), values);
      if (!outcome.applied) return c.json({ ...(JSON.parse(outcome.replayed) as typeof answer), counts }, 200, { "Idempotent-Replayed": "true" });
      return c.json({ ...answer, counts }, 200);
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
