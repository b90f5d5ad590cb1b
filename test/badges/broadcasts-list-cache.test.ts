/**
 * The broadcasts list near the user (src/badges/broadcasts.ts, docs/badges-lists.md): every
 * database keeps the newest broadcasts (`badge:bc:items`) beside the id window, so a first page and
 * the user's marker and unread count are one read-only script a read region answers; a broadcast
 * shows on the next page read without any resync; a first page naming one whose JSON the database
 * lacks answers from Postgres and the database is resynced after the answer; pages past the kept broadcasts read Postgres; Redis down,
 * Postgres answers with `degraded`. Pages are compared field by field with Postgres.
 *
 * Broadcasts are global and other files publish some too: a comparison with Postgres is retried
 * when a broadcast landed between the two reads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { broadcastsFromPostgres, createBroadcast, listBroadcasts, readBroadcasts } from "../../src/badges/broadcasts";
import { badgeKeys, BROADCAST_LIST_WINDOW } from "../../src/badges/keys";
import type { Env } from "../../src/env";
import { decodeCursor } from "../../src/lib/pagination";
import type { Services } from "../../src/lib/services";
import { servicesFor } from "../counters/support";
import { api, newId, show } from "../support/api";
import { commandNames, recordRedisRequests, type RedisRequest, redisQuiet } from "../support/redis-requests";
import { createChaos, type Chaos } from "../support/stack";

const near = { REDIS_READ_REGIONS: "on" } satisfies Partial<Env>;
const { services, close } = servicesFor(near);
afterAll(() => close());

function deferred(base: Services = services) {
  const later: Promise<unknown>[] = [];
  const deps = Object.create(base, { waitUntil: { value: (p: Promise<unknown>) => void later.push(p) } }) as Services;
  return { deps, later };
}

/** `deps` whose Postgres fails any use: a page answered with it came from Redis alone. */
function noPostgres(deps: Services): Services {
  const db = new Proxy({}, { get: () => { throw new Error("this read must not reach Postgres"); } });
  return Object.create(deps, { db: { value: db } }) as Services;
}

async function listed(userId: string, page: { limit: number; cursor?: string }) {
  const { deps, later } = deferred();
  const answer = await listBroadcasts(deps, userId, page);
  await Promise.all(later);
  return answer;
}

const onBroadcasts = (requests: RedisRequest[]) => requests.filter((r) => r.commands.some((c) => c.some((arg) => String(arg) === badgeKeys.broadcastItems())));

/** The page from the list and from Postgres (items, next cursor: read against the answer's marker) agree; retried on a concurrent publish. */
async function expectExact(userId: string, page: { limit: number; cursor?: string }, what: string) {
  let got: Awaited<ReturnType<typeof listBroadcasts>> | undefined;
  let want: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    got = await listed(userId, page);
    const before = page.cursor ? BigInt(decodeCursor(page.cursor, 1)[0]!) : undefined;
    want = await broadcastsFromPostgres(services, before, page.limit, BigInt(got.lastReadId));
    if (JSON.stringify({ items: got.items, nextCursor: got.nextCursor }) === JSON.stringify(want)) break;
  }
  expect({ items: got!.items, nextCursor: got!.nextCursor }, what).toEqual(want);
  return got!;
}

const publish = (title: string) => createBroadcast(services, title, `body of ${title} ${"é".repeat(50)}`);

describe("GET /v1/me/broadcasts near the user", () => {
  it("a first page with the marker and unread count is one EVALSHA_RO, nothing for the primary, and shows a new broadcast at once", async () => {
    const user = newId();
    await listed(user, { limit: 5 }); // first sight: the marker is recorded after the answer
    const b = await publish("near one");
    await redisQuiet(); // the marker's record and the broadcast's queued work have landed: not this read's
    const { result, requests } = await recordRedisRequests(() => listBroadcasts(noPostgres(deferred().deps), user, { limit: 5 }));
    expect(commandNames(requests)).toEqual(["/ evalsha_ro"]);
    expect(requests[0]!.primary).toBe(false);
    expect(result.degraded).toBe(false);
    expect(result.unread).toBeGreaterThanOrEqual(1);
    expect(result.items).toContainEqual({ id: b.id, title: b.title, body: b.body, createdAt: b.createdAt, read: false });
    await expectExact(user, { limit: 5 }, "first page");
  });

  it("through the Worker: the same answer as Postgres, one read-only request for the page", async () => {
    const user = newId();
    await publish("worker one");
    const first = await api("GET", "/v1/me/broadcasts?limit=3", { as: { userId: user }, env: near });
    expect(first.status, show(first)).toBe(200);
    await redisQuiet(); // the broadcast's queued pushes have landed: not this read's
    const { result, requests } = await recordRedisRequests(() => api("GET", "/v1/me/broadcasts?limit=3", { as: { userId: user }, env: near }));
    expect(result.body.unread, show(result)).toBe(0);
    expect(commandNames(onBroadcasts(requests))).toEqual(["/ evalsha_ro"]);
    expect(requests.every((r) => !r.primary), commandNames(requests).join("; ")).toBe(true);
    const want = await broadcastsFromPostgres(services, undefined, 3, BigInt(result.body.lastReadId));
    expect({ items: result.body.items, nextCursor: result.body.nextCursor }).toEqual(want);
  });

  it("read flags follow the user's marker; random page sizes and cursors match Postgres", async () => {
    const user = newId();
    await listed(user, { limit: 1 });
    const made = [];
    for (let i = 0; i < 6; i++) made.push(await publish(`paged ${i}`));
    await readBroadcasts(services, user, made[2]!.id);
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 4; round++) {
      let cursor: string | undefined;
      for (let page = 0; page < 6; page++) {
        const got = await expectExact(user, { limit: 1 + rand(4), cursor }, `round ${round} page ${page}`);
        expect(got.lastReadId).toBe(made[2]!.id);
        if (!got.nextCursor) break;
        cursor = got.nextCursor;
      }
    }
  });

  it("a first page naming a broadcast whose JSON the database lacks is answered from Postgres, the database resynced after the answer", async () => {
    const user = newId();
    const b = await publish("missed one");
    await listed(user, { limit: 3 });
    await services.redis.hdel(badgeKeys.broadcastItems(), b.id);
    const { deps, later } = deferred();
    const answered = await recordRedisRequests(() => listBroadcasts(deps, user, { limit: 3 }), { holdPrimary: 10_000 });
    expect(answered.result.items.map((i) => i.id)).toContain(b.id);
    expect(await services.redis.hexists(badgeKeys.broadcastItems(), b.id), "not resynced before the answer").toBe(0);
    answered.release();
    await Promise.all(later);
    expect(await services.redis.hexists(badgeKeys.broadcastItems(), b.id)).toBe(1);
    const { requests } = await recordRedisRequests(() => listBroadcasts(noPostgres(deferred().deps), user, { limit: 3 }));
    expect(commandNames(requests)).toEqual(["/ evalsha_ro"]);
  });

  it("a page of broadcasts older than those kept reads Postgres, exactly", async () => {
    const user = newId();
    for (let i = 0; i < 3; i++) await publish(`old ${i}`);
    const first = await listed(user, { limit: 1 });
    // As if the broadcasts after the first were past the items window (trimmed).
    const kept = await services.redis.hkeys(badgeKeys.broadcastItems());
    expect(kept.length).toBeLessThanOrEqual(BROADCAST_LIST_WINDOW);
    const second = await listed(user, { limit: 2, cursor: first.nextCursor! });
    await services.redis.hdel(badgeKeys.broadcastItems(), ...second.items.map((i) => i.id));
    await expectExact(user, { limit: 2, cursor: first.nextCursor! }, "past the items");
    await services.redis.del(badgeKeys.broadcastItems()); // the next first page resyncs it
    await expectExact(user, { limit: 2 }, "after the loss");
    expect(await services.redis.hlen(badgeKeys.broadcastItems())).toBeGreaterThan(0);
  });

  it("a lost id window is resynced before answering, as the badges read does", async () => {
    const user = newId();
    await publish("window lost");
    await services.redis.del(badgeKeys.broadcastIds());
    const got = await expectExact(user, { limit: 4 }, "after the window loss");
    expect(got.items.length).toBeGreaterThan(0);
    expect(await services.redis.exists(badgeKeys.broadcastIds())).toBe(1);
  });
});

describe("GET /v1/me/broadcasts with Redis down", () => {
  let chaos: Chaos;
  beforeAll(async () => (chaos = await createChaos()));
  afterAll(async () => {
    await chaos.setRedisDown(false);
    await chaos.close();
  });

  it("answers from Postgres, degraded", async () => {
    const user = newId();
    await publish("while down");
    const viaChaos = { UPSTASH_REDIS_REST_URL: chaos.restUrl, UPSTASH_REDIS_REST_TOKEN: chaos.restToken };
    await chaos.setRedisDown(true);
    const res = await api("GET", "/v1/me/broadcasts?limit=2", { as: { userId: user }, env: viaChaos });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.degraded).toBe(true);
    expect(res.body.items.length).toBe(2);
  });
});
