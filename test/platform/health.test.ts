import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, show } from "../support/api";
import { createChaos, type Chaos } from "../support/stack";

describe("GET /health", () => {
  let chaos: Chaos;
  beforeAll(async () => {
    chaos = await createChaos();
  });
  afterAll(async () => {
    await chaos.close();
  });
  const throughChaos = () => ({
    UPSTASH_REDIS_REST_URL: chaos.restUrl,
    UPSTASH_REDIS_REST_TOKEN: chaos.restToken,
    NEON_WS_PROXY: chaos.wsProxy,
  });

  it("reports both dependencies reachable, with latencies, without auth", async () => {
    const res = await api("GET", "/health");
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ status: "ok", redis: { ok: true }, postgres: { ok: true } });
    expect(res.body.redis.latencyMs).toBeGreaterThanOrEqual(0);
    expect(res.body.postgres.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("answers 503 naming Redis when Redis is unreachable", async () => {
    await chaos.setRedisDown(true);
    try {
      const res = await api("GET", "/health", { env: throughChaos() });
      expect(res.status, show(res)).toBe(503);
      expect(res.body).toMatchObject({ status: "unavailable", redis: { ok: false }, postgres: { ok: true } });
      expect(res.body.redis.error).toEqual(expect.any(String));
    } finally {
      await chaos.setRedisDown(false);
    }
  });

  it("answers 503 naming Postgres when Postgres is unreachable", async () => {
    await chaos.setPostgresDown(true);
    try {
      const res = await api("GET", "/health", { env: throughChaos() });
      expect(res.status, show(res)).toBe(503);
      expect(res.body).toMatchObject({ status: "unavailable", redis: { ok: true }, postgres: { ok: false } });
    } finally {
      await chaos.setPostgresDown(false);
    }
  });

  it("is healthy again once the outage ends", async () => {
    const res = await api("GET", "/health", { env: throughChaos() });
    expect(res.status, show(res)).toBe(200);
  });
});
