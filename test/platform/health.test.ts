import { describe, expect, it } from "vitest";
import { api, newId, show } from "../support/api";
import { databasesEnv, stackDatabases } from "../support/databases";
import { createChaos, useChaos } from "../support/stack";

/** An operator: the details (latencies, error messages) are theirs only. */
const admin = { as: { userId: newId(), role: "admin" as const } };

describe("GET /health", () => {
  const pair = useChaos();
  const throughChaos = () => pair.current.bindings;

  it("reports both dependencies reachable without auth (status only), with latencies for an admin", async () => {
    const res = await api("GET", "/health");
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual({ status: "ok", redis: { ok: true }, postgres: { ok: true } });
    const detailed = await api("GET", "/health", admin);
    expect(detailed.status, show(detailed)).toBe(200);
    expect(detailed.body).toMatchObject({ status: "ok", redis: { ok: true, rateLimited: expect.any(Number) }, postgres: { ok: true } });
    expect(detailed.body.redis.latencyMs).toBeGreaterThanOrEqual(0);
    expect(detailed.body.postgres.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("answers 503 naming Redis when Redis is unreachable; the error message only to an admin", async () => {
    await pair.current.setRedisDown(true);
    try {
      const res = await api("GET", "/health", { env: throughChaos(), ...admin });
      expect(res.status, show(res)).toBe(503);
      expect(res.body).toMatchObject({ status: "unavailable", redis: { ok: false }, postgres: { ok: true } });
      expect(res.body.redis.error).toEqual(expect.any(String));
      // Anyone else (no token, a user's, one that does not verify) gets the statuses, same code, no message.
      for (const as of [undefined, { userId: newId() }, { authorization: "Bearer not-a-token" }]) {
        const anonymous = await api("GET", "/health", { env: throughChaos(), as });
        expect(anonymous.status, show(anonymous)).toBe(503);
        expect(anonymous.body).toEqual({ status: "unavailable", redis: { ok: false }, postgres: { ok: true } });
      }
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

describe.skipIf(stackDatabases().length < 3)("GET /health with several Redis databases", () => {
  const real = () => stackDatabases().slice(0, 3);

  it("reports each database, all reachable and holding their markers", async () => {
    const res = await api("GET", "/health", { env: databasesEnv(real()), ...admin });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.redis).toMatchObject({ ok: true, rateLimited: expect.any(Number) });
    expect(res.body.redis.databases).toEqual([0, 1, 2].map(() => expect.objectContaining({ ok: true })));
  });

  it.each([
    ["bad JSON", { UPSTASH_REDIS_DATABASES: "[{url:" }, /UPSTASH_REDIS_DATABASES is not valid JSON/],
    ["a missing token", { UPSTASH_REDIS_DATABASES: JSON.stringify([{ url: "http://127.0.0.1:1" }, { url: "http://127.0.0.1:2", token: "t" }]), UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1" }, /UPSTASH_REDIS_DATABASES\[0\]\.token is missing/],
  ])("answers 503 naming a bad setting (%s), and so does any call", async (_name, setting, message) => {
    const res = await api("GET", "/health", { env: setting, ...admin });
    expect(res.status, show(res)).toBe(503);
    expect(res.body).toMatchObject({ status: "unavailable", redis: { ok: false }, postgres: { ok: true } });
    expect(res.body.redis.error).toMatch(message);
    const call = await api("GET", "/v1/counters/user?ids=1", { env: setting });
    expect(call.status, show(call)).toBe(503);
    expect(call.body.error.message).toMatch(message);
  });

  it("answers 503 when the number of databases changed without a reshard (their markers say 3)", async () => {
    const res = await api("GET", "/health", { env: databasesEnv(real().slice(0, 2)), ...admin });
    expect(res.status, show(res)).toBe(503);
    expect(res.body.redis.error).toMatch(/database 0: Redis setting: UPSTASH_REDIS_DATABASES\[0\] holds the marker of database 0 of 3 .* not of database 0 of 2/);
  });

  it("answers 503 naming the one database that is down", async () => {
    const chaos = await createChaos(2);
    try {
      await chaos.setRedisDown(true);
      const res = await api("GET", "/health", { env: databasesEnv([...real().slice(0, 2), { url: chaos.restUrl, token: chaos.restToken }]), ...admin });
      expect(res.status, show(res)).toBe(503);
      expect(res.body.redis.databases.map((d: { ok: boolean }) => d.ok)).toEqual([true, true, false]);
      expect(res.body.redis.error).toMatch(/^database 2: /);
    } finally {
      await chaos.close();
    }
  });
});
