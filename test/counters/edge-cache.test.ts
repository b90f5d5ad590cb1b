/**
 * The edge copy of counters (`src/counters/edge-cache.ts`): the cache's rules against a fake clock,
 * then the API through a private chaos bridge whose own request count is the number of Redis round
 * trips (no other test file talks to it). vitest.config.ts turns the copy off for every other test;
 * here each request turns it on through its bindings.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { incrementCounters } from "../../src/counters/counters";
import { EdgeCounterCache, edgeCacheBoundMs } from "../../src/counters/edge-cache";
import type { Env } from "../../src/env";
import { api, newId, show } from "../support/api";
import { createChaos, type Chaos } from "../support/stack";
import { servicesFor } from "./support";

/** A cache on a clock the test moves by hand. */
function cacheOnClock(capacity = 100) {
  const clock = { t: 1_000_000 };
  return { clock, cache: new EdgeCounterCache(capacity, () => clock.t) };
}

describe("EdgeCounterCache", () => {
  it("serves a copy only while it is younger than the bound, counted from the start of its read", () => {
    const { clock, cache } = cacheOnClock();
    const ticket = cache.begin();
    clock.t += 30; // the Redis read took 30 ms
    expect(cache.store("post", "1", [5], ticket, 100)).toBe(true);
    expect(cache.lookup("post", "1", 100)).toEqual({ values: [5], ageMs: 30 });
    clock.t += 19;
    expect(cache.lookup("post", "1", 100)?.values).toEqual([5]);
    clock.t += 51; // 100 ms after the read started
    expect(cache.lookup("post", "1", 100)).toBeNull();
  });

  it("does not keep a result that is already as old as the bound", () => {
    const { clock, cache } = cacheOnClock();
    const ticket = cache.begin();
    clock.t += 100;
    expect(cache.store("post", "1", [5], ticket, 100)).toBe(false);
    expect(cache.lookup("post", "1", 100)).toBeNull();
  });

  it("hands a copy past half the bound to one reader to refresh, and to the others as a hit", () => {
    const { clock, cache } = cacheOnClock();
    cache.store("post", "1", [5], cache.begin(), 100);
    clock.t += 60;
    expect(cache.lookup("post", "1", 100)).toBeNull(); // this reader refreshes
    expect(cache.lookup("post", "1", 100)?.values).toEqual([5]);
    expect(cache.lookup("post", "1", 100)?.values).toEqual([5]);
    const refresh = cache.begin();
    expect(cache.store("post", "1", [6], refresh, 100)).toBe(true);
    expect(cache.lookup("post", "1", 100)).toEqual({ values: [6], ageMs: 0 });
  });

  it("never replaces a copy with the result of a read that started before the copy was stored", () => {
    const { cache } = cacheOnClock();
    const early = cache.begin(); // may have run in Redis before or after `late`
    const late = cache.begin();
    expect(cache.store("post", "1", [7], late, 100)).toBe(true);
    expect(cache.store("post", "1", [6], early, 100)).toBe(false);
    expect(cache.lookup("post", "1", 100)?.values).toEqual([7]);
    const after = cache.begin(); // started after [7] was stored: saw Redis at least as late
    expect(cache.store("post", "1", [8], after, 100)).toBe(true);
  });

  it("forgets a copy on a write: reads begun before the write may not store, reads begun after may", () => {
    const { cache } = cacheOnClock();
    cache.store("post", "1", [1], cache.begin(), 100);
    const before = cache.begin();
    cache.forget("post", "1", 100);
    expect(cache.lookup("post", "1", 100)).toBeNull();
    expect(cache.store("post", "1", [1], before, 100)).toBe(false);
    expect(cache.store("post", "1", [2], cache.begin(), 100)).toBe(true);
    expect(cache.lookup("post", "1", 100)?.values).toEqual([2]);
  });

  it("keeps at most its capacity, least recently used first, without losing the guard of an evicted copy", () => {
    const { cache } = cacheOnClock(2);
    cache.store("post", "1", [1], cache.begin(), 100);
    const inFlight = cache.begin(); // a read of post:1 started while post:1 was cached
    cache.store("post", "2", [2], cache.begin(), 100);
    cache.lookup("post", "1", 100); // post:1 used last: post:2 goes first
    cache.store("post", "3", [3], cache.begin(), 100);
    expect(cache.size).toBe(2);
    expect(cache.lookup("post", "2", 100)).toBeNull();
    expect(cache.lookup("post", "1", 100)?.values).toEqual([1]);
    cache.store("post", "4", [4], cache.begin(), 100); // evicts post:3, still fresh
    cache.store("post", "5", [5], cache.begin(), 100); // evicts post:1
    expect(cache.store("post", "1", [0], inFlight, 100)).toBe(false);
  });

  it("keeps one capacity and one least-recently-used order over every entity, an id's copies per entity apart", () => {
    const { cache } = cacheOnClock(2);
    cache.store("post", "1", [1], cache.begin(), 100);
    cache.store("user", "1", [10], cache.begin(), 100);
    expect(cache.lookup("post", "1", 100)?.values).toEqual([1]);
    expect(cache.lookup("user", "1", 100)?.values).toEqual([10]);
    cache.lookup("post", "1", 100); // post 1 used last: user 1 goes first
    cache.store("group", "1", [100], cache.begin(), 100);
    expect(cache.size).toBe(2);
    expect(cache.lookup("user", "1", 100)).toBeNull();
    expect(cache.lookup("post", "1", 100)?.values).toEqual([1]);
    expect(cache.lookup("group", "1", 100)?.values).toEqual([100]);
  });

  it("moves a copy used among the newer half of its capacity's placements only once it drifts past it", () => {
    const { cache } = cacheOnClock(4);
    for (const id of ["1", "2", "3", "4"]) cache.store("post", id, [Number(id)], cache.begin(), 100);
    cache.lookup("post", "1", 100); // placed 3 placements ago (≥ half the capacity): moved last
    cache.lookup("post", "4", 100); // placed 1 placement ago: left where it is
    for (const id of ["5", "6", "7"]) cache.store("post", id, [Number(id)], cache.begin(), 100); // evict 2, 3, then 4
    expect([1, 2, 3, 4, 5, 6, 7].map((id) => cache.lookup("post", String(id), 100) !== null)).toEqual([true, false, false, false, true, true, true]);
  });

  it("never serves a value older than the bound, nor older than one it served before (random interleavings)", () => {
    for (let seed = 1; seed <= 20; seed++) {
      let state = seed;
      const rand = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const bound = 50;
      const { clock, cache } = cacheOnClock(4);
      // The true value is a version bumped by writes; history[t] = version at time t.
      let version = 0;
      const history: number[] = [];
      type Read = { ticket: ReturnType<EdgeCounterCache["begin"]>; runsAt: number; endsAt: number; saw?: number };
      let reads: Read[] = [];
      let lastHit = -1;
      for (let step = 0; step < 3_000; step++) {
        clock.t += 1;
        if (rand() < 0.2) version++;
        history[clock.t] = version;
        for (const r of reads) if (r.saw === undefined && clock.t >= r.runsAt) r.saw = version;
        for (const r of reads.filter((r) => clock.t >= r.endsAt)) cache.store("post", "1", [r.saw!], r.ticket, bound);
        reads = reads.filter((r) => clock.t < r.endsAt);
        if (rand() < 0.3) cache.forget("post", "1", bound); // a write in this isolate
        if (rand() < 0.3) cache.store("post", `${2 + Math.floor(rand() * 6)}`, [0], cache.begin(), bound); // other entities churn
        const hit = cache.lookup("post", "1", bound);
        if (hit) {
          const oldestAllowed = history[clock.t - bound + 1] ?? 0;
          expect(hit.values[0], `seed ${seed} t ${clock.t}`).toBeGreaterThanOrEqual(oldestAllowed);
          expect(hit.values[0], `seed ${seed} t ${clock.t}`).toBeGreaterThanOrEqual(lastHit);
          lastHit = hit.values[0]!;
        } else {
          const start = clock.t;
          const runsAt = start + Math.floor(rand() * 20);
          reads.push({ ticket: cache.begin(), runsAt, endsAt: runsAt + Math.floor(rand() * 20) });
        }
      }
    }
  });
});

describe("COUNTER_EDGE_CACHE_MS", () => {
  it("defaults to 1,000 ms, is capped at 1,000 and 0 turns the copy off", () => {
    expect(edgeCacheBoundMs({})).toBe(1000);
    expect(edgeCacheBoundMs({ COUNTER_EDGE_CACHE_MS: "250" })).toBe(250);
    expect(edgeCacheBoundMs({ COUNTER_EDGE_CACHE_MS: "5000" })).toBe(1000);
    expect(edgeCacheBoundMs({ COUNTER_EDGE_CACHE_MS: "0" })).toBe(0);
    expect(edgeCacheBoundMs({ COUNTER_EDGE_CACHE_MS: "soon" })).toBe(1000);
  });
});

let chaos: Chaos;
let chaosEnv: Partial<Env>;
beforeAll(async () => {
  chaos = await createChaos();
  chaosEnv = chaos.bindings;
});
afterAll(async () => {
  await chaos.close();
});

const service = { userId: newId(), role: "service" as const };
const edge = (ms = 1000): Partial<Env> => ({ ...chaosEnv, COUNTER_EDGE_CACHE_MS: String(ms) });

async function read(entity: string, ids: string[], env: Partial<Env>, query = "") {
  const res = await api("GET", `/v1/counters/${entity}?ids=${ids.join(",")}${query}`, { env });
  expect(res.status, show(res)).toBe(200);
  return res;
}
const countsOf = (res: { body: { items: { id: string; counts: Record<string, number> }[] } }, id: string) =>
  res.body.items.find((i) => i.id === id)!.counts;

async function roundTrips(call: () => Promise<unknown>) {
  const before = await chaos.stats();
  await call();
  return (await chaos.stats()).requests - before.requests;
}

/** Bumps a counter behind this isolate's back, as a write served by another isolate would. */
async function writeElsewhere(entity: "post" | "user", id: string, field: string, delta: number) {
  const { services, close } = servicesFor(chaosEnv);
  await incrementCounters(services, [{ entity, id, field, delta }]);
  await close();
}

/**
 * Runs `check` until one run takes less than half the 1 s bound (a copy past half the bound is
 * refreshed by design): a loaded machine can stall between two requests, which is not what the
 * test is about.
 */
async function withinHalfBound(check: () => Promise<void>) {
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() - started < 400 || attempt >= 4) throw err;
    }
  }
}

describe("GET /v1/counters/{entity} with the edge copy", () => {
  it("answers a hot entity from the copy without a Redis round trip", async () => {
    await withinHalfBound(async () => {
      const id = newId();
      await writeElsewhere("post", id, "likes", 3);
      expect(await roundTrips(() => read("post", [id], edge()))).toBeGreaterThan(0);
      let res: Awaited<ReturnType<typeof read>> | undefined;
      expect(await roundTrips(async () => (res = await read("post", [id], edge())))).toBe(0);
      expect(countsOf(res!, id).likes).toBe(3);
    });
  });

  it("shares copies per entity between batches naming different ids; only the missing ids go to Redis", async () => {
    await withinHalfBound(async () => {
      const [a, b, c] = [newId(), newId(), newId()];
      await read("post", [a], edge());
      await read("post", [b, a], edge());
      expect(await roundTrips(() => read("post", [a, b], edge()))).toBe(0);
      expect(await roundTrips(() => read("post", [c, a, b], edge()))).toBeGreaterThan(0);
      expect(await roundTrips(() => read("post", [b, c], edge()))).toBe(0);
    });
  });

  it("shows a write made elsewhere once the bound has passed, never later", async () => {
    const id = newId();
    const bound = 40;
    await writeElsewhere("post", id, "forwards", 1);
    expect(countsOf(await read("post", [id], edge(bound)), id).forwards).toBe(1);
    await writeElsewhere("post", id, "forwards", 1);
    await new Promise((r) => setTimeout(r, bound + 10));
    expect(countsOf(await read("post", [id], edge(bound)), id).forwards).toBe(2);
  });

  it("keeps serving the copy within the bound while Redis moved on", async () => {
    await withinHalfBound(async () => {
      const id = newId();
      await writeElsewhere("post", id, "forwards", 1);
      await read("post", [id], edge());
      await writeElsewhere("post", id, "forwards", 1);
      expect(countsOf(await read("post", [id], edge()), id).forwards).toBe(1);
    });
  });

  it("reads Redis with fresh=true, and the answer is not cacheable", async () => {
    await withinHalfBound(async () => {
      const id = newId();
      await read("post", [id], edge());
      await writeElsewhere("post", id, "views", 5);
      let res: Awaited<ReturnType<typeof read>> | undefined;
      expect(await roundTrips(async () => (res = await read("post", [id], edge(), "&fresh=true")))).toBeGreaterThan(0);
      expect(countsOf(res!, id).views).toBe(5);
      expect(res!.headers.get("Cache-Control")).toBe("no-store");
      // …and it refreshed the copy for the next readers of this isolate.
      expect(countsOf(await read("post", [id], edge()), id).views).toBe(5);
    });
  });

  it("goes to Redis every time with the copy turned off (COUNTER_EDGE_CACHE_MS=0)", async () => {
    const id = newId();
    await read("post", [id], edge(0));
    expect(await roundTrips(() => read("post", [id], edge(0)))).toBe(1);
  });

  it("lets clients share single-entity answers for the bound, and only those", async () => {
    const [a, b] = [newId(), newId()];
    expect((await read("post", [a], edge())).headers.get("Cache-Control")).toBe("public, max-age=1");
    expect((await read("post", [a], edge())).headers.get("Cache-Control")).toBe("public, max-age=1");
    expect((await read("post", [a, b], edge())).headers.get("Cache-Control")).toBeNull();
  });

  it("rejects a bad fresh value with 400 naming it", async () => {
    const res = await api("GET", `/v1/counters/post?ids=${newId()}&fresh=yes`, { env: edge() });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.details[0].field, show(res)).toBe("fresh");
  });
});

describe("a writer sees their own write", () => {
  it("an increment answers the counts with it, in the same Redis round trip, and this isolate's copy follows", async () => {
    const id = newId();
    await api("POST", `/v1/counters/user/${id}`, { as: service, body: { deltas: { coins: 1 } }, env: edge() }); // scripts loaded
    await read("user", [id], edge()); // copied at the edge
    let res: Awaited<ReturnType<typeof api>> | undefined;
    const trips = await roundTrips(async () => {
      res = await api("POST", `/v1/counters/user/${id}`, { as: service, body: { deltas: { coins: 2, posts: 1 } }, env: edge() });
    });
    expect(res!.status, show(res!)).toBe(200);
    expect(res!.body, show(res!)).toMatchObject({ entity: "user", id, deltas: { coins: 2, posts: 1 }, counts: { coins: 3, posts: 1, followers: 0 } });
    expect(trips).toBe(1);
    expect(countsOf(await read("user", [id], edge()), id)).toMatchObject({ coins: 3, posts: 1 });
  });

  it("an increment of an entity nobody reads answers without counts, costs no Postgres and no second round trip; the next read has it", async () => {
    const id = newId();
    await api("POST", `/v1/counters/group/${newId()}`, { as: service, body: { deltas: { posts: 1 } }, env: edge() }); // scripts loaded
    let res: Awaited<ReturnType<typeof api>> | undefined;
    const trips = await roundTrips(async () => {
      res = await api("POST", `/v1/counters/group/${id}`, { as: service, body: { deltas: { posts: 2 } }, env: edge() });
    });
    expect(res!.status, show(res!)).toBe(200);
    expect(res!.body, show(res!)).toEqual({ entity: "group", id, deltas: { posts: 2 } });
    expect(trips).toBe(1);
    expect(countsOf(await read("group", [id], edge()), id).posts).toBe(2);
  });

  it("an idempotent replay answers the first answer with the counts as they are now", async () => {
    const id = newId();
    const headers = { "Idempotency-Key": `edge-${newId()}` };
    await read("user", [id], edge()); // cached in Redis: increments answer counts
    const first = await api("POST", `/v1/counters/user/${id}`, { as: service, headers, body: { deltas: { coins: 4 } }, env: edge() });
    const again = await api("POST", `/v1/counters/user/${id}`, { as: service, headers, body: { deltas: { coins: 4 } }, env: edge() });
    expect(first.body, show(first)).toMatchObject({ deltas: { coins: 4 }, counts: { coins: 4 } });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body, show(again)).toEqual(first.body);
  });

  it("like and unlike answer the post's counts with the change, and the next read agrees", async () => {
    const author = newId();
    const post = await api("POST", "/v1/posts", { as: { userId: author }, body: { text: "edge" }, env: chaosEnv });
    const postId = post.body.id as string;
    const fan = { userId: newId() };
    await read("post", [postId], edge()); // everyone's screen has it cached
    await api("PUT", `/v1/posts/${postId}/favorites/me`, { as: { userId: newId() }, env: edge() }); // every subscriber's script loaded
    let liked!: Awaited<ReturnType<typeof api>>;
    // The counts come back from the increment the like's event runs: still one Redis round trip.
    expect(await roundTrips(async () => void (liked = await api("PUT", `/v1/posts/${postId}/likes/me`, { as: fan, env: edge() })))).toBe(1);
    expect(liked.status, show(liked)).toBe(200);
    expect(liked.body, show(liked)).toMatchObject({ postId, liked: true, changed: true, counts: { likes: 1 } });
    expect(countsOf(await read("post", [postId], edge()), postId).likes).toBe(1);
    const again = await api("PUT", `/v1/posts/${postId}/likes/me`, { as: fan, env: edge() });
    expect(again.body, show(again)).toMatchObject({ changed: false, counts: { likes: 1 } });
    const unliked = await api("DELETE", `/v1/posts/${postId}/likes/me`, { as: fan, env: edge() });
    expect(unliked.body, show(unliked)).toMatchObject({ liked: false, changed: true, counts: { likes: 0 } });
    expect(countsOf(await read("post", [postId], edge()), postId).likes).toBe(0);
    const favorited = await api("PUT", `/v1/posts/${postId}/favorites/me`, { as: fan, env: edge() });
    expect(favorited.body, show(favorited)).toMatchObject({ favorited: true, changed: true, counts: { favorites: 2, likes: 0 } });
  });
});
