/**
 * The Upstash bridge, proven with the REAL `@upstash/redis` client on default
 * options (base64 responses, auto-pipelining) against a real Redis.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { Redis } from "@upstash/redis";
import { randomBytes } from "node:crypto";
import { startUpstashBridge, type UpstashBridge } from "../../scripts/stack/upstash-bridge.js";
import { hasRedisServerBinary, startRedis } from "../../scripts/stack/redis.js";
import { countRounds } from "../../scripts/bench/rounds.js";

/** Each test works under its own key prefix, so parallel files never collide. */
const key = (name: string) => `test:bridge:${randomBytes(4).toString("hex")}:${name}`;

let bridge: UpstashBridge;
let redis: Redis;

beforeAll(async () => {
  // A bridge of our own (same Redis as the stack) so stats and outages are ours alone.
  bridge = await startUpstashBridge({ redisUrl: inject("redisUrl"), token: "bridge-test-token" });
  redis = new Redis({ url: bridge.url, token: bridge.token });
});
afterAll(() => bridge.close());
beforeEach(() => {
  bridge.setDown(false);
  bridge.resetStats();
});

describe("commands through the real client", () => {
  it("strings: SET with EX, GET, INCR, MGET and a missing key", async () => {
    const a = key("a");
    const b = key("b");
    expect(await redis.set(a, "hello", { ex: 60 })).toBe("OK");
    expect(await redis.get(a)).toBe("hello");
    expect(await redis.ttl(a)).toBeGreaterThan(0);
    expect(await redis.incr(b)).toBe(1);
    expect(await redis.incrby(b, 41)).toBe(42);
    expect(await redis.mget(a, b, key("missing"))).toEqual(["hello", 42, null]);
    expect(await redis.get(key("missing"))).toBeNull();
  });

  it("hashes: HSET, HGET, HINCRBY, HGETALL", async () => {
    const h = key("hash");
    expect(await redis.hset(h, { name: "ada", likes: 3 })).toBe(2);
    expect(await redis.hincrby(h, "likes", 2)).toBe(5);
    expect(await redis.hget(h, "name")).toBe("ada");
    expect(await redis.hgetall(h)).toEqual({ name: "ada", likes: 5 });
    expect(await redis.hgetall(key("nohash"))).toBeNull();
  });

  it("sorted sets: ZADD, ZINCRBY, ZRANGE with scores, reversed", async () => {
    const z = key("zset");
    expect(await redis.zadd(z, { score: 1, member: "a" }, { score: 3, member: "c" }, { score: 2, member: "b" })).toBe(3);
    expect(await redis.zincrby(z, 10, "a")).toBe(11);
    expect(await redis.zrange(z, 0, -1, { rev: true })).toEqual(["a", "c", "b"]);
    expect(await redis.zrange(z, 0, 0, { withScores: true })).toEqual(["b", 2]);
    expect(await redis.zcard(z)).toBe(3);
  });

  it("unicode and JSON values round-trip through base64", async () => {
    const k = key("unicode");
    const value = "héllo 🌍 — 你好 \u0000 end";
    await redis.set(k, value);
    expect(await redis.get(k)).toBe(value);
    await redis.set(k, { nested: ["ü", 1, null] });
    expect(await redis.get(k)).toEqual({ nested: ["ü", 1, null] });
  });

  it("binary replies are base64 of the exact bytes (not UTF-8 mangled)", async () => {
    const k = key("binary");
    await redis.setbit(k, 0, 1); // the single byte 0x80: not valid UTF-8
    const res = await fetch(bridge.url, {
      method: "POST",
      headers: { authorization: `Bearer ${bridge.token}`, "upstash-encoding": "base64" },
      body: JSON.stringify(["GET", k]),
    });
    expect(await res.json()).toEqual({ result: Buffer.from([0x80]).toString("base64") });
  });

  it("plain JSON when no encoding header, with `result` present even when null", async () => {
    const res = await fetch(bridge.url, {
      method: "POST",
      headers: { authorization: `Bearer ${bridge.token}` },
      body: JSON.stringify(["GET", key("none")]),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"result":null}');
  });
});

describe("pipelines and transactions", () => {
  it("an explicit pipeline is one /pipeline request, non-atomic, errors per command", async () => {
    const k = key("p");
    const results = await redis.pipeline().set(k, "x").incr(k).get(k).exec({ keepErrors: true });
    expect(results.map((r) => r.error ?? r.result)).toEqual(["OK", expect.stringContaining("not an integer"), "x"]);
    expect(bridge.stats.byPath).toEqual({ "/": 0, "/pipeline": 1, "/multi-exec": 0 });
    expect(bridge.stats.commands).toBe(3);
  });

  it("auto-pipelining sends commands issued together as one request", async () => {
    const [a, b, c] = await Promise.all([redis.incr(key("x")), redis.incr(key("y")), redis.incrby(key("z"), 5)]);
    expect([a, b, c]).toEqual([1, 1, 5]);
    expect(bridge.stats.requests).toBe(1);
    expect(bridge.stats.commands).toBe(3);
  });

  it("multi-exec runs atomically and answers each command", async () => {
    const k = key("tx");
    expect(await redis.multi().set(k, 1).incr(k).incr(k).exec()).toEqual(["OK", 2, 3]);
    expect(bridge.stats.byPath["/multi-exec"]).toBe(1);
  });

  it("a transaction discarded at queue time answers one error and changes nothing", async () => {
    const k = key("discarded");
    const tx = redis.multi().set(k, "should-not-exist").del();
    await expect(tx.exec()).rejects.toThrow(/wrong number of arguments/);
    expect(await redis.exists(k)).toBe(0);
  });
});

describe("scripts", () => {
  it("createScript().exec falls back from EVALSHA to EVAL on a cold cache, then hits", async () => {
    // A unique comment makes the SHA unknown to Redis: a genuinely cold script cache.
    const script = redis.createScript<[string, string]>(
      `-- ${randomBytes(8).toString("hex")}\nredis.call("SET", KEYS[1], ARGV[1]) return {KEYS[1], redis.call("GET", KEYS[1])}`,
    );
    const k = key("script");
    expect(await script.exec([k], ["v1"])).toEqual([k, "v1"]);
    expect(bridge.stats.requests).toBe(2); // EVALSHA → NOSCRIPT, then EVAL
    bridge.resetStats();
    expect(await script.exec([k], ["v2"])).toEqual([k, "v2"]);
    expect(bridge.stats.requests).toBe(1); // EVALSHA alone now
  });

  it("NOSCRIPT is Redis' own error, answered 400", async () => {
    const res = await fetch(bridge.url, {
      method: "POST",
      headers: { authorization: `Bearer ${bridge.token}` },
      body: JSON.stringify(["EVALSHA", "0".repeat(40), 0]),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^NOSCRIPT/);
  });
});

describe("errors", () => {
  it("a bad token answers 401 JSON and the client throws", async () => {
    const res = await fetch(bridge.url, { method: "POST", body: JSON.stringify(["PING"]) });
    expect(res.status).toBe(401);
    expect(await res.json()).toHaveProperty("error");
    const wrong = new Redis({ url: bridge.url, token: "wrong", enableAutoPipelining: false });
    await expect(wrong.ping()).rejects.toThrow(/Unauthorized/);
  });

  it("a failing command answers 400 and the client throws Redis' message", async () => {
    const h = key("wrongtype");
    await redis.hset(h, { a: 1 });
    await expect(redis.incr(h)).rejects.toThrow(/WRONGTYPE/);
    const res = await fetch(bridge.url, {
      method: "POST",
      headers: { authorization: `Bearer ${bridge.token}` },
      body: JSON.stringify(["INCR", h]),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^WRONGTYPE/);
  });

  it("stats count every request and command that arrives", async () => {
    await redis.set(key("s"), 1);
    await redis.pipeline().get(key("s")).get(key("t")).exec();
    expect(bridge.stats).toEqual({ requests: 2, commands: 3, byPath: { "/": 0, "/pipeline": 2, "/multi-exec": 0 }, syncTokens: expect.any(Array), upkeep: { requests: 0, commands: 0 } });
  });

  it("answers a growing upstash-sync-token, as Upstash does, and keeps the ones requests send", async () => {
    const send = (syncToken?: string) =>
      fetch(bridge.url, {
        method: "POST",
        headers: { authorization: `Bearer ${bridge.token}`, ...(syncToken === undefined ? {} : { "upstash-sync-token": syncToken }) },
        body: JSON.stringify(["SET", key("sync"), "1"]),
      });
    const first = (await send()).headers.get("upstash-sync-token");
    const second = await send(first!);
    expect(second.status).toBe(200);
    const [a, b] = [first, second.headers.get("upstash-sync-token")].map((t) => Number(/^local:(\d+)$/.exec(t ?? "")?.[1]));
    expect(b).toBeGreaterThan(a!);
    expect(bridge.stats.syncTokens.at(-1)).toBe(first);
    await send("");
    expect(bridge.stats.syncTokens.at(-1), "an empty token is none").toBe(first);
  });

  it("setDown makes the client throw fast, and service resumes after", async () => {
    bridge.setDown(true);
    const started = Date.now();
    await expect(redis.get(key("down"))).rejects.toThrow(/down/);
    expect(Date.now() - started).toBeLessThan(1_000);
    bridge.setDown(false);
    expect(await redis.get(key("down"))).toBeNull();
  });
});

describe.skipIf(!hasRedisServerBinary())("when the Redis behind it restarts", () => {
  it("answers 503 fast while Redis is away, then recovers by itself", async () => {
    const ownRedis = await startRedis({ ignoreEnv: true }); // never restart the shared one
    const ownBridge = await startUpstashBridge({ redisUrl: ownRedis.url, token: "restart" });
    const client = new Redis({ url: ownBridge.url, token: "restart", enableAutoPipelining: false });
    try {
      await client.set("k", "before");
      await ownRedis.stop();
      const started = Date.now();
      const res = await fetch(ownBridge.url, {
        method: "POST",
        headers: { authorization: "Bearer restart" },
        body: JSON.stringify(["GET", "k"]),
      });
      expect(res.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(1_000);

      await ownRedis.restart();
      await ownBridge.waitUntilConnected();
      expect(await client.get("k")).toBeNull(); // a new, empty server (no persistence)
      expect(await client.set("k", "after")).toBe("OK");
    } finally {
      await ownBridge.close();
      await ownRedis.stop();
    }
  });
});

describe("a command budget (--max-commands-per-second)", () => {
  it("refuses what does not fit in the current second as Upstash does, runs nothing of it, and serves again the next second", async () => {
    const limited = await startUpstashBridge({ redisUrl: inject("redisUrl"), token: "budget", maxCommandsPerSecond: 5 });
    const client = new Redis({ url: limited.url, token: "budget", enableAutoPipelining: false });
    const k = key("budget");
    try {
      // Start at the beginning of a second, so the whole test fits in one window.
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      const p = client.pipeline();
      for (let i = 0; i < 4; i++) p.incr(k);
      expect(await p.exec()).toEqual([1, 2, 3, 4]); // 4 of 5
      const over = client.pipeline();
      over.incr(k).incr(k);
      await expect(over.exec()).rejects.toThrow(/^ERR max requests limit exceeded\. Limit: 5, Usage: 4\./);
      const res = await fetch(limited.url, { method: "POST", headers: { authorization: "Bearer budget" }, body: JSON.stringify(["INCR", k]) });
      expect(res.status).toBe(200); // the 5th command still fits
      const refused = await fetch(limited.url, { method: "POST", headers: { authorization: "Bearer budget" }, body: JSON.stringify(["INCR", k]) });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toMatch(/^ERR max requests limit exceeded\. Limit: 5, Usage: 5\. See https:\/\/upstash\.com\//);
      expect(limited.rateLimited).toBe(2);
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      expect(await client.get(k)).toBe(5); // nothing of the refused requests ran
    } finally {
      await limited.close();
    }
  });

  it.skipIf(!hasRedisServerBinary())("metered at the server, counts a script's own commands as Upstash does, and refuses once the second's count is reached", async () => {
    const ownRedis = await startRedis({ ignoreEnv: true }); // the meter counts everything its server runs
    const metered = await startUpstashBridge({ redisUrl: ownRedis.url, token: "meter", maxCommandsPerSecond: 10, budgetMeter: "server" });
    const client = new Redis({ url: metered.url, token: "meter", enableAutoPipelining: false });
    const k = key("meter");
    try {
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      // One request: EVAL, twelve INCRs and a GET inside: 14 commands, past the budget of 10.
      expect(await client.eval("for i = 1, 12 do redis.call('INCR', KEYS[1]) end return redis.call('GET', KEYS[1])", [k], [])).toBe(12);
      await new Promise((r) => setTimeout(r, 30)); // past the meter's refresh
      await expect(client.get(k)).rejects.toThrow(/^ERR max requests limit exceeded\. Limit: 10, Usage: 14\./);
      expect(metered.rateLimited).toBe(1);
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      expect(await client.get(k)).toBe(12); // a new second: served again
    } finally {
      await metered.close();
      await ownRedis.stop();
    }
  });

  it("can be set, changed and lifted while the bridge runs", async () => {
    const own = await startUpstashBridge({ redisUrl: inject("redisUrl"), token: "budget-later" });
    const send = () => fetch(own.url, { method: "POST", headers: { authorization: "Bearer budget-later" }, body: JSON.stringify(["INCR", key("later")]) });
    try {
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      expect((await send()).status).toBe(200); // no budget yet
      own.setMaxCommandsPerSecond(2);
      expect((await send()).status).toBe(200);
      expect((await send()).status).toBe(200);
      expect((await send()).status).toBe(400); // the third of this second since the budget was set
      expect(own.rateLimited).toBe(1);
      own.setMaxCommandsPerSecond(undefined);
      expect((await send()).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it("is off by default", async () => {
    const p = redis.pipeline();
    for (let i = 0; i < 50; i++) p.incr(key("nobudget"));
    expect((await p.exec()).length).toBe(50);
    expect(bridge.rateLimited).toBe(0);
  });
});

describe("request spans (rounds counted from outside)", () => {
  it("records each request's arrival and answer while tracing; parallel requests are one round, a later one another", async () => {
    const send = () => fetch(bridge.url, { method: "POST", headers: { authorization: `Bearer ${bridge.token}` }, body: JSON.stringify(["INCR", key("span")]) });
    await send(); // not traced
    const stop = bridge.trace();
    // A BLPOP of a list nobody fills holds the bridge's one Redis connection for 0.1 s, and the
    // others queue behind it: the three requests are in flight together whatever the scheduling.
    const slow = () => fetch(bridge.url, { method: "POST", headers: { authorization: `Bearer ${bridge.token}` }, body: JSON.stringify(["BLPOP", key("never"), "0.1"]) });
    await Promise.all([slow(), slow(), slow()]);
    await send();
    const spans = stop();
    await send(); // after the trace stopped: not recorded
    expect(spans).toHaveLength(4);
    for (const span of spans) expect(span.end).toBeGreaterThanOrEqual(span.start);
    expect(countRounds(spans)).toBe(2);
    expect(bridge.trace()()).toEqual([]);
  });

  it("countRounds groups overlapping spans, an unanswered span overlapping every later one", () => {
    expect(countRounds([])).toBe(0);
    expect(countRounds([{ start: 0, end: 10 }, { start: 5, end: 20 }, { start: 15, end: 30 }])).toBe(1); // a chain of overlaps
    expect(countRounds([{ start: 40, end: 50 }, { start: 0, end: 10 }, { start: 11, end: 12 }])).toBe(3); // order of arrival, not of the list
    expect(countRounds([{ start: 0, end: Number.NaN }, { start: 100, end: 110 }])).toBe(1);
  });
});

describe("upkeep keys (the test stack's isolates' admission copies)", () => {
  it("counts a request whose every command touches only upkeep keys apart, and every other request as before", async () => {
    const up = key("upkeep");
    const other = key("other");
    const own = await startUpstashBridge({ redisUrl: inject("redisUrl"), token: "upkeep", upkeepKeys: [up] });
    const client = new Redis({ url: own.url, token: "upkeep", enableAutoPipelining: false });
    try {
      await client.hkeys(up); // alone: upkeep
      await client.eval("return redis.call('EXISTS', KEYS[1])", [up], []); // a script whose first key is one: upkeep
      const mixed = client.pipeline();
      mixed.get(up).get(other);
      await mixed.exec(); // with another key: counted
      await client.get(other);
      expect({ requests: own.stats.requests, commands: own.stats.commands, byPath: own.stats.byPath, upkeep: own.stats.upkeep }).toEqual({
        requests: 2,
        commands: 3,
        byPath: { "/": 1, "/pipeline": 1, "/multi-exec": 0 },
        upkeep: { requests: 2, commands: 2 },
      });
    } finally {
      await own.close();
    }
  });
});
