/**
 * The slot rule and the setting of several Redis databases (`src/lib/redis-topology.ts`), in Node:
 * the same module the Worker and its Durable Objects run, so a script computes the same database.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { crc16, databaseOf, groupByDatabase, settleEach, SLOT_COUNT, slotOf, topologyOf, TopologyError } from "../../src/lib/redis-topology";
import { newId } from "../support/ids";

// ioredis' own slot function (Redis Cluster: CRC16 mod 16,384), a dependency of the stack's bridge.
const clusterKeySlot = createRequire(import.meta.url)("cluster-key-slot") as (key: string) => number;

describe("slotOf", () => {
  it("is CRC16-CCITT (XMODEM) of the decimal id, as Redis Cluster computes it, mod 1024", () => {
    expect(crc16("123456789")).toBe(0x31c3); // the published check value
    expect(SLOT_COUNT).toBe(1024);
    for (let i = 0; i < 2_000; i++) {
      const id = newId();
      expect(slotOf(id), id).toBe(clusterKeySlot(id) % 1024);
    }
  });

  it("spreads ids evenly over the databases (slot mod N)", () => {
    const ids = Array.from({ length: 30_000 }, () => newId());
    for (const n of [2, 3, 4]) {
      const sizes = [...groupByDatabase(ids, (id) => id, n).values()].map((g) => g.length);
      expect(sizes.length).toBe(n);
      for (const size of sizes) expect(Math.abs(size - ids.length / n) / (ids.length / n), `N = ${n}: ${sizes}`).toBeLessThan(0.05);
    }
    expect(databaseOf("42", 1)).toBe(0);
    expect(databaseOf("42", 3)).toBe(slotOf("42") % 3);
  });
});

describe("topologyOf", () => {
  const db = (i: number) => ({ url: `https://db${i}.example.com`, token: `t${i}` });

  it("is the one database of UPSTASH_REDIS_REST_URL when UPSTASH_REDIS_DATABASES is unset or empty", () => {
    for (const raw of [undefined, "", "  "]) {
      expect(topologyOf({ UPSTASH_REDIS_REST_URL: "https://one", UPSTASH_REDIS_REST_TOKEN: "t", UPSTASH_REDIS_DATABASES: raw })).toMatchObject({
        n: 1,
        databases: [{ url: "https://one", token: "t" }],
      });
    }
  });

  it("reads N databases in order, database 0 first", () => {
    const topology = topologyOf({ UPSTASH_REDIS_REST_URL: db(0).url, UPSTASH_REDIS_DATABASES: JSON.stringify([db(0), db(1), db(2)]) });
    expect(topology.n).toBe(3);
    expect(topology.databases).toEqual([db(0), db(1), db(2)]);
  });

  it.each([
    ["bad JSON", "[{", /not valid JSON/],
    ["not an array", '{"url":"https://x"}', /non-empty JSON array/],
    ["an empty array", "[]", /non-empty JSON array/],
    ["a missing token", JSON.stringify([db(0), { url: "https://db1.example.com" }]), /UPSTASH_REDIS_DATABASES\[1\]\.token is missing/],
    ["a URL that is not http(s)", JSON.stringify([db(0), { url: "redis://x", token: "t" }]), /UPSTASH_REDIS_DATABASES\[1\]\.url must be an http\(s\) URL/],
    ["one URL twice", JSON.stringify([db(0), db(0)]), /names one URL twice/],
  ])("refuses %s with a TopologyError naming it", (_name, raw, message) => {
    const read = () => topologyOf({ UPSTASH_REDIS_DATABASES: raw });
    expect(read).toThrow(TopologyError);
    expect(read).toThrow(message);
  });

  it("refuses UPSTASH_REDIS_REST_URL naming another database than database 0", () => {
    expect(() => topologyOf({ UPSTASH_REDIS_REST_URL: db(1).url, UPSTASH_REDIS_DATABASES: JSON.stringify([db(0), db(1)]) })).toThrow(
      /UPSTASH_REDIS_REST_URL names another database than UPSTASH_REDIS_DATABASES\[0\]/,
    );
  });
});

describe("settleEach", () => {
  it("runs at most 6 at once and settles every entry, failures included", async () => {
    let running = 0;
    let most = 0;
    const results = await settleEach(
      Array.from({ length: 10 }, (_, i) => [i, i] as [number, number]),
      async (i) => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (i === 3) throw new Error("database 3 is down");
        return i * 2;
      },
    );
    expect(most).toBe(6);
    expect(results.size).toBe(10);
    expect(results.get(3)).toMatchObject({ status: "rejected" });
    expect(results.get(9)).toEqual({ status: "fulfilled", value: 18 });
  });
});
