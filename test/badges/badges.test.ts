import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBadges } from "../../src/badges/badges";
import { ACTIVE_RECORD_EVERY_MS, badgeKeys, STREAM_META } from "../../src/badges/keys";
import { repairBadges } from "../../src/badges/repair";
import type { Env } from "../../src/env";
import { httpDatabase } from "../../src/lib/db";
import { redisFor } from "../../src/lib/redis";
import type { Services } from "../../src/lib/services";
import { servicesFor } from "../counters/support";
import { api, newId, show } from "../support/api";
import { busyUser, service } from "./support";
import { badgesAnswers } from "./answers";
import { countBilledCommands } from "../support/billed";
import type { ScriptRunner } from "../../src/lib/script-batch";
import { createChaos, type Chaos } from "../support/stack";

const redis = redisFor(env as unknown as Env);
/** In process (`env` given), so the call's background writes (what its read found due) are done when it returns. */
const badges = async (userId: string, q = "", overrides: Partial<Env> = {}) => api("GET", `/v1/me/badges${q}`, { as: { userId }, env: overrides });

/** `services` with every database's client replaced by `redis` (a counting one): getBadges runs on the user's, `redisFor`. */
function onRedis(services: Services, redis: ScriptRunner): Services {
  const client = redis as Services["redis"];
  return { ...services, redis: client, redisAt: () => client, redisFor: () => client };
}

describe("GET /v1/me/badges: every kind", () => {
  badgesAnswers(() => newId());
});

describe("GET /v1/me/badges", () => {
  let chaos: Chaos;
  let viaChaos: Partial<Env>;
  beforeAll(async () => {
    chaos = await createChaos();
    viaChaos = { UPSTASH_REDIS_REST_URL: chaos.restUrl, UPSTASH_REDIS_REST_TOKEN: chaos.restToken };
  });
  afterAll(async () => {
    await chaos.setRedisDown(false);
    await chaos.close();
  });

  it("rejects a cap outside 1..999", async () => {
    for (const cap of ["0", "1000", "x"]) {
      const res = await badges(newId(), `?cap=${cap}`);
      expect(res.status, show(res)).toBe(400);
      expect(JSON.stringify(res.body)).toContain("cap");
    }
  });

  it("costs exactly one Redis round trip for a known user", async () => {
    const { me } = await busyUser();
    await badges(me, "", viaChaos); // first sight builds caches
    const before = await chaos.stats();
    const res = await badges(me, "", viaChaos);
    const after = await chaos.stats();
    expect(res.status, show(res)).toBe(200);
    expect(after.requests - before.requests).toBe(1);
  });

  it("answers 200 degraded when Redis is down; Postgres-backed writes are kept, Redis-only ones are 503", async () => {
    const me = newId();
    await api("POST", "/v1/messages", { as: service, body: { to: [me], type: "system", title: "t", content: "c" } });
    await chaos.setRedisDown(true);
    try {
      const res = await badges(me, "", viaChaos);
      expect(res.status, show(res)).toBe(200);
      expect(res.body.degraded).toBe(true);
      expect(res.body.inbox.total.count, "inbox comes from Postgres").toBe(1);
      expect(res.body.notifications.total.count).toBe(0);
      const kept = await api("POST", "/v1/messages", { as: service, body: { to: [me], type: "system", title: "t", content: "c" }, env: viaChaos });
      expect(kept.status, show(kept)).toBe(201);
      expect(kept.body.degraded).toBe(true);
      const failed = await api("POST", `/v1/users/${me}/notifications`, { as: service, body: { type: "like" }, env: viaChaos });
      expect(failed.status, show(failed)).toBe(503);
      for (const path of ["/v1/me/notifications", "/v1/me/dms", "/v1/me/reddots", "/v1/me/streams", "/v1/me/unread/authors", "/v1/me/broadcasts"]) {
        const read = await api("GET", path, { as: { userId: me }, env: viaChaos });
        expect(read.status, `${path}: ${show(read)}`).toBe(200);
        expect(read.body.degraded, path).toBe(true);
      }
    } finally {
      await chaos.setRedisDown(false);
    }
    expect((await badges(me)).body.inbox.total.count, "the cache was built after the outage from Postgres").toBe(2);
  });
});

describe("badges.repair (per-minute cron)", () => {
  it("repairs drifted inbox counts and stream markers of active users from Postgres", async () => {
    const { me, chat } = await busyUser();
    await badges(me);
    await redis.hset(badgeKeys.inbox(me), { system: 7, total: 7 });
    await redis.hdel(badgeKeys.streamAccess(me), `chat/${chat}`);
    const db = httpDatabase(env as unknown as Env);
    const close = async () => {};
    try {
      const result = await repairBadges({ db, databases: 1, redisAt: () => redis, redisFor: () => redis });
      expect(result.users).toBeGreaterThan(0);
    } finally {
      await close();
    }
    const b = (await badges(me)).body;
    expect(b.inbox.total.count).toBe(1);
    expect(b.streams.total.count).toBe(4);
  });
});

describe("badges.repair and the remembered stream counts", () => {
  const { services, close } = servicesFor();
  afterAll(() => close());

  it("keeps the counts of the streams that stay, so a repaired user's next call recounts nothing", async () => {
    const { me, chat } = await busyUser();
    const before = (await badges(me)).body;
    await redis.hset(badgeKeys.inbox(me), { system: 7, total: 7 }); // a drift: proves the repair reached this user
    const db = httpDatabase(env as unknown as Env);
    const closeDb = async () => {};
    try {
      await repairBadges({ db, databases: 1, redisAt: () => redis, redisFor: () => redis });
    } finally {
      await closeDb();
    }
    expect(await redis.hexists(badgeKeys.streamAccess(me), `${STREAM_META}chat/${chat}`)).toBe(1);
    const { redis: counted, billed } = countBilledCommands(services.redis);
    const after = await getBadges(onRedis(services, counted), me, 99);
    expect(billed).toEqual([18]);
    expect(after).toEqual(before);
  });
});

describe("per-user cache lifetimes", () => {
  it("renews a reading user's cache TTLs on their first badges call of a day, and only then", async () => {
    const [me, author] = [newId(), newId()];
    await api("PUT", `/v1/me/following/${author}`, { as: { userId: me } });
    expect((await badges(me)).status).toBe(200);
    const ttlOf = () => redis.ttl(badgeKeys.authorSeen(me));
    expect(await ttlOf()).toBeGreaterThan(29 * 24 * 3600);

    // Later the same day: a call renews nothing.
    await redis.expire(badgeKeys.authorSeen(me), 100);
    await badges(me);
    expect(await ttlOf()).toBeLessThanOrEqual(100);

    // A new day (the marker of the last renewal is from an earlier day): the call renews.
    await redis.hset(badgeKeys.markers(me), { ttlDay: 1 });
    await badges(me);
    expect(await ttlOf()).toBeGreaterThan(29 * 24 * 3600);
    expect(await redis.ttl(badgeKeys.markers(me))).toBeGreaterThan(29 * 24 * 3600);
  });
});

describe("what one GET /v1/me/badges bills", () => {
  const { services, close } = servicesFor();
  afterAll(() => close());
  /**
   * The badges the route answers, the billed commands of each script call that made them (`billed`),
   * and of each call written after the answer (`after`: what the read found due, `waitUntil`).
   */
  const billedBadges = async (userId: string) => {
    const { redis: counted, billed } = countBilledCommands(services.redis);
    const background: Promise<unknown>[] = [];
    // getBadges only runs scripts on its Redis client (one EVALSHA_RO), which is all `counted` offers.
    const body = await getBadges({ ...onRedis(services, counted), waitUntil: (p) => void background.push(p) }, userId, 99);
    const read = [...billed];
    await Promise.all(background);
    return { body, billed: read, after: billed.slice(read.length) };
  };

  it("bills 18 for a known user with stream news: EVALSHA_RO, one read per hash, ZCOUNT of the broadcast ids, HMGET of the versions, GET + SMEMBERS + ZCOUNT of the feed, EXISTS + ZUNION of the safety sets; nothing after", async () => {
    const { me } = await busyUser();
    const first = (await badges(me)).body; // builds the caches, records the user, renews the TTLs, counts the stream
    const { body, billed, after } = await billedBadges(me);
    expect(billed).toEqual([18]);
    expect(after, "a warm call writes nothing").toEqual([]);
    expect(body).toEqual(first);
  });

  it("recounts a stream once after a new item (+ ZCOUNT), remembers the count after the answer (EVALSHA + HMGET of the markers, HMGET + HSET of the count), then reuses it", async () => {
    const { me, chat } = await busyUser();
    await badges(me);
    await api("POST", `/v1/streams/chat/${chat}/items`, { as: service, body: { at: Date.now() + 120_000 } });
    const changed = await billedBadges(me);
    expect(changed.billed).toEqual([19]);
    expect(changed.after).toEqual([4]);
    expect(changed.body.streams.byStream[`chat/${chat}`]).toEqual({ count: 5, capped: false });
    const again = await billedBadges(me);
    expect(again.billed).toEqual([18]);
    expect(again.after).toEqual([]);
    expect(again.body).toEqual(changed.body);
  });

  it("remembers a count only where the membership and the cache are still there when it is written", async () => {
    const read = async (me: string) => {
      const background: Promise<unknown>[] = [];
      await getBadges({ ...onRedis(services, countBilledCommands(services.redis).redis), waitUntil: (p) => void background.push(p) }, me, 99);
      return () => Promise.all(background);
    };
    // The user leaves the stream between the read and the write: no count of a stream they left.
    const left = await busyUser();
    await badges(left.me);
    await api("POST", `/v1/streams/chat/${left.chat}/items`, { as: service, body: { at: Date.now() + 120_000 } });
    let written = await read(left.me);
    expect((await api("DELETE", `/v1/streams/chat/${left.chat}/members/${left.me}`, { as: service })).status).toBe(200);
    await written();
    expect(await redis.hexists(badgeKeys.streamAccess(left.me), `${STREAM_META}chat/${left.chat}`)).toBe(0);
    // The cache is lost between the read and the write: not recreated without its sentinel.
    const lost = await busyUser();
    await badges(lost.me);
    await api("POST", `/v1/streams/chat/${lost.chat}/items`, { as: service, body: { at: Date.now() + 120_000 } });
    written = await read(lost.me);
    await redis.del(badgeKeys.streamAccess(lost.me));
    await written();
    expect(await redis.exists(badgeKeys.streamAccess(lost.me))).toBe(0);
    expect((await badges(lost.me)).body.streams.byStream[`chat/${lost.chat}`]).toEqual({ count: 5, capped: false });
  });

  it("counts a stream without a version (items added before versions existed) on every call", async () => {
    const { me, chat } = await busyUser();
    await redis.hdel(badgeKeys.streamLastItem(), `${STREAM_META}chat/${chat}`);
    await badges(me);
    for (let i = 0; i < 2; i++) {
      const { body, billed, after } = await billedBadges(me);
      expect(billed).toEqual([19]);
      expect(after).toEqual([]);
      expect(body.streams.byStream[`chat/${chat}`]).toEqual({ count: 4, capped: false });
    }
  });

  it("records the user in the active set on their first call of a minute only, after the answer (EVALSHA + HMGET + ZADD + HSET)", async () => {
    const { me } = await busyUser();
    await badges(me);
    const recorded = await redis.zscore(badgeKeys.activeUsers(), me);
    expect(recorded).not.toBeNull();
    expect(await billedBadges(me)).toMatchObject({ billed: [18], after: [] });
    expect(await redis.zscore(badgeKeys.activeUsers(), me), "a call within the minute records nothing").toBe(recorded);
    await redis.hset(badgeKeys.markers(me), { act: Number(recorded) - ACTIVE_RECORD_EVERY_MS });
    expect(await billedBadges(me)).toMatchObject({ billed: [18], after: [4] });
    expect(Number(await redis.zscore(badgeKeys.activeUsers(), me))).toBeGreaterThan(Number(recorded));
  });
});

describe("GET /v1/bench/naive-badges", () => {
  it("does not exist in the Worker (the bench entry adds it)", async () => {
    const res = await api("GET", "/v1/bench/naive-badges", { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(404);
  });
});
