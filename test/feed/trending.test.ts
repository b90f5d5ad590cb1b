/**
 * GET /v1/posts/trending: counter movements bucketed by hour in the increment script, merged per
 * window. Buckets are global and other test files move counters too, so these posts get
 * movements far above anything else here; reads call `readTrending` with their own clock to step
 * past the per-isolate cache, and drop the shared result between steps.
 *
 * The recompute, take-down and stampede tests run at N = 1 and at N = 3 (the stack's three
 * databases, `test/support/databases.ts`): there each database keeps the buckets of its own posts
 * and a read merges the per-database top lists; the stored lists and the lock are database 0's,
 * which is the N = 1 tests' database too (so each test drops what it reads first).
 */
import { describe, expect, it } from "vitest";
import { counterKeys } from "../../src/counters/keys";
import { trimTrendingTask } from "../../src/counters/tasks";
import { hourOf, TRENDING_BUCKET_TOP } from "../../src/counters/trending";
import { readTrending } from "../../src/feed/trending";
import { STORE_TRENDING } from "../../src/feed/trending.lua";
import type { ScriptRunner } from "../../src/lib/script-batch";
import { databaseOf } from "../../src/lib/redis-topology";
import type { Services } from "../../src/lib/services";
import type { Env } from "../../src/env";
import { api, newId, show } from "../support/api";
import { countBilledCommands } from "../support/billed";
import { databasesEnv, stackDatabases } from "../support/databases";
import { prng } from "../support/prng";
import { createChaos, useChaos } from "../support/stack";
import { servicesFor } from "../counters/support";
import { post, redis, removePost, fileServices } from "./support";

const services = fileServices();
const three = stackDatabases().length >= 3;
const env3: Partial<Env> = three ? databasesEnv(stackDatabases().slice(0, 3)) : {};
const services3 = fileServices(env3);
/** The deployments the shared tests run on: N = 1, and N = 3 when the stack has three databases. */
const DEPLOYMENTS = [
  { n: 1, services, env: {} as Partial<Env> },
  ...(three ? [{ n: 3, services: services3, env: env3 }] : []),
];
const chaos = useChaos();
const service = { userId: newId(), role: "service" as const };
let clock = Date.now();
/** A read past the isolate cache and the shared result. */
async function trending(window: "1h" | "24h" | "7d", limit = 10, over: Services = services) {
  await redis.del(counterKeys.trendingResult(window));
  clock += 3_000;
  return readTrending(over, window, limit, clock);
}
/** Moves a post's counters through the Worker (at N = 3 with `env3`: into the post's database's bucket). */
const move = async (id: string, deltas: Record<string, number>, env: Partial<Env> = {}) => {
  const res = await api("POST", `/v1/counters/post/${id}`, { as: service, body: { deltas }, env });
  expect(res.status, show(res)).toBe(200);
};
const WINDOWS = ["1h", "24h", "7d"] as const;
const ids = (page: { items: { post: { id: string } }[] }) => page.items.map((i) => i.post.id);

/**
 * Services whose scripts count the ZUNIONSTOREs they run on every database (per call, so other test
 * files' commands do not count), and that can hold one script back until the test releases it.
 */
function countingServices(hold?: { source: string; reached: () => void; release: Promise<void> }, base: Services = services) {
  const counts: Record<string, number>[] = [];
  const runners = new Map<number, ScriptRunner>();
  const runnerAt = (index: number): ScriptRunner => {
    let runner = runners.get(index);
    if (runner) return runner;
    const { redis: counted, byCommand } = countBilledCommands(base.redisAt(index));
    counts.push(byCommand);
    runner = {
      createScript(source: string) {
        const script = counted.createScript(source);
        return {
          async exec(keys: string[], args: string[]) {
            if (hold && source === hold.source) {
              hold.reached();
              await hold.release;
            }
            return script.exec(keys, args);
          },
        };
      },
    } as unknown as ScriptRunner;
    runners.set(index, runner);
    return runner;
  };
  const counting = { ...base, redis: runnerAt(0), redisAt: runnerAt, redisFor: (id: string) => runnerAt(databaseOf(id, base.databases)) } as unknown as Services;
  return { services: counting, unions: () => counts.reduce((sum, c) => sum + (c.zunionstore ?? 0), 0) };
}

describe("trending posts", () => {
  it("ranks posts by weighted engagement (likes 1, comments 2, forwards 3, views 0.1) and hydrates them", async () => {
    const author = newId();
    const [a, b, c] = [await post({ userId: author }, "a"), await post({ userId: author }, "b"), await post({ userId: author }, "c")];
    await move(a, { likes: 5_000_000 }); // 5,000,000
    await move(b, { forwards: 2_000_000 }); // 6,000,000
    await move(c, { comments: 1_000_000, views: 10_000_000 }); // 3,000,000
    const list = await trending("1h");
    const mine = list.items.filter((i) => [a, b, c].includes(i.post.id));
    expect(mine.map((i) => i.post.id)).toEqual([b, a, c]);
    expect(mine[0]).toMatchObject({ score: 6_000_000, post: { id: b, authorId: author, text: "b" }, counts: { forwards: 2_000_000 } });
    expect(list.degraded).toBe(false);
  });

  it.skipIf(!three)("at N = 3: posts on all three databases rank exactly as the model, merged from each database's own buckets", async () => {
    const random = prng(2111);
    const author = newId();
    // Three posts or more on each database (a post's database is its id's: slot mod 3).
    const byDatabase: string[][] = [[], [], []];
    while (byDatabase.some((list) => list.length < 3)) {
      const id = await post({ userId: author }, "spread");
      byDatabase[databaseOf(id, 3)]!.push(id);
    }
    const posts = byDatabase.flat();
    // Scores far above every other file's movements, distinct, in several moves per post.
    const model = new Map<string, number>();
    for (const [i, id] of posts.entries()) {
      const likes = 10_000_000 + i * 1_000_003;
      const comments = random.int(0, 3_000_000);
      const forwards = random.int(0, 2_000_000);
      await move(id, { likes }, env3);
      await move(id, { comments, forwards, views: 10 }, env3);
      model.set(id, likes + 2 * comments + 3 * forwards + 1);
    }
    // Each database's bucket holds only its own posts' scores.
    const bucket = counterKeys.trendingBucket(hourOf(Date.now()));
    for (const [index, list] of byDatabase.entries()) {
      const scores = await services3.redisAt(index).zmscore(bucket, posts);
      posts.forEach((id, i) => expect(scores?.[i] ?? null, `${id} on database ${index}`).toBe(list.includes(id) ? model.get(id)! : null));
    }
    const expected = [...model.entries()].sort((a, b) => b[1] - a[1]);
    for (const w of ["1h", "24h"] as const) {
      const list = await trending(w, 100, services3);
      expect(list.degraded).toBe(false);
      const mine = list.items.filter((i) => model.has(i.post.id));
      expect(mine.map((i) => [i.post.id, i.score]), w).toEqual(expected);
      expect(mine[0]!.post).toMatchObject({ authorId: author, text: "spread" });
      // The whole list is in score order, wherever its posts live.
      const scores = list.items.map((i) => i.score);
      expect(scores, w).toEqual([...scores].sort((a, b) => b - a));
    }
  });

  it("counts a window's hours only: an older bucket shows in 7d, not in 24h or 1h", async () => {
    const old = await post({ userId: newId() }, "old news");
    await redis.zincrby(counterKeys.trendingBucket(hourOf(Date.now()) - 30), 9_000_000_000, old);
    const ids = async (w: "1h" | "24h" | "7d") => (await trending(w, 100)).items.map((i) => i.post.id);
    expect(await ids("7d")).toContain(old);
    expect(await ids("24h")).not.toContain(old);
    expect(await ids("1h")).not.toContain(old);
  });

  it("never lists a deleted post once a list is computed after the delete", async () => {
    const author = newId();
    const id = await post({ userId: author }, "soon gone");
    await move(id, { likes: 8_000_000 });
    expect((await trending("1h", 100)).items.map((i) => i.post.id)).toContain(id);
    await removePost(author, id);
    expect((await trending("1h", 100)).items.map((i) => i.post.id)).not.toContain(id);
    await redis.del(`feed:post:${id}`); // and when the tombstone is gone, Postgres says deleted
    expect((await trending("1h", 100)).items.map((i) => i.post.id)).not.toContain(id);
  });

  for (const { n, services: over, env } of DEPLOYMENTS) {
    it(`at N = ${n}: costs one recompute (one ZUNIONSTORE per database) for 50 concurrent cold readers of a window, and none of them waits for nothing or gets an empty list`, async () => {
      const id = await post({ userId: newId() }, "stampede");
      await move(id, { likes: 7_000_000 }, env);
      for (const keep of ["none", "last copy"] as const) {
        // Cold everywhere: no fresh list in Redis (and no list at all the first time), no isolate copy.
        await redis.del(counterKeys.trendingResult("24h"), counterKeys.trendingLock("24h"));
        if (keep === "none") await redis.del(counterKeys.trendingLast("24h"));
        clock += 3_000;
        const counting = countingServices(undefined, over);
        const lists = await Promise.all(Array.from({ length: 50 }, () => readTrending(counting.services, "24h", 100, clock)));
        expect(counting.unions(), keep).toBe(n);
        for (const list of lists) {
          expect(list.degraded).toBe(false);
          expect(ids(list), keep).toContain(id);
        }
        // The 50 answers are the one computed list (or, with a last copy, that copy until it is stored).
        if (keep === "none") for (const list of lists) expect(list.items).toEqual(lists[0]!.items);
      }
      // The next cold reader within 5 s reads the stored list: no recompute.
      clock += 3_000;
      const again = countingServices(undefined, over);
      expect(ids(await readTrending(again.services, "24h", 100, clock))).toContain(id);
      expect(again.unions()).toBe(0);
    });
  }

  for (const { n, services: over, env } of DEPLOYMENTS) {
    it(`at N = ${n}: takes a deleted post out of every window when its delete returns: stored lists, last copies, a recompute under way, any isolate 2 s on`, async () => {
      const author = newId();
      // At N = 3, a post on another database than 0 (where the stored lists are).
      let id = await post({ userId: author }, "taken down");
      while (n > 1 && databaseOf(id, n) === 0) id = await post({ userId: author }, "taken down");
      await move(id, { likes: 9_000_000 }, env);
      for (const w of WINDOWS) expect(ids(await trending(w, 100, over)), w).toContain(id);
      // A recompute of 1h is under way: it read its candidates (the post among them) before the delete.
      let reached!: () => void;
      const atStore = new Promise<void>((r) => (reached = r));
      let release!: () => void;
      const gated = countingServices({ source: STORE_TRENDING, reached: () => reached(), release: new Promise((r) => (release = r)) }, over);
      await redis.del(counterKeys.trendingResult("1h"));
      const underWay = readTrending(gated.services, "1h", 100, (clock += 3_000));
      await atStore;

      const removed = await api("DELETE", `/v1/posts/${id}`, { as: { userId: author }, env });
      expect(removed.status, show(removed)).toBe(200);
      const deletedAt = clock;
      release();
      expect(ids(await underWay), "the recompute's own answer").not.toContain(id);
      // Every window, read by an isolate whose copy predates the delete by 2 s (or a new isolate):
      // from the fresh lists in Redis, not recomputed.
      clock = deletedAt + 2_000;
      const counting = countingServices(undefined, over);
      for (const w of WINDOWS) expect(ids(await readTrending(counting.services, w, 100, clock)), w).not.toContain(id);
      expect(counting.unions()).toBe(0);
      // While another reader holds a recompute, readers get the last copies: without the post too.
      for (const w of WINDOWS) {
        await redis.del(counterKeys.trendingResult(w));
        await redis.set(counterKeys.trendingLock(w), "another reader", { px: 10_000 });
      }
      clock += 2_000;
      for (const w of WINDOWS) {
        const list = await readTrending(counting.services, w, 100, clock);
        expect(list.items.length, w).toBeGreaterThan(0);
        expect(ids(list), w).not.toContain(id);
      }
      expect(counting.unions()).toBe(0);
      await redis.del(...WINDOWS.map((w) => counterKeys.trendingLock(w)));
    });
  }

  it.skipIf(!three)("at N = 3: a database down mid-recompute leaves its posts out of that answer (degraded, not stored); others get the last copy; back, it is whole again", async () => {
    const pairs = await Promise.all([0, 1, 2].map((i) => createChaos(i)));
    const { services: chaotic, close } = servicesFor(databasesEnv(pairs.map((p) => ({ url: p.restUrl, token: p.restToken }))));
    try {
      const author = newId();
      const on: Record<number, string> = {};
      while (!on[1] || !on[2]) {
        const id = await post({ userId: author }, "outage");
        on[databaseOf(id, 3)] ??= id;
      }
      await move(on[1], { likes: 9_500_000 }, env3);
      await move(on[2], { likes: 9_400_000 }, env3);
      await redis.del(counterKeys.trendingLock("1h"));
      const whole = await trending("1h", 100, chaotic);
      expect(ids(whole)).toEqual(expect.arrayContaining([on[1], on[2]]));

      await pairs[1]!.setRedisDown(true);
      const partial = await trending("1h", 100, chaotic);
      expect(partial.degraded).toBe(true);
      expect(ids(partial)).toContain(on[2]);
      expect(ids(partial)).not.toContain(on[1]);
      // Not stored: no fresh copy, the last copy is still the whole one, and the lock waits out its life.
      expect(await redis.exists(counterKeys.trendingResult("1h"))).toBe(0);
      expect(await redis.hget(counterKeys.trendingLast("1h"), on[1])).not.toBeNull();
      expect(await redis.exists(counterKeys.trendingLock("1h"))).toBe(1);
      const meanwhile = await readTrending(chaotic, "1h", 100, (clock += 3_000));
      expect(meanwhile.degraded).toBe(false);
      expect(ids(meanwhile)).toEqual(expect.arrayContaining([on[1], on[2]]));

      await pairs[1]!.setRedisDown(false);
      await redis.del(counterKeys.trendingLock("1h"));
      const back = await trending("1h", 100, chaotic);
      expect(back.degraded).toBe(false);
      expect(ids(back)).toEqual(expect.arrayContaining([on[1], on[2]]));
    } finally {
      for (const pair of pairs) {
        await pair.setRedisDown(false);
        await pair.close();
      }
      await close();
    }
  });

  it("keeps buckets bounded: the per-minute trim keeps the top posts and sets an 8-day TTL", async () => {
    const bucket = counterKeys.trendingBucket(hourOf(Date.now()));
    const p = redis.pipeline();
    for (let i = 0; i < TRENDING_BUCKET_TOP + 50; i++) p.zincrby(bucket, 0.001, `9${newId()}`);
    await p.exec();
    await trimTrendingTask.run(services);
    expect(await redis.zcard(bucket)).toBeLessThanOrEqual(TRENDING_BUCKET_TOP);
    expect(await redis.ttl(bucket)).toBeGreaterThan(7 * 24 * 3600);
  });

  it("answers over HTTP with a shared-cache header, and 400 naming a bad window or limit", async () => {
    const res = await api("GET", "/v1/posts/trending?window=24h&limit=5");
    expect(res.status, show(res)).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=2");
    expect(res.body.items.length).toBeLessThanOrEqual(5);
    for (const [query, field] of [["window=2h", "window"], ["limit=0", "limit"], ["limit=101", "limit"]] as const) {
      const bad = await api("GET", `/v1/posts/trending?${query}`);
      expect(bad.status, show(bad)).toBe(400);
      expect(bad.body.error.details[0].field).toBe(field);
    }
  });

  it("serves repeated reads from the isolate for two seconds: no Redis round trip", async () => {
    const via = { env: chaos.current.bindings };
    expect((await api("GET", "/v1/posts/trending?window=7d", via)).status).toBe(200);
    const before = await chaos.current.stats();
    for (let i = 0; i < 5; i++) expect((await api("GET", "/v1/posts/trending?window=7d&limit=3", via)).status).toBe(200);
    expect((await chaos.current.stats()).requests - before.requests).toBe(0);
  });
});
