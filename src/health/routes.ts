import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { verifyCallerToken } from "../lib/auth";
import type { AppEnv } from "../lib/context";
import { jsonContent, newRouter } from "../lib/openapi";
import { checkHealth, publicHealth } from "./health";

const ADMIN_ONLY = "With an admin token only";
const DependencySchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().optional().openapi({ description: ADMIN_ONLY }),
  error: z.string().optional().openapi({ description: `${ADMIN_ONLY}: why the probe failed` }),
});
const RedisHealthSchema = DependencySchema.extend({
  databases: z.array(DependencySchema).optional().openapi({ description: `${ADMIN_ONLY}. With several Redis databases: each one's probe, database 0 first` }),
  rateLimited: z.number().int().optional().openapi({ description: `${ADMIN_ONLY}. Answers past a database's command budget this isolate got since it started` }),
});
const HealthSchema = z
  .object({ status: z.enum(["ok", "unavailable"]), redis: RedisHealthSchema, postgres: DependencySchema })
  .openapi("Health");

/**
 * Whether the request carries a valid admin token. Anything else (none, expired, another role, a
 * token that does not verify) is an anonymous caller here, never a 401: load balancers and uptime
 * checks call this route without one.
 */
async function isAdmin(c: Context<AppEnv>): Promise<boolean> {
  const token = c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!token) return false;
  try {
    return (await verifyCallerToken(token, c.env)).role === "admin";
  } catch {
    return false;
  }
}

export const healthRoutes = newRouter().openapi(
  createRoute({
    method: "get",
    path: "/health",
    tags: ["Operations"],
    summary: "Reachability of Redis (each database) and Postgres (503 when either is down or the Redis setting is wrong)",
    description:
      "Anyone: `status` and each dependency's `ok`. With an admin token: latencies, each Redis database's probe, answers past a command budget, and the dependencies' error messages (which may name hosts and settings).",
    responses: {
      200: jsonContent(HealthSchema, "Both reachable"),
      503: jsonContent(HealthSchema, "Redis or Postgres unreachable"),
    },
  }),
  async (c) => {
    const health = await checkHealth(c.var.services);
    const status = health.status === "ok" ? 200 : 503;
    return c.json((await isAdmin(c)) ? health : publicHealth(health), status);
  },
);
