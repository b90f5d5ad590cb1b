/**
 * The Workers tests judge a request "for the primary" with the Worker's own rule (`writesData`,
 * src/lib/consistency.ts; test/support/redis-requests.ts). The local read region routes by the same
 * list (scripts/stack/near-region-bridge.ts). Every command a read path sends must be a read
 * to both, and a script sent as EVAL/EVALSHA a write to both, so what the tests assert is what the
 * far-region stack (and Upstash Global) does.
 */
import { describe, expect, it } from "vitest";
import { writesData } from "../../src/lib/consistency";
import { routeOf } from "../../scripts/stack/near-region-bridge.js";

/** What the read paths send: the SDK's command names, lower case. */
const READS = ["evalsha_ro", "eval_ro", "get", "mget", "hget", "hmget", "hgetall", "zrange", "zscore", "smembers", "exists", "pttl"];
const WRITES = ["evalsha", "eval", "set", "del", "hset", "zadd", "incr", "expire"];

describe("read routing: the Worker's rule and the read region's agree", () => {
  it.each(READS)("%s is answered by the region, alone and in a pipeline of reads", (name) => {
    expect(writesData([name, "k"])).toBe(false);
    expect(writesData([[name, "k"], ["hmget", "k", "f"]])).toBe(false);
    expect(routeOf([[name, "k"]])).toBe("replica");
    expect(routeOf([[name, "k"], ["hmget", "k", "f"]])).toBe("replica");
  });

  it.each(WRITES)("%s goes to the primary, and takes a pipeline of reads with it", (name) => {
    expect(writesData([name, "k"])).toBe(true);
    expect(writesData([["evalsha_ro", "sha", 0], [name, "k"]])).toBe(true);
    expect(routeOf([[name, "k"]])).toBe("primary");
    expect(routeOf([["evalsha_ro", "sha", 0], [name, "k"]])).toBe("primary");
  });
});
