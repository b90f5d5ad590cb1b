import { createRoute, z } from "@hono/zod-openapi";
import { authenticate, optionalCaller } from "../lib/auth";
import { IdSchema, idParam } from "../lib/ids";
import { bearerAuth, errorResponses, jsonBody, jsonContent, newRouter } from "../lib/openapi";
import { PaginationQuery, pageSchema } from "../lib/pagination";
import { rateLimit } from "../lib/rate-limit";
import { PostAlertSchema } from "../lib/wire/alert";
import { follow, listFollowEdges, unfollow } from "./follows";
import { readPostDetail } from "../feed/detail";
import { createPost, deletePost, listPostsByAuthor } from "./posts";
import { MAX_POST_LENGTH } from "./schema";

const FollowChangeSchema = z
  .object({ followerId: IdSchema, followeeId: IdSchema, following: z.boolean(), changed: z.boolean() })
  .openapi("FollowChange");
const FollowEdgeSchema = z.object({ userId: IdSchema, followedAt: z.string().datetime() }).openapi("FollowEdge");
const PostSchema = z
  .object({ id: IdSchema, authorId: IdSchema, text: z.string().openapi({ example: "Live at 8 tonight" }), createdAt: z.string().datetime() })
  .openapi("Post");
const PostDetailSchema = PostSchema.extend({
  counts: z.object({
    likes: z.number().int().min(0),
    comments: z.number().int().min(0),
    forwards: z.number().int().min(0),
    views: z.number().int().min(0),
    favorites: z.number().int().min(0),
  }),
  liked: z.boolean().openapi({ description: "The caller likes this post (false without a token)" }),
  favorited: z.boolean().openapi({ description: "The caller favourited this post (false without a token)" }),
}).openapi("PostDetail");
const NewPostSchema = z
  .object({ text: z.string().trim().min(1).max(MAX_POST_LENGTH).openapi({ example: "Live at 8 tonight" }), alert: PostAlertSchema.optional() })
  .openapi("NewPost");

const followRoute = (method: "put" | "delete") =>
  createRoute({
    method,
    path: "/v1/me/following/{userId}",
    tags: ["Follows"],
    summary: method === "put" ? "Follow a user (idempotent)" : "Unfollow a user (idempotent)",
    security: bearerAuth,
    middleware: [authenticate(), rateLimit()] as const,
    request: { params: z.object({ userId: idParam("userId") }) },
    responses: {
      200: jsonContent(FollowChangeSchema, "The relation after the call; `changed` says whether this call changed it"),
      ...(method === "put"
        ? errorResponses("bad_request", "unauthorized", "blocked", "rate_limited", "unavailable")
        : errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable")),
    },
  });

const listEdgesRoute = (direction: "followers" | "following") =>
  createRoute({
    method: "get",
    path: `/v1/users/{id}/${direction}`,
    tags: ["Follows"],
    summary: direction === "followers" ? "Followers of a user, newest first" : "Users a user follows, newest first",
    request: { params: z.object({ id: idParam("id") }), query: PaginationQuery },
    responses: {
      200: jsonContent(pageSchema(FollowEdgeSchema, direction === "followers" ? "FollowersPage" : "FollowingPage"), "One page"),
      ...errorResponses("bad_request", "unavailable"),
    },
  });

export const socialRoutes = newRouter()
  .openapi(followRoute("put"), async (c) => {
    const { userId } = c.req.valid("param");
    return c.json(await follow(c.var.services, c.var.caller.userId, userId), 200);
  })
  .openapi(followRoute("delete"), async (c) => {
    const { userId } = c.req.valid("param");
    return c.json(await unfollow(c.var.services, c.var.caller.userId, userId), 200);
  })
  .openapi(listEdgesRoute("followers"), async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await listFollowEdges(c.var.services, "followers", id, c.req.valid("query")), 200);
  })
  .openapi(listEdgesRoute("following"), async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await listFollowEdges(c.var.services, "following", id, c.req.valid("query")), 200);
  })
  .openapi(
    createRoute({
      method: "post",
      path: "/v1/posts",
      tags: ["Posts"],
      summary: "Create a post by the caller",
      description:
        "The users who chose the caller in `/v1/me/notification-authors` get a push (kind `author`) after the response, showing `alert` or, without it, \"New post\" and the start of the text.",
      security: bearerAuth,
      middleware: [authenticate(), rateLimit()] as const,
      request: jsonBody(NewPostSchema),
      responses: {
        201: jsonContent(PostSchema.extend({ held: z.literal(true).optional().describe("The term filter holds the post for an operator: shown to you only until approved") }).openapi("NewPostResult"), "The new post"),
        ...errorResponses("bad_request", "unauthorized", "rate_limited", "unavailable"),
      },
    }),
    async (c) => {
      const { text, alert } = c.req.valid("json");
      return c.json(await createPost(c.var.services, c.var.caller.userId, text, alert), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/posts/{id}",
      tags: ["Posts"],
      summary: "Read a post",
      description:
        "Public. The post with its counts and, with a valid token, the caller's like and favourite: answered from the caches a feed page reads, near the caller (docs/feed.md). With a valid token, 403 `blocked` when the reader and the author blocked each other (either way).",
      request: { params: z.object({ id: idParam("id") }) },
      responses: { 200: jsonContent(PostDetailSchema, "The post"), ...errorResponses("bad_request", "blocked", "not_found", "unavailable") },
    }),
    async (c) => c.json(await readPostDetail(c.var.services, c.req.valid("param").id, (await optionalCaller(c))?.userId), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/v1/posts/{id}",
      tags: ["Posts"],
      summary: "Delete a post (its author or an admin); later reads answer 404",
      security: bearerAuth,
      middleware: [authenticate(), rateLimit()] as const,
      request: { params: z.object({ id: idParam("id") }) },
      responses: {
        200: jsonContent(z.object({ id: IdSchema, deleted: z.literal(true) }), "Deleted"),
        ...errorResponses("bad_request", "unauthorized", "forbidden", "not_found", "rate_limited", "unavailable"),
      },
    }),
    async (c) => c.json(await deletePost(c.var.services, c.var.caller, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/v1/users/{id}/posts",
      tags: ["Posts"],
      summary: "Posts of a user, newest first",
      description: "Public. With a valid token, 403 `blocked` when the reader and the user blocked each other (either way).",
      request: { params: z.object({ id: idParam("id") }), query: PaginationQuery },
      responses: {
        200: jsonContent(pageSchema(PostSchema, "PostsPage"), "One page"),
        ...errorResponses("bad_request", "blocked", "unavailable"),
      },
    }),
    // With the author's own token the page includes their held posts.
    async (c) => c.json(await listPostsByAuthor(c.var.services, c.req.valid("param").id, c.req.valid("query"), (await optionalCaller(c))?.userId), 200),
  );
