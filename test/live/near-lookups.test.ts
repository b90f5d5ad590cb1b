/**
 * Live-room follow lookups with read regions (`REDIS_READ_REGIONS` on): a room's fan lookups are
 * plain HMGETs (one, or one pipeline of them for a burst), which a Global database's nearest
 * region answers; a join that finds the viewer's follow cache missing is answered by Postgres and
 * rebuilds the cache on the primary after the answer. Requests recorded as the code sends them
 * (test/support/redis-requests.ts).
 */
import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { badgeKeys, BUILT } from "../../src/badges/keys";
import type { Env } from "../../src/env";
import { FanLookups } from "../../src/live/fan-lookups";
import { resolveFan } from "../../src/live/rooms";
import { redisAt, redisFor } from "../../src/lib/redis";
import type { Services } from "../../src/lib/services";
import { servicesFor } from "../counters/support";
import { newId } from "../support/api";
import { commandNames, recordRedisRequests } from "../support/redis-requests";
import { follow } from "./helpers";

const near = { ...(env as unknown as Env), REDIS_READ_REGIONS: "on" };
const redis = redisFor(env as unknown as Env);
const { services, close } = servicesFor({ REDIS_READ_REGIONS: "on" });
afterAll(() => close());

describe("live follow lookups with read regions", () => {
  it("a lookup is one HMGET and a burst one pipeline of HMGETs: nothing for the primary", async () => {
    const host = newId();
    const viewers = [newId(), newId(), newId(), newId()];
    await follow(viewers[0]!, host);
    const lookups = new FanLookups(() => ({ n: 1, redisAt: (index) => redisAt(near, index) }));
    const one = await recordRedisRequests(() => lookups.lookup(viewers[0]!, host));
    expect(["follows", "missing"]).toContain(one.result);
    const burst = await recordRedisRequests(() => Promise.all(viewers.map((v) => lookups.lookup(v, host))));
    expect(burst.result.every((state) => state !== "failed" && state !== "redis_down")).toBe(true);
    const requests = [...one.requests, ...burst.requests];
    expect(commandNames(requests)).toEqual(["/ hmget", "/ hmget", "/pipeline hmget,hmget,hmget"]);
    expect(requests.filter((r) => r.primary)).toEqual([]);
  });

  it("a join finding the follow cache missing is answered by Postgres and rebuilds the cache after the answer", async () => {
    const [fan, other, host] = [newId(), newId(), newId()];
    await follow(fan, host);
    await redis.del(badgeKeys.authorSeen(fan), badgeKeys.authorSeen(other));
    const after: Promise<unknown>[] = [];
    const joiner = Object.create(services, { waitUntil: { value: (p: Promise<unknown>) => void after.push(p) } }) as Services;
    // Requests for the primary held: the answers must come without them.
    const answered = await recordRedisRequests(() => Promise.all([resolveFan(joiner, fan, host, "missing"), resolveFan(joiner, other, host, "missing")]), {
      holdPrimary: 10_000,
    });
    expect(answered.result).toEqual([true, false]);
    expect(after).toHaveLength(2);
    expect(await redis.exists(badgeKeys.authorSeen(fan)), "rebuilt after the answer, not before").toBe(0);
    answered.release();
    await Promise.all(after);
    expect(await redis.hmget(badgeKeys.authorSeen(fan), BUILT, host)).toEqual({ [BUILT]: "all", [host]: expect.anything() });
    expect(await redis.hget(badgeKeys.authorSeen(other), BUILT)).toBe("all");
  });
});
