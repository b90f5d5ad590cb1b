/**
 * GET /v1/posts/trending with read regions (`REDIS_READ_REGIONS` on): a warm read is one read-only
 * call a Global database's nearest region answers; a reader finding only the last copy answers it
 * and sends the recompute to the primary after the answer; only a window with no copy is
 * recomputed before answering. Requests recorded as the code sends them
 * (test/support/redis-requests.ts). The lists are global (database 0): each test sets them up first.
 */
import { describe, expect, it } from "vitest";
import { counterKeys } from "../../src/counters/keys";
import { readTrending } from "../../src/feed/trending";
import type { Services } from "../../src/lib/services";
import { api, newId, show } from "../support/api";
import { commandNames, recordRedisRequests } from "../support/redis-requests";
import { fileServices, post, redis } from "./support";

const services = fileServices({ REDIS_READ_REGIONS: "on" });
const service = { userId: newId(), role: "service" as const };
/** Each read steps past the per-isolate copy (2 s) with its own clock. */
let clock = Date.now();
const later = () => (clock += 3_000);

/** The services with the work sent after the answer kept for the test. */
function deferred() {
  const after: Promise<unknown>[] = [];
  return { services: Object.create(services, { waitUntil: { value: (p: Promise<unknown>) => void after.push(p) } }) as Services, after };
}

async function hotPost() {
  const id = await post({ userId: newId() }, "near");
  const res = await api("POST", `/v1/counters/post/${id}`, { as: service, body: { deltas: { forwards: 300_000_000 } } });
  expect(res.status, show(res)).toBe(200);
  return id;
}

describe("trending with read regions", () => {
  it("a read with a fresh stored list is one EVALSHA_RO, nothing for the primary", async () => {
    const id = await hotPost();
    await redis.del(counterKeys.trendingResult("1h"), counterKeys.trendingLast("1h"));
    await readTrending(services, "1h", 100, later()); // no copy: recomputed (and stored) first
    const { result, requests } = await recordRedisRequests(() => readTrending(services, "1h", 100, later()));
    expect(result.items.map((i) => i.post.id)).toContain(id);
    expect(commandNames(requests)).toEqual(["/ evalsha_ro"]);
    expect(requests[0]!.primary).toBe(false);
  });

  it("a read finding only the last copy answers it read-only and recomputes on the primary after answering", async () => {
    const first = await hotPost();
    await redis.del(counterKeys.trendingResult("24h"), counterKeys.trendingLast("24h"));
    await readTrending(services, "24h", 100, later());
    const second = await hotPost(); // moves after the stored list: only a recompute shows it
    await redis.del(counterKeys.trendingResult("24h")); // the fresh copy expired
    const { services: reader, after } = deferred();
    // The primary held: the answer must come without it.
    const answered = await recordRedisRequests(() => readTrending(reader, "24h", 100, later()), { holdPrimary: 10_000 });
    expect(answered.result.degraded).toBe(false);
    expect(answered.result.items.map((i) => i.post.id)).toContain(first);
    expect(answered.result.items.map((i) => i.post.id), "the last copy, as stored").not.toContain(second);
    expect(answered.requests[0]!.commands[0]![0]).toBe("evalsha_ro");
    expect(answered.requests.slice(1).every((r) => r.primary), "after the near read, only the recompute (held)").toBe(true);
    expect(after, "the recompute, sent after the answer").toHaveLength(1);
    answered.release();
    await Promise.all(after);
    // Stored: the next near read is fresh, with the post that moved.
    const fresh = await recordRedisRequests(() => readTrending(services, "24h", 100, later()));
    expect(fresh.result.items.map((i) => i.post.id)).toContain(second);
    expect(commandNames(fresh.requests)).toEqual(["/ evalsha_ro"]);
  });

  it("a window with no stored copy at all is recomputed before answering, on the primary", async () => {
    const id = await hotPost();
    await redis.del(counterKeys.trendingResult("7d"), counterKeys.trendingLast("7d"));
    const { services: reader, after } = deferred();
    const { result, requests } = await recordRedisRequests(() => readTrending(reader, "7d", 100, later()));
    expect(result.items.map((i) => i.post.id)).toContain(id);
    // The near read, then the recompute: READ_TRENDING, (counters of posts not cached,) STORE_TRENDING.
    expect(requests[0]!.primary).toBe(false);
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(requests.slice(1).every((r) => r.primary), commandNames(requests).join("; ")).toBe(true);
    expect(after).toHaveLength(0);
  });
});
