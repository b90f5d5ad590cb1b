import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent, newRouter } from "../lib/openapi";
import { checkHealth } from "./health";

const DependencySchema = z.object({ ok: z.boolean(), latencyMs: z.number(), error: z.string().optional() });
const RedisHealthSchema = DependencySchema.extend({
  databases: z.array(DependencySchema).optional().openapi({ description: "With several Redis databases: each one's probe, database 0 first" }),
  rateLimited: z.number().int().openapi({ description: "Answers past a database's command budget this isolate got since it started" }),
});
const HealthSchema = z
  .object({ status: z.enum(["ok", "unavailable"]), redis: RedisHealthSchema, postgres: DependencySchema })
  .openapi("Health");

export const healthRoutes = newRouter().openapi(
  createRoute({
    method: "get",
    path: "/health",
    tags: ["Operations"],
    summary: "Reachability and latency of Redis (each database) and Postgres (503 when either is down or the Redis setting is wrong)",
    responses: {
      200: jsonContent(HealthSchema, "Both reachable"),
      503: jsonContent(HealthSchema, "Redis or Postgres unreachable"),
    },
  }),
  async (c) => {
    const health = await checkHealth(c.var.services);
    return c.json(health, health.status === "ok" ? 200 : 503);
  },
);
