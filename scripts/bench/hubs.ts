import { Hono } from "hono";
import type { Env } from "../../src/env";
import { hubShards, hubStub } from "../../src/badges/live";

/** Bench-only: every hub shard's stats summed (sockets, degraded snapshots awaiting a retry, Worker calls received), to count object calls. */
export const hubStatsRoutes = new Hono<{ Bindings: Env }>().get("/v1/bench/hubs", async (c) => {
  const stats = await Promise.all(Array.from({ length: hubShards(c.env) }, (_, i) => hubStub(c.env, i).stats()));
  return c.json({
    shards: stats.length,
    sockets: stats.reduce((s, x) => s + x.sockets, 0),
    degraded: stats.reduce((s, x) => s + x.degraded, 0),
    calls: stats.reduce((s, x) => s + x.calls, 0),
    handled: stats.reduce((s, x) => s + x.handled, 0),
  });
});
