import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { redisFor } from "../../src/lib/redis";
import { createServices } from "../../src/lib/services";
import { createEventBus } from "../../src/lib/events";

const bindings = env as unknown as Env;
const noWaitUntil = { waitUntil: () => {} };

describe("the isolate's Upstash client", () => {
  it("is built once and shared by every request's services", async () => {
    const first = createServices(bindings, noWaitUntil, createEventBus([]));
    const second = createServices(bindings, noWaitUntil, createEventBus([]));
    expect(first.services.redis).toBe(second.services.redis);
    expect(first.services.redis).toBe(redisFor(bindings));
    // Shared, it still answers each caller its own command.
    const key = `test:shared-client:${crypto.randomUUID()}`;
    await first.services.redis.set(key, "1", { ex: 60 });
    const [a, b] = await Promise.all([first.services.redis.incr(key), second.services.redis.incr(key)]);
    expect([a, b].sort()).toEqual([2, 3]);
    await first.services.redis.del(key);
  });

  it("is one per URL and token", () => {
    const other = { ...bindings, UPSTASH_REDIS_REST_TOKEN: "another-token" };
    expect(redisFor(other)).not.toBe(redisFor(bindings));
    expect(redisFor({ ...other })).toBe(redisFor(other));
  });

  it("keeps at most 16, dropping the oldest", () => {
    const credentials = Array.from({ length: 17 }, (_, i) => ({ ...bindings, UPSTASH_REDIS_REST_TOKEN: `bounded-${crypto.randomUUID()}-${i}` }));
    const clients = credentials.map((c) => redisFor(c));
    // The 16 newest are still the same objects; the first was dropped and is built anew.
    expect(credentials.slice(1).every((c, i) => redisFor(c) === clients[i + 1])).toBe(true);
    expect(redisFor(credentials[0]!)).not.toBe(clients[0]);
  });
});
