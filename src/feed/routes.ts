import { createRoute, z } from "@hono/zod-openapi";
import { authenticate, optionalCaller } from "../lib/auth";
import { IdSchema } from "../lib/ids";
import { bearerAuth, errorResponses, jsonContent, newRouter } from "../lib/openapi";
import { PaginationQuery } from "../lib/pagination";
import { RANKED_CURSOR_MAX_LENGTH } from "./ranked-cursor";
import { readHomeFeed } from "./timeline";
import { readingFirstPage } from "./unseen";
import { MAX_TRENDING, readTrendingFor, readTrendingShown, TRENDING_WINDOWS } from "./trending";
import { TRENDING_WEIGHTS } from "../counters/trending";

const FeedItemSchema = z
  .object({
    post: z.object({ id: IdSchema, authorId: IdSchema, text: z.string(), createdAt: z.string().datetime() }),
    counts: z.object({
      likes: z.number().int().min(0),
      comments: z.number().int().min(0),
      forwards: z.number().int().min(0),
      views: z.number().int().min(0),
      favorites: z.number().int().min(0),
    }),
    liked: z.boolean().openapi({ description: "The caller likes this post" }),
    favorited: z.boolean().openapi({ description: "The caller favourited this post" }),
  })
  .openapi("FeedItem");

const FeedPageSchema = z
  .object({
    items: z.array(FeedItemSchema),
    nextCursor: z.string().nullable(),
    degraded: z.boolean().openapi({
      description:
        "true when a backing service was down: from Postgres alone (Redis down: counters may lag by what Redis buffers) or from Redis alone (Postgres down: posts not cached are left out)",
    }),
  })
  .openapi("FeedPage");

const TrendingSchema = z
  .object({
    window: z.enum(Object.keys(TRENDING_WINDOWS) as ["1h", "24h", "7d"]),
    items: z.array(FeedItemSchema.omit({ liked: true, favorited: true }).extend({ score: z.number() })),
    degraded: z.boolean().openapi({ description: "true when Redis was unreachable (the list is then empty)" }),
  })
  .openapi("TrendingPosts");

/** Mounted before the posts routes, so `/v1/posts/trending` is not read as a post id. */
export const trendingRoutes = newRouter().openapi(
  createRoute({
    method: "get",
    path: "/v1/posts/trending",
    tags: ["Feed"],
    summary: "The posts with the most engagement in a window",
    description: `Score = Σ weight × counter movement in the window (${Object.entries(TRENDING_WEIGHTS)
      .map(([f, w]) => `${f} ${w}`)
      .join(", ")}), from hourly buckets: \`1h\` covers the last 60–120 minutes, \`24h\` 24–25 hours, \`7d\` 168–169 hours. A list is recomputed at most every 5 seconds; a deleted post leaves every list within 2 seconds of its delete, so shared caches may keep an answer 2 seconds. With a valid token the list leaves out the posts of users the reader blocked, who blocked the reader, or whom the reader mutes (and is not for shared caches).`,
    request: {
      query: z.object({
        window: z.enum(["1h", "24h", "7d"]).default("24h").openapi({ param: { name: "window", in: "query" } }),
        limit: z.coerce.number().int().min(1).max(MAX_TRENDING).default(20).openapi({ param: { name: "limit", in: "query" }, example: 20 }),
      }),
    },
    responses: { 200: jsonContent(TrendingSchema, "The trending posts, highest score first"), ...errorResponses("bad_request", "unavailable") },
  }),
  async (c) => {
    const { window, limit } = c.req.valid("query");
    const reader = await optionalCaller(c);
    // Not longer than an isolate keeps a list: a take-down must leave every answer within 2 s. A
    // reader's own answer (their blocks and mutes left out) is theirs only: no shared cache keeps it.
    c.header("Cache-Control", reader ? "private, max-age=2" : "public, max-age=2");
    if (reader) return c.json(await readTrendingFor(c.var.services, reader.userId, window, limit), 200);
    return c.json(await readTrendingShown(c.var.services, window, limit), 200);
  },
);

export const feedRoutes = newRouter().openapi(
  createRoute({
    method: "get",
    path: "/v1/me/feed",
    tags: ["Feed"],
    summary: "The caller's home timeline: posts of the accounts they follow and their own, newest first, hydrated",
    description:
      "Each item carries the post, its counters and the caller's like/favourite flags. A page may hold fewer than `limit` items (deleted posts are skipped) and still have a `nextCursor`; the last page has `nextCursor: null`. A first page (no `cursor`) resets the caller's `feed` badge to zero.",
    security: bearerAuth,
    middleware: [authenticate()] as const,
    request: {
      query: PaginationQuery.extend({
        // A ranked cursor carries the ranking's ids (ranked-cursor.ts: at most 3,203 characters).
        cursor: z
          .string()
          .max(RANKED_CURSOR_MAX_LENGTH)
          .optional()
          .openapi({ param: { name: "cursor", in: "query" }, description: "Opaque cursor from a previous page's nextCursor" }),
        order: z
          .enum(["chronological", "ranked"])
          .default("chronological")
          .openapi({
            param: { name: "order", in: "query" },
            description:
              "`ranked`: the newest 300 items scored by `(1 + likes + 2·comments + 3·forwards) / (age_hours + 2)^1.5`; the cursor carries that ranking (at most 4 KB) and walks it for 15 minutes, so items do not move between pages; after that, or with a cursor of an earlier version, it is refused (400 on `cursor`): drop the cursor for a new ranking",
          }),
      }),
    },
    responses: {
      200: jsonContent(FeedPageSchema, "One page of the home timeline"),
      ...errorResponses("bad_request", "unauthorized", "unavailable"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const userId = c.var.caller.userId;
    if (query.cursor) return c.json(await readHomeFeed(c.var.services, userId, query), 200);
    return c.json(await readingFirstPage(c.var.services, userId, (services) => readHomeFeed(services, userId, query)), 200);
  },
);
