import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent, newRouter } from "../lib/openapi";
import { checkHealth } from "./health";

const DependencySchema = z.object({ ok: z.boolean(), latencyMs: z.number(), error: z.string().optional() });
const HealthSchema = z
  .object({ status: z.enum(["ok", "unavailable"]), redis: DependencySchema, postgres: DependencySchema })
  .openapi("Health");

export const healthRoutes = newRouter().openapi(
  createRoute({
    method: "get",
    path: "/health",
    tags: ["Operations"],
    summary: "Reachability and latency of Redis and Postgres (503 when either is down)",
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
