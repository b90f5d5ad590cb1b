/**
 * Outages, through a private chaos bridge+proxy pair over the same Redis and Postgres: only the
 * requests sent through the pair see the outage, and the pair's own bridge counts round trips
 * exactly (no other test file talks to it).
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { flushAll, flushOnce } from "../../src/counters/flush";
import { counterKeys } from "../../src/counters/keys";
import { queryRows } from "../../src/counters/store";
import { redisFor } from "../../src/lib/redis";
import { api, newId, show } from "../support/api";
import { createChaos, type Chaos } from "../support/stack";
import { readCounts, servicesFor } from "./support";

let chaos: Chaos;
let chaosEnv: Partial<Env>;
const service = { userId: newId(), role: "service" as const };

beforeAll(async () => {
  chaos = await createChaos();
  chaosEnv = { UPSTASH_REDIS_REST_URL: chaos.restUrl, UPSTASH_REDIS_REST_TOKEN: chaos.restToken, NEON_WS_PROXY: chaos.wsProxy, NEON_HTTP_PROXY: chaos.httpProxy };
});
afterAll(async () => {
  await chaos.setRedisDown(false);
  await chaos.setPostgresDown(false);
  await chaos.close();
});

const incr = (entity: string, id: string, deltas: Record<string, number>, headers?: Record<string, string>) =>
  api("POST", `/v1/counters/${entity}/${id}`, { as: service, body: { deltas }, headers, env: chaosEnv });

async function flushThroughChaos() {
  const { services, close } = servicesFor(chaosEnv);
  try {
    return await flushAll(services);
  } finally {
    await close();
  }
}

describe("when Redis is down", () => {
  it("GET answers Postgres values marked stale, and increments are applied to Postgres", async () => {
    const id = newId();
    await incr("user", id, { coins: 3 });
    await flushThroughChaos();
    expect(await readCounts("user", [id], { env: chaosEnv })).toEqual({ stale: false, counts: { [id]: expect.objectContaining({ coins: 3 }) } });
    await chaos.setRedisDown(true);
    const during = await incr("user", id, { coins: 4 });
    expect(during.status, show(during)).toBe(200);
    expect(await readCounts("user", [id], { env: chaosEnv })).toEqual({ stale: true, counts: { [id]: expect.objectContaining({ coins: 7 }) } });
    await chaos.setRedisDown(false);
  });

  it("totals stay exact across the outage: the stale cache entry is dropped by the next flush", async () => {
    const id = newId();
    await incr("post", id, { forwards: 2 });
    expect((await readCounts("post", [id], { env: chaosEnv })).counts[id]!.forwards).toBe(2); // cached, pending in Redis
    await chaos.setRedisDown(true);
    for (let i = 0; i < 3; i++) expect((await incr("post", id, { forwards: 1 })).status).toBe(200);
    await chaos.setRedisDown(false);
    await incr("post", id, { forwards: 10 });
    await flushThroughChaos();
    expect(await readCounts("post", [id], { env: chaosEnv })).toEqual({ stale: false, counts: { [id]: expect.objectContaining({ forwards: 15 }) } });
  });

  it("likes keep working and are counted", async () => {
    const author = newId();
    const post = await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "outage" } });
    const postId = post.body.id as string;
    await chaos.setRedisDown(true);
    const like = await api("PUT", `/v1/posts/${postId}/likes/me`, { as: { userId: newId() }, env: chaosEnv });
    expect(like.status, show(like)).toBe(200);
    await chaos.setRedisDown(false);
    await flushThroughChaos();
    expect((await readCounts("post", [postId], { env: chaosEnv })).counts[postId]!.likes).toBe(1);
  });

  it("a long outage costs each later increment one request: only the first ones are sent again for the window", async () => {
    const id = newId();
    await incr("user", id, { coins: 1 }); // a success: the client is not failing
    await chaos.setRedisDown(true);
    const first = await chaos.stats();
    expect((await incr("user", id, { coins: 1 })).status).toBe(200);
    const during = await chaos.stats();
    expect(during.requests - first.requests, "sent again while the database may come back").toBeGreaterThan(1);
    // Increments go on: each is sent again only for what is left of the window, then at once to Postgres.
    const costs: number[] = [];
    while (costs.at(-1) !== 1 && costs.length < 10) {
      const before = await chaos.stats();
      expect((await incr("user", id, { coins: 1 })).status).toBe(200);
      costs.push((await chaos.stats()).requests - before.requests);
    }
    expect(costs.at(-1), "failing for longer than the window: to Postgres at once").toBe(1);
    await chaos.setRedisDown(false);
    await flushThroughChaos();
    expect((await readCounts("user", [id], { env: chaosEnv })).counts[id]!.coins).toBe(2 + costs.length);
  });

  it("an increment with an Idempotency-Key answers 503 (only Redis can remember the key) and applies nothing", async () => {
    const id = newId();
    await chaos.setRedisDown(true);
    const res = await incr("user", id, { coins: 1 }, { "Idempotency-Key": `down-${newId()}` });
    expect(res.status, show(res)).toBe(503);
    await chaos.setRedisDown(false);
    expect((await readCounts("user", [id], { env: chaosEnv })).counts[id]!.coins).toBe(0);
  });
});

describe("when Redis ran an increment and its answer was lost", () => {
  // The server (or the link) died after running the script: a 503, as the bridge answers when its
  // connection closed under the command, or a dropped connection. Neither says whether it ran, so
  // the increment is sent again with its own call id and the script applies it once.
  for (const how of ["503", "drop"] as const) {
    it(`(${how}) it counts once and answers 200`, async () => {
      const id = newId();
      await incr("user", id, { coins: 1 });
      await readCounts("user", [id], { env: chaosEnv }); // cached: the increment rewrites the cached value too
      await chaos.loseAnswers(1, how);
      const res = await incr("user", id, { coins: 2 });
      expect(res.status, show(res)).toBe(200);
      expect(res.body.counts).toMatchObject({ coins: 3 });
      expect((await readCounts("user", [id], { env: chaosEnv })).counts[id]!.coins).toBe(3);
      await flushThroughChaos();
      expect((await readCounts("user", [id], { env: chaosEnv })).counts[id]!.coins).toBe(3);
      const { services, close } = servicesFor(chaosEnv);
      const rows = await queryRows<{ value: string }>(services.db, "SELECT value::text FROM counters WHERE entity = 'user' AND entity_id = $1 AND field = 'coins'", [id]);
      await close();
      expect(rows).toEqual([{ value: "3" }]);
    });

    it(`(${how}) with an Idempotency-Key it counts once and answers as a first answer`, async () => {
      const id = newId();
      await incr("user", id, { coins: 1 });
      await chaos.loseAnswers(1, how);
      const res = await incr("user", id, { coins: 2 }, { "Idempotency-Key": `lost-${newId()}` });
      expect(res.status, show(res)).toBe(200);
      expect(res.headers.get("Idempotent-Replayed")).toBeNull();
      await flushThroughChaos();
      expect((await readCounts("user", [id], { env: chaosEnv })).counts[id]!.coins).toBe(3);
    });
  }
});

describe("when Postgres is down", () => {
  it("increments buffer, cached reads keep working, the flush fails and a later one applies everything once", async () => {
    const id = newId();
    await incr("user", id, { coins: 1 });
    expect((await readCounts("user", [id], { env: chaosEnv })).counts[id]!.coins).toBe(1);
    await chaos.setPostgresDown(true);
    for (let i = 0; i < 3; i++) expect((await incr("user", id, { coins: 2 })).status).toBe(200);
    expect(await readCounts("user", [id], { env: chaosEnv })).toEqual({ stale: false, counts: { [id]: expect.objectContaining({ coins: 7 }) } });
    const { services, close } = servicesFor(chaosEnv);
    await expect(flushOnce(services)).rejects.toThrow();
    await close();
    await chaos.setPostgresDown(false);
    await flushThroughChaos();
    expect((await readCounts("user", [id], { env: chaosEnv })).counts[id]!.coins).toBe(7);
  });
});

describe("round trips", () => {
  async function roundTrips(call: () => Promise<unknown>) {
    const before = await chaos.stats();
    await call();
    const after = await chaos.stats();
    return { requests: after.requests - before.requests, commands: after.commands - before.commands };
  }

  it("an increment is one Redis round trip and one script, the counts it answers included", async () => {
    const id = newId();
    await incr("post", id, { views: 1 }); // loads the script (EVALSHA → EVAL once)
    await readCounts("post", [id], { env: chaosEnv }); // cached: the increment answers its counts
    let res: Awaited<ReturnType<typeof incr>> | undefined;
    expect(await roundTrips(async () => void (res = await incr("post", id, { views: 1, forwards: 2 })))).toEqual({ requests: 1, commands: 1 });
    expect(res!.body.counts).toMatchObject({ views: 2, forwards: 2 });
  });

  it("a read of 100 cached entities is one Redis round trip", async () => {
    const ids = Array.from({ length: 100 }, () => newId());
    await readCounts("user", ids, { env: chaosEnv }); // warms them
    expect(await roundTrips(() => readCounts("user", ids, { env: chaosEnv }))).toEqual({ requests: 1, commands: 1 });
  });

  it("a read of 100 uncached entities is one Redis call for the cache, then one to warm", async () => {
    const ids = Array.from({ length: 100 }, () => newId());
    await readCounts("user", [newId()], { env: chaosEnv }); // scripts loaded
    expect((await roundTrips(() => readCounts("user", ids, { env: chaosEnv }))).requests).toBe(2);
  });
});

describe("a failing script", () => {
  it("is a 500, not an outage: nothing is applied to Postgres behind Redis' back", async () => {
    const id = newId();
    // A cache key of the wrong type (a hash where the packed string belongs) makes the increment script fail inside Redis.
    await redisFor(env as unknown as Env).hset(counterKeys.cache("user", id), { coins: "1" });
    const res = await api("POST", `/v1/counters/user/${id}`, { as: service, body: { deltas: { coins: 1 } } });
    expect(res.status, show(res)).toBe(500);
    const { services, close } = servicesFor();
    const rows = await queryRows(services.db, "SELECT 1 FROM counter_stale_cache WHERE entity = 'user' AND entity_id = $1", [id]);
    await close();
    expect(rows).toEqual([]);
    await redisFor(env as unknown as Env).del(counterKeys.cache("user", id));
  });
});
