/**
 * The far-region stack's pieces on their own (scripts/stack/far-region.ts): the delaying link, and
 * a read region (replica behind that link, near-region bridge) proven with the real
 * `@upstash/redis` client, whose `readYourWrites` carries the `upstash-sync-token` as in production.
 * Only lower bounds on time are asserted: the machine is shared and slow at times.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "@upstash/redis";
import type { Redis as RedisConnection } from "ioredis";
import { createServer, connect, type AddressInfo, type Server } from "node:net";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { startDelayingProxy } from "../../scripts/stack/delaying-proxy.js";
import type { ReadRegion } from "../../scripts/stack/far-region.js";
import { STATS_PATH, type UpstashBridge } from "../../scripts/stack/upstash-bridge.js";
import { routeOf, SYNC_TOKEN_HEADER } from "../../scripts/stack/near-region-bridge.js";
import { startRegionWithPrimary, type RegionWithPrimary } from "../support/read-region";

const key = (name: string) => `test:far:${randomBytes(4).toString("hex")}:${name}`;

describe("delaying proxy", () => {
  let echo: Server;
  /** When the echo server saw its first byte (one way through the proxy). */
  let echoFirstByteAt = 0;
  beforeAll(async () => {
    echo = createServer((socket) => {
      socket.once("data", () => (echoFirstByteAt = performance.now()));
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  it("delays each direction by delayMs and delivers every byte in order, megabytes included", async () => {
    const delayMs = 60;
    const proxy = await startDelayingProxy({ targetHost: "127.0.0.1", targetPort: (echo.address() as AddressInfo).port, delayMs });
    try {
      const socket = connect(proxy.port, "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", resolve));
      // Many small writes, then a large one (past the back-pressure mark): all echoed, in order.
      const parts = [...Array.from({ length: 200 }, (_, i) => Buffer.from(`chunk ${i};`)), randomBytes(6 * 1024 * 1024)];
      const sent = Buffer.concat(parts);
      const received: Buffer[] = [];
      let firstByteAt = 0;
      const startedAt = performance.now();
      const done = new Promise<void>((resolve) => {
        let size = 0;
        socket.on("data", (chunk: Buffer) => {
          firstByteAt ||= performance.now();
          received.push(chunk);
          size += chunk.length;
          if (size >= sent.length) resolve();
        });
      });
      for (const part of parts) socket.write(part);
      await done;
      socket.destroy();
      expect(echoFirstByteAt - startedAt).toBeGreaterThanOrEqual(delayMs - 1); // one way
      expect(firstByteAt - startedAt).toBeGreaterThanOrEqual(2 * delayMs - 1); // there and back
      expect(Buffer.concat(received).equals(sent)).toBe(true);
    } finally {
      await proxy.close();
    }
  });
});

describe("read region of a database, 200 ms from its primary", () => {
  const FAR_MS = 200;
  /** The replication link lags this much more than the answers' way back, so a tokenless read misses. */
  const REPLICATION_LAG_MS = 60;
  let world: RegionWithPrimary;
  let primaryBridge: UpstashBridge;
  let region: ReadRegion;
  let primaryServer: RedisConnection;
  let replicaServer: RedisConnection;
  /** The real client as a far Worker has it: read-your-writes on (its default). */
  let client: Redis;

  beforeAll(async () => {
    world = await startRegionWithPrimary({ name: "far-region test primary", token: "far-region-token", farRoundTripMs: FAR_MS, syncTimeoutMs: 1_500, replicationLagMs: REPLICATION_LAG_MS });
    ({ primaryBridge, region, primaryServer, replicaServer } = world);
    client = new Redis({ url: region.restUrl, token: primaryBridge.token, enableAutoPipelining: false });
  }, 60_000);
  afterAll(() => world?.stop());

  it("a write followed by a token-carrying read sees the write, every time (50 pairs)", async () => {
    const k = key("ryw");
    const missed: number[] = [];
    region.near.resetStats();
    for (let i = 0; i < 50; i++) {
      await client.set(k, i);
      if ((await client.get<number>(k)) !== i) missed.push(i);
    }
    expect(missed).toEqual([]);
    // The token did the work: reads arrived before the replica had the write, and waited for it.
    expect(region.near.stats.waitedForToken).toBeGreaterThan(0);
  }, 60_000);

  it("without the token a read can miss the write (the same pairs)", async () => {
    const tokenless = new Redis({ url: region.restUrl, token: primaryBridge.token, readYourWrites: false, enableAutoPipelining: false });
    const k = key("tokenless");
    let missed = 0;
    for (let i = 0; i < 20; i++) {
      await tokenless.set(k, i);
      if ((await tokenless.get<number>(k)) !== i) missed += 1;
    }
    expect(missed).toBeGreaterThan(0);
  }, 60_000);

  it("without the token a read misses the write while the replica has not received it", async () => {
    const tokenless = new Redis({ url: region.restUrl, token: primaryBridge.token, readYourWrites: false, enableAutoPipelining: false });
    const k = key("stale");
    await tokenless.set(k, "before");
    await expect.poll(() => replicaServer.get(k)).toBe("before");
    region.link.hold(true);
    try {
      await tokenless.set(k, "after");
      expect(await tokenless.get(k)).toBe("before");
    } finally {
      region.link.hold(false);
    }
    await expect.poll(() => tokenless.get(k)).toBe("after");
  });

  it("a token-carrying read waits for the replica; past the bound it fails clearly, then succeeds once the link moves", async () => {
    const k = key("wait");
    await client.set(k, "v1");
    region.link.hold(true);
    let released = false;
    try {
      await client.set(k, "v2");
      const token = client.readYourWritesSyncToken!;
      await expect(client.get(k)).rejects.toThrow(/upstash-sync-token not reached: .* gave up after 1500 ms/);
      // A read issued while the link is stalled answers once it moves again, with the write.
      const read = fetchGet(k, token);
      setTimeout(() => {
        released = true;
        region.link.hold(false);
      }, 300);
      const answer = await read;
      expect(released).toBe(true);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ result: "v2" });
      // The region answers where it is now: at least the write (the primary's replication pings,
      // every 10 s, move the offset on while nothing else happens).
      const [replId, offset] = answer.headers.get(SYNC_TOKEN_HEADER)!.split(":");
      const [sentReplId, sentOffset] = token.split(":");
      expect(replId).toBe(sentReplId);
      expect(Number(offset)).toBeGreaterThanOrEqual(Number(sentOffset));
    } finally {
      region.link.hold(false);
    }
  }, 30_000);

  it("refuses a malformed token (400) and takes an empty one as none", async () => {
    const k = key("malformed");
    for (const bad of ["nope", "0123:12", `${"a".repeat(40)}:-1`]) {
      const answer = await fetchGet(k, bad);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toMatch(/malformed upstash-sync-token/);
    }
    const empty = await fetchGet(k, "");
    expect(empty.status).toBe(200);
    expect(empty.headers.get(SYNC_TOKEN_HEADER)).toMatch(/^[0-9a-f]{40}:\d+$/);
  });

  it("reads and read-only scripts run on the replica; writes, EVAL, EVALSHA and SCRIPT LOAD on the primary", async () => {
    const k = key("route");
    const tokenless = new Redis({ url: region.restUrl, token: primaryBridge.token, readYourWrites: false, enableAutoPipelining: false });
    await Promise.all([primaryServer.config("RESETSTAT"), replicaServer.config("RESETSTAT")]);
    region.near.resetStats();
    await tokenless.set(k, "x");
    await tokenless.get(k);
    await tokenless.eval("return redis.call('GET', KEYS[1])", [k], []);
    const sha = await tokenless.scriptLoad("#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])");
    await tokenless.evalsha(sha, [k], []);
    await tokenless.evalshaRo(sha, [k], []);
    // A pipeline with one write goes whole to the primary.
    await tokenless.pipeline().get(k).incr(key("counter")).exec();
    const [onPrimary, onReplica] = await Promise.all([calls(primaryServer), calls(replicaServer)]);
    // The scripts' own GETs count too: EVAL's and EVALSHA's on the primary, EVALSHA_RO's on the replica.
    expect(onPrimary).toMatchObject({ set: 1, eval: 1, evalsha: 1, "script|load": 1, get: 3, incr: 1 });
    expect(onPrimary.evalsha_ro).toBeUndefined();
    // SCRIPT LOAD is also run on the replica (Redis 7 does not replicate scripts), so EVALSHA_RO finds it.
    expect(onReplica).toMatchObject({ get: 2, evalsha_ro: 1, "script|load": 1 });
    expect(onReplica.eval).toBeUndefined();
    expect(onReplica.evalsha).toBeUndefined();
    // The region's own counts, where `npm run load` reads a bridge's: 7 requests, 8 commands, 2 stayed near.
    const stats = await fetch(`${region.restUrl}${STATS_PATH}`, { headers: { authorization: `Bearer ${primaryBridge.token}` } });
    expect(await stats.json()).toMatchObject({ requests: 7, commands: 8, byPath: { "/": 6, "/pipeline": 1 }, replica: 2, primary: 5 });
  });

  it("routes by the rule: only all-read requests stay in the region", () => {
    expect(routeOf([["get", "k"]])).toBe("replica");
    expect(routeOf([["EVALSHA_RO", "sha", 0]])).toBe("replica");
    expect(routeOf([["GET", "k"], ["ZRANGE", "z", 0, -1]])).toBe("replica");
    expect(routeOf([["GET", "k"], ["SET", "k", "v"]])).toBe("primary");
    expect(routeOf([["EVALSHA", "sha", 0]])).toBe("primary");
    expect(routeOf([["SCRIPT", "LOAD", "return 1"]])).toBe("primary");
  });

  /** GET through the near bridge by hand, with exactly this sync token header. */
  function fetchGet(k: string, token: string): Promise<Response> {
    return fetch(region.restUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${primaryBridge.token}`, [SYNC_TOKEN_HEADER]: token },
      body: JSON.stringify(["GET", k]),
    });
  }
});

/** Calls per command a server ran since its stats were reset (INFO commandstats). */
async function calls(server: RedisConnection): Promise<Record<string, number>> {
  const stats = await server.info("commandstats");
  return Object.fromEntries([...stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
}
