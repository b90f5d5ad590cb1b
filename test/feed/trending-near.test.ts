/**
 * GET /v1/posts/trending with read regions (`REDIS_READ_REGIONS` on): nothing of a read reaches the
 * primary. The per-minute cron (`feed.trending-refresh`) recomputes and stores every window's list;
 * a read answers the stored copy read-only while it is at most NEAR_COPY_MAX_AGE_MS old (well past
 * the 5 s recompute period), and a reader finding none that young computes the list itself from
 * the region, read-only, storing nothing. Requests recorded as the code sends them
 * (test/support/redis-requests.ts); test/node/trending-read-region.test.ts watches a real read
 * region. The lists are global (database 0): each test sets them up first.
 */
import { describe, expect, it } from "vitest";
import { counterKeys } from "../../src/counters/keys";
import { TRENDING_WINDOWS, type TrendingWindow } from "../../src/counters/trending";
import { feedKeys } from "../../src/feed/keys";
import { feedTrendingTask } from "../../src/feed/tasks";
import { encodeCachedPost } from "../../src/feed/timeline";
import { NEAR_COPY_MAX_AGE_MS, readTrending } from "../../src/feed/trending";
import type { Services } from "../../src/lib/services";
import { readCounts } from "../counters/support";
import { api, newId, show } from "../support/api";
import { commandNames, recordRedisRequests, type RedisRequest } from "../support/redis-requests";
import { fileServices, post, redis, removePost } from "./support";

const services = fileServices({ REDIS_READ_REGIONS: "on" });
const single = fileServices({ REDIS_READ_REGIONS: "off" });
const service = { userId: newId(), role: "service" as const };
const WINDOWS = Object.keys(TRENDING_WINDOWS) as TrendingWindow[];
/** Each read steps past the per-isolate copy (2 s) with its own clock. */
let clock = Date.now();
const later = () => (clock += 3_000);

/** The services with the work sent after the answer kept for the test. */
function deferred() {
  const after: Promise<unknown>[] = [];
  return { services: Object.create(services, { waitUntil: { value: (p: Promise<unknown>) => void after.push(p) } }) as Services, after };
}

/** A post that tops every window, its counters cached (so a list computed near has nothing to warm). */
async function hotPost(author = newId()) {
  const id = await post({ userId: author }, "near");
  const res = await api("POST", `/v1/counters/post/${id}`, { as: service, body: { deltas: { forwards: 300_000_000 } } });
  expect(res.status, show(res)).toBe(200);
  await readCounts("post", [id]);
  return { id, author };
}

/** The window's stored list as the cron left it: recomputed now (no fresh copy kept it from running). */
async function storedByCron(window: TrendingWindow) {
  await redis.del(counterKeys.trendingResult(window), counterKeys.trendingLast(window));
  const report = (await feedTrendingTask.run(services)) as { recomputed: TrendingWindow[] };
  expect(report.recomputed).toContain(window);
}

/** Makes the stored list `ageMs` old: the fresh copy gone, the last copy's life shortened by that much. */
async function age(window: TrendingWindow, ageMs: number) {
  await redis.del(counterKeys.trendingResult(window));
  const last = counterKeys.trendingLast(window);
  await redis.pexpire(last, (await redis.pttl(last)) - ageMs);
}

/** Every request a read-only script (EVAL_RO follows EVALSHA_RO once, when the region had not loaded it yet). */
const readOnly = (requests: RedisRequest[]) => requests.every((r) => r.commands.every((c) => c[0] === "evalsha_ro" || c[0] === "eval_ro"));
const ids = (page: { items: { post: { id: string } }[] }) => page.items.map((i) => i.post.id);

/** A read with the primary held and what it sent after its answer: it must answer without the primary and send it nothing. */
async function nearRead(window: TrendingWindow) {
  const { services: reader, after } = deferred();
  const read = await recordRedisRequests(() => readTrending(reader, window, 100, later()), { holdPrimary: 10_000 });
  read.release();
  await Promise.all(after);
  expect(read.result.degraded).toBe(false);
  expect(read.requests.filter((r) => r.primary).map((r) => r.commands[0]![0]), "requests for the primary").toEqual([]);
  expect(after, "work sent after the answer").toHaveLength(0);
  return read;
}

describe("trending with read regions", () => {
  it("a read with a fresh stored list is one EVALSHA_RO, nothing for the primary", async () => {
    const { id } = await hotPost();
    await storedByCron("1h");
    await readTrending(services, "1h", 100, later()); // the script loaded, as in a warm isolate
    const { result, requests } = await recordRedisRequests(() => readTrending(services, "1h", 100, later()));
    expect(ids(result)).toContain(id);
    expect(commandNames(requests)).toEqual(["/ evalsha_ro"]);
    expect(requests[0]!.primary).toBe(false);
  });

  it("a copy older than the recompute period (5 s), younger than the bound, is the answer: nothing goes to the primary", async () => {
    const first = await hotPost();
    await storedByCron("24h");
    const second = await hotPost(); // moves after the stored list: only a recompute shows it
    await age("24h", 70_000);
    const read = await nearRead("24h");
    expect(ids(read.result)).toContain(first.id);
    expect(ids(read.result), "the stored copy, as stored").not.toContain(second.id);
    expect(commandNames(read.requests)).toEqual(["/ evalsha_ro"]);
  });

  it("the per-minute cron recomputes and stores every window's list (with read regions on only)", async () => {
    const { id } = await hotPost();
    for (const w of WINDOWS) await redis.del(counterKeys.trendingResult(w), counterKeys.trendingLast(w));
    expect(await feedTrendingTask.run(single), "off: readers recompute, the cron does not").toEqual({ skipped: expect.any(String) });
    for (const w of WINDOWS) expect(await redis.exists(counterKeys.trendingLast(w)), w).toBe(0);
    const report = await feedTrendingTask.run(services);
    expect(report).toEqual({ recomputed: WINDOWS, kept: [], incomplete: [] });
    for (const w of WINDOWS) {
      expect(await redis.hget(counterKeys.trendingLast(w), id), w).not.toBeNull();
      expect(await redis.hget(counterKeys.trendingResult(w), id), w).not.toBeNull();
    }
    // A window whose lock another run holds is left to it: one recompute per window at a time.
    await redis.del(counterKeys.trendingResult("1h"));
    await redis.set(counterKeys.trendingLock("1h"), "another run", { px: 10_000 });
    try {
      const next = (await feedTrendingTask.run(services)) as { recomputed: TrendingWindow[]; kept: TrendingWindow[] };
      expect(next.kept).toContain("1h");
      expect(next.recomputed).not.toContain("1h");
    } finally {
      await redis.del(counterKeys.trendingLock("1h"));
    }
  });

  it("a copy older than the bound: the reader computes the list itself, read-only, and stores nothing", async () => {
    await hotPost();
    await storedByCron("7d");
    const moved = await hotPost();
    await age("7d", NEAR_COPY_MAX_AGE_MS + 10_000);
    const read = await nearRead("7d");
    expect(ids(read.result), "computed from the buckets").toContain(moved.id);
    expect(readOnly(read.requests), commandNames(read.requests).join("; ")).toBe(true);
    expect(await redis.hget(counterKeys.trendingLast("7d"), moved.id), "nothing stored").toBeNull();
    // The isolate keeps what it computed (2 s): the next read sends nothing.
    const again = await recordRedisRequests(() => readTrending(services, "7d", 100, clock + 1_000));
    expect(ids(again.result)).toEqual(ids(read.result));
    expect(again.requests).toEqual([]);
  });

  it("a window with no stored copy at all is computed read-only before answering", async () => {
    const { id } = await hotPost();
    await storedByCron("1h"); // every candidate's counters cached, as a deployment's cron leaves them
    await redis.del(counterKeys.trendingResult("1h"), counterKeys.trendingLast("1h"));
    const read = await nearRead("1h");
    expect(ids(read.result)).toContain(id);
    expect(await redis.exists(counterKeys.trendingLast("1h"), counterKeys.trendingResult("1h"))).toBe(0);
  });

  it("a deleted post leaves a stored copy and a list computed near when its delete returns", async () => {
    const kept = await hotPost();
    const inCopy = await hotPost();
    const inBuckets = await hotPost();
    const untombstoned = await hotPost();
    await storedByCron("24h");
    await age("24h", 70_000);
    const before = (await nearRead("24h")).result;
    expect(ids(before)).toEqual(expect.arrayContaining([kept.id, inCopy.id, untombstoned.id]));
    await removePost(inCopy.author, inCopy.id);
    const fromCopy = ids((await nearRead("24h")).result);
    expect(fromCopy).toContain(kept.id);
    expect(fromCopy, "the stored copy lost it when the delete returned").not.toContain(inCopy.id);

    // Computed near: the tombstone drops one; the other's cache entry is put back as if its
    // tombstone had not been written (a failed copy): the minute's deletes (`gone`) drop it.
    await age("24h", NEAR_COPY_MAX_AGE_MS);
    const { post: shown } = before.items.find((i) => i.post.id === untombstoned.id)!;
    await removePost(inBuckets.author, inBuckets.id);
    await removePost(untombstoned.author, untombstoned.id);
    await redis.set(feedKeys.post(untombstoned.id), encodeCachedPost(shown));
    const computed = await nearRead("24h");
    expect(readOnly(computed.requests), commandNames(computed.requests).join("; ")).toBe(true);
    expect(ids(computed.result)).toContain(kept.id);
    expect(ids(computed.result)).not.toContain(inBuckets.id);
    expect(ids(computed.result)).not.toContain(untombstoned.id);
  });
});
