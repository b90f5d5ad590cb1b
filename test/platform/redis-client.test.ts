import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { rawCommand, redisAt, redisFor } from "../../src/lib/redis";
import { createServices } from "../../src/lib/services";
import { createEventBus } from "../../src/lib/events";
import { databasesEnv, stackDatabases } from "../support/databases";
import { createChaos } from "../support/stack";

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

  it("answers one Script per source", async () => {
    const redis = redisFor(bindings);
    const source = `return ARGV[1] .. "${crypto.randomUUID()}"`;
    const script = redis.createScript<string>(source);
    // The same object for the same source: its SHA-1 is computed once per isolate, not per call.
    expect(redis.createScript(source)).toBe(script);
    expect(redis.createScript(source, { readonly: true })).not.toBe(script);
    // Read-only scripts (EVALSHA_RO) are kept too, apart from the others.
    const readOnly = redis.createScript<string, true>(source, { readonly: true });
    expect(redis.createScript(source, { readonly: true })).toBe(readOnly);
    expect(redis.createScript(source)).toBe(script);
    expect((await readOnly.exec([], ["r"]))[0]).toBe("r");
    // Each exec is still its own call, with its own arguments.
    const [a, b] = await Promise.all([script.exec([], ["a"]), redis.createScript<string>(source).exec([], ["b"])]);
    expect([a[0], b[0]]).toEqual(["a", "b"]);
  });

  it("asks for plain replies, and text of any script comes back as stored", async () => {
    const redis = redisFor(bindings);
    // No base64 round: the SDK would decode every string of every reply in the Worker.
    const requester = (redis as unknown as { client: { headers: Record<string, string> } }).client;
    expect(Object.keys(requester.headers).map((h) => h.toLowerCase())).not.toContain("upstash-encoding");
    const key = `test:plain-replies:${crypto.randomUUID()}`;
    const values = ["OK", "héllo wörld ✓ 🎉", JSON.stringify(["1", "ünïcode \"quoted\"", "2026-11-26T00:00:00Z"]), "3,0,1,0,0", ""];
    await redis.del(key);
    await redis.rpush(key, ...values);
    await redis.expire(key, 60);
    expect(await rawCommand(redis, ["LRANGE", key, 0, -1])).toEqual(values);
    const [, echoed] = (await redis.createScript<[number, string]>("return {1, redis.call('LINDEX', KEYS[1], 1)}").exec([key], [])) as [number, string];
    expect(echoed).toBe(values[1]);
    await redis.del(key);
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

  it("comes back to 16 at one database after a setting with several filled more", () => {
    const databases = stackDatabases();
    if (databases.length < 2) return; // the stack runs one database (TEST_REDIS_DATABASES=1)
    // Settings of several databases may keep 16 plus their databases: fill it that far.
    for (let i = 0; i < 16; i++) {
      const setting = { ...bindings, ...databasesEnv(databases.map((d) => ({ ...d, token: `${d.token}-${i}` }))) };
      for (let index = 0; index < databases.length; index++) redisAt(setting, index);
    }
    const credentials = Array.from({ length: 16 }, (_, i) => ({ ...bindings, UPSTASH_REDIS_REST_TOKEN: `after-${crypto.randomUUID()}-${i}` }));
    const clients = credentials.map((c) => redisFor(c));
    const oneMore = { ...bindings, UPSTASH_REDIS_REST_TOKEN: `after-${crypto.randomUUID()}` };
    redisFor(oneMore);
    // At one database the bound is 16 again: adding one more dropped the oldest of these.
    expect(redisFor(credentials[0]!)).not.toBe(clients[0]);
  });
});

describe("a request whose connection dropped after Redis ran it", () => {
  // The chaos bridge runs the command, then closes the connection without an answer: the client
  // cannot tell it from a request that never arrived.
  it("is sent again once when it only reads, never when it writes", async () => {
    const chaos = await createChaos();
    try {
      const redis = redisFor({ UPSTASH_REDIS_REST_URL: chaos.restUrl, UPSTASH_REDIS_REST_TOKEN: chaos.restToken });
      const key = `test:dropped:${crypto.randomUUID()}`;
      await redis.set(key, "0", { ex: 60 });

      await chaos.loseAnswers(1, "drop");
      await expect(redis.incr(key)).rejects.toThrow();
      expect(await redis.get(key), "the write ran once, and was not sent again").toBe(1);

      await chaos.loseAnswers(1, "drop");
      expect(await redis.get(key), "the read was sent again and answered").toBe(1);
      const before = (await chaos.stats()).requests;
      await chaos.loseAnswers(1, "drop");
      await expect(redis.pipeline().get(key).incr(key).exec()).rejects.toThrow();
      expect((await chaos.stats()).requests - before, "a pipeline with a write is not sent again").toBe(1);
      await redis.del(key);
    } finally {
      await chaos.close();
    }
  });
});
