import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { flushAll } from "../../src/counters/flush";
import { queryRows } from "../../src/counters/store";
import { CRON_SCHEDULES } from "../../src/cron";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { api, newId, show } from "../support/api";
import { readCounts, servicesFor } from "./support";

const service = () => ({ userId: newId(), role: "service" as const });

describe("GET /v1/counters/{entity}", () => {
  it("answers zeros for every field of unknown ids", async () => {
    const id = newId();
    const res = await api("GET", `/v1/counters/post?ids=${id}`);
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual({ entity: "post", stale: false, items: [{ id, counts: { views: 0, comments: 0, likes: 0, favorites: 0, forwards: 0 } }] });
  });

  it("rejects an unknown entity with 400 naming it", async () => {
    const res = await api("GET", `/v1/counters/planet?ids=1`);
    expect(res.status, show(res)).toBe(400);
    expect(JSON.stringify(res.body.error.details), show(res)).toContain("entity");
  });

  it("rejects more than 100 ids", async () => {
    const ids = Array.from({ length: 101 }, () => newId()).join(",");
    const res = await api("GET", `/v1/counters/user?ids=${ids}`);
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field, show(res)).toBe("ids");
  });
});

describe("POST /v1/counters/{entity}/{id}", () => {
  it("adds several fields at once, cached or not, and the flush keeps the totals", async () => {
    const id = newId();
    const as = service();
    const first = await api("POST", `/v1/counters/user/${id}`, { as, body: { deltas: { comments: 1, coins: 7 } } });
    expect(first.status, show(first)).toBe(200);
    expect((await readCounts("user", [id])).counts[id]).toMatchObject({ comments: 1, coins: 7 });
    await api("POST", `/v1/counters/user/${id}`, { as, body: { deltas: { coins: -5 } } });
    expect((await readCounts("user", [id])).counts[id]).toMatchObject({ comments: 1, coins: 2 });
    const { services, close } = servicesFor();
    await flushAll(services);
    await close();
    expect((await readCounts("user", [id])).counts[id]).toMatchObject({ comments: 1, coins: 2 });
  });

  it("stores negative totals but shows them as 0", async () => {
    const id = newId();
    const as = service();
    await api("POST", `/v1/counters/user/${id}`, { as, body: { deltas: { coins: -3 } } });
    expect((await readCounts("user", [id])).counts[id]!.coins).toBe(0);
    await api("POST", `/v1/counters/user/${id}`, { as, body: { deltas: { coins: 5 } } });
    expect((await readCounts("user", [id])).counts[id]!.coins).toBe(2);
  });

  it("rejects unknown fields with 400 naming them and applies nothing", async () => {
    const id = newId();
    const res = await api("POST", `/v1/counters/user/${id}`, { as: service(), body: { deltas: { coins: 1, karma: 2 } } });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details, show(res)).toEqual([expect.objectContaining({ field: "deltas.karma" })]);
    expect((await readCounts("user", [id])).counts[id]!.coins).toBe(0);
  });

  it("rejects non-integer and out-of-bounds deltas", async () => {
    const id = newId();
    for (const delta of [1.5, 2_000_000_000, "3"]) {
      const res = await api("POST", `/v1/counters/post/${id}`, { as: service(), body: { deltas: { likes: delta } } });
      expect(res.status, show(res)).toBe(400);
    }
  });

  it("is for role service only", async () => {
    const res = await api("POST", `/v1/counters/user/${newId()}`, { as: { userId: newId() }, body: { deltas: { coins: 1 } } });
    expect(res.status, show(res)).toBe(403);
  });

  it("applies a retried Idempotency-Key once and answers the same", async () => {
    const id = newId();
    const as = service();
    const headers = { "Idempotency-Key": `k-${newId()}` };
    const first = await api("POST", `/v1/counters/user/${id}`, { as, headers, body: { deltas: { coins: 10 } } });
    const retries = await Promise.all(
      Array.from({ length: 5 }, () => api("POST", `/v1/counters/user/${id}`, { as, headers, body: { deltas: { coins: 10 } } })),
    );
    expect(first.status, show(first)).toBe(200);
    for (const r of retries) {
      expect(r.status, show(r)).toBe(200);
      expect(r.body).toEqual(first.body);
      expect(r.headers.get("Idempotent-Replayed")).toBe("true");
    }
    expect((await readCounts("user", [id])).counts[id]!.coins).toBe(10);
  });

  it("applies concurrent first attempts with one Idempotency-Key once", async () => {
    const id = newId();
    const as = service();
    const headers = { "Idempotency-Key": `race-${newId()}` };
    const all = await Promise.all(Array.from({ length: 10 }, () => api("POST", `/v1/counters/post/${id}`, { as, headers, body: { deltas: { forwards: 1 } } })));
    expect(all.every((r) => r.status === 200), all.map(show).join("\n")).toBe(true);
    expect((await readCounts("post", [id])).counts[id]!.forwards).toBe(1);
  });

  it("answers 409 when an Idempotency-Key is reused for different deltas", async () => {
    const id = newId();
    const as = service();
    const headers = { "Idempotency-Key": `reuse-${newId()}` };
    await api("POST", `/v1/counters/user/${id}`, { as, headers, body: { deltas: { coins: 1 } } });
    const res = await api("POST", `/v1/counters/user/${id}`, { as, headers, body: { deltas: { coins: 2 } } });
    expect(res.status, show(res)).toBe(409);
    expect((await readCounts("user", [id])).counts[id]!.coins).toBe(1);
  });

  it("rejects a malformed Idempotency-Key", async () => {
    const res = await api("POST", `/v1/counters/user/${newId()}`, { as: service(), headers: { "Idempotency-Key": "bad key!" }, body: { deltas: { coins: 1 } } });
    expect(res.status, show(res)).toBe(400);
    expect(JSON.stringify(res.body.error.details), show(res)).toContain("idempotency-key");
  });
});

describe("GET /openapi.json", () => {
  it("documents every counters endpoint, and not the bench-only baseline", async () => {
    const res = await api("GET", "/openapi.json");
    expect(res.status, show(res)).toBe(200);
    const paths = Object.keys(res.body.paths);
    for (const path of [
      "/v1/counters/{entity}",
      "/v1/counters/{entity}/{id}",
      "/v1/posts/{id}/likes/me",
      "/v1/posts/{id}/favorites/me",
      "/v1/posts/{id}/views",
      "/v1/admin/counters/reconcile",
    ]) {
      expect(paths, path).toContain(path);
    }
    expect(paths.some((p) => p.includes("naive/counters"))).toBe(false);
  });
});

describe("POST /v1/bench/naive/counters/{entity}/{id}/{field}", () => {
  it("does not exist outside the benchmark", async () => {
    const res = await api("POST", `/v1/bench/naive/counters/post/${newId()}/likes`, { as: service() });
    expect(res.status, show(res)).toBe(404);
  });
});

describe("the flush cron", () => {
  it("applies pending increments to Postgres when the every-minute trigger fires", async () => {
    const id = newId();
    await api("POST", `/v1/counters/group/${id}`, { as: service(), body: { deltas: { subscribers: 3, featured: 1 } } });
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: CRON_SCHEDULES.flush }), env as unknown as Env, ctx);
    await waitOnExecutionContext(ctx);
    const { services, close } = servicesFor();
    const rows = await queryRows<{ field: string; value: string }>(
      services.db,
      "SELECT field, value::text AS value FROM counters WHERE entity = 'group' AND entity_id = $1 ORDER BY field",
      [id],
    );
    await close();
    expect(rows).toEqual([
      { field: "featured", value: "1" },
      { field: "subscribers", value: "3" },
    ]);
  });
});
