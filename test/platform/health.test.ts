import { describe, expect, it } from "vitest";
import { api, show } from "../support/api";
import { useChaos } from "../support/stack";

describe("GET /health", () => {
  const pair = useChaos();
  const throughChaos = () => pair.current.bindings;

  it("reports both dependencies reachable, with latencies, without auth", async () => {
    const res = await api("GET", "/health");
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ status: "ok", redis: { ok: true }, postgres: { ok: true } });
    expect(res.body.redis.latencyMs).toBeGreaterThanOrEqual(0);
    expect(res.body.postgres.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("answers 503 naming Redis when Redis is unreachable", async () => {
    await pair.current.setRedisDown(true);
    try {
      const res = await api("GET", "/health", { env: throughChaos() });
      expect(res.status, show(res)).toBe(503);
      expect(res.body).toMatchObject({ status: "unavailable", redis: { ok: false }, postgres: { ok: true } });
      expect(res.body.redis.error).toEqual(expect.any(String));
    } finally {
      await pair.current.setRedisDown(false);
    }
  });

  it("answers 503 naming Postgres when Postgres is unreachable", async () => {
    await pair.current.setPostgresDown(true);
    try {
      const res = await api("GET", "/health", { env: throughChaos() });
      expect(res.status, show(res)).toBe(503);
      expect(res.body).toMatchObject({ status: "unavailable", redis: { ok: true }, postgres: { ok: false } });
    } finally {
      await pair.current.setPostgresDown(false);
    }
  });

  it("is healthy again once the outage ends", async () => {
    const res = await api("GET", "/health", { env: throughChaos() });
    expect(res.status, show(res)).toBe(200);
  });
});
