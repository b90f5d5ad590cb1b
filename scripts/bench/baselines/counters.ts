/**
 * Benchmark baselines for `npm run bench:counters` (bench-only: never in the deployed Worker):
 * - the naive design, one Postgres UPDATE per increment;
 * - the edge copy's alternative: a single-entity read kept in the Workers Cache API
 *   (`caches.default`) for `max-age=1` instead of in isolate memory. A hit costs a `match` (a
 *   subrequest to the data centre's cache); a miss is today's Redis read plus a `put`. Production
 *   cannot use it on `workers.dev`, and its whole-second expiry cannot hold a sub-second bound — the
 *   bench measures what it would cost where it works.
 */
import { Hono } from "hono";
import { readCounters, shownCounts } from "../../../src/counters/counters";
import { isCounterEntity } from "../../../src/counters/registry";
import { queryRows } from "../../../src/counters/store";
import { authenticate } from "../../../src/lib/auth";
import type { AppEnv } from "../../../src/lib/context";
import { ApiError } from "../../../src/lib/errors";

export const countersBaselineRoutes = new Hono<AppEnv>().post(
  "/v1/bench/naive/counters/:entity/:id/:field",
  authenticate({ roles: ["service"] }),
  async (c) => {
    const { entity, id, field } = c.req.param();
    const [row] = await queryRows<{ value: string }>(
      c.var.services.db,
      "UPDATE counters SET value = value + 1 WHERE entity = $1 AND entity_id = $2 AND field = $3 RETURNING value::text AS value",
      [entity, id, field],
    );
    return c.json({ value: Number(row?.value ?? 0) }, 200);
  },
);

countersBaselineRoutes.get("/v1/bench/cache-api/counters/:entity/:id", async (c) => {
  const { entity, id } = c.req.param();
  if (!isCounterEntity(entity)) throw new ApiError("bad_request", "Invalid entity", [{ field: "entity", message: "is not a counted entity" }]);
  const key = new Request(`https://counters.bench.internal/${entity}/${id}`);
  const hit = await caches.default.match(key);
  if (hit) return hit;
  const read = await readCounters(c.var.services, entity, [id]);
  const res = c.json({ entity, stale: read.stale, items: [{ id, counts: shownCounts(read.fields, read.values.get(id)) }] }, 200, {
    "Cache-Control": "public, max-age=1",
  });
  if (!read.stale) c.executionCtx.waitUntil(caches.default.put(key, res.clone()));
  return res;
});
