/**
 * The tests' recorder of Upstash requests (test/support/redis-requests.ts) counts what a call sends,
 * and leaves out only the isolate's own upkeep: the deleting-users snapshot refresh that any
 * authenticated call may start in the background once the snapshot is 2.5 s old.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { accountKeys } from "../../src/accounts/keys";
import { redisFor } from "../../src/lib/redis";
import { commandNames, recordRedisRequests } from "../support/redis-requests";

const redis = redisFor(env as unknown as Env);

describe("the Upstash request recorder", () => {
  it("passes the deleting-users snapshot refresh through unrecorded, and records every other request", async () => {
    const other = `test:recorder:${crypto.randomUUID()}`;
    const { result, requests } = await recordRedisRequests(async () => {
      const snapshot = await redis.hkeys(accountKeys.deleting());
      await redis.hkeys(other);
      await redis.hset(other, { a: "1" });
      await redis.del(other);
      return snapshot;
    });
    expect(Array.isArray(result), "the refresh itself was answered").toBe(true);
    expect(commandNames(requests)).toEqual(["/ hkeys", "/ hset", "/ del"]);
    expect(requests[0]!.commands[0]).toEqual(["hkeys", other]);
  });
});
