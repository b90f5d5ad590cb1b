/**
 * Badges over three Redis databases (the test stack's, `test/support/databases.ts`), each reached
 * through a private chaos bridge so that one can be killed and its requests counted without noise
 * from other test files: the badges call is one request to the user's database, billed as at N = 1;
 * the global keys it reads are written to every database; one database's outage degrades only its
 * users, the others stay exact, and the repair cron brings it back to what was written meanwhile; a
 * badge hub's `feed` reads are one request per database of its users.
 */
import { describe, expect, it } from "vitest";
import { getBadges } from "../../src/badges/badges";
import { badgeKeys } from "../../src/badges/keys";
import { readFeedUnseenMany } from "../../src/feed/unseen";
import { feedKeys } from "../../src/feed/keys";
import { repairBadges } from "../../src/badges/repair";
import type { Env } from "../../src/env";
import { redisAt } from "../../src/lib/redis";
import type { ScriptRunner } from "../../src/lib/script-batch";
import type { Services } from "../../src/lib/services";
import { servicesFor } from "../counters/support";
import { api, newId, show } from "../support/api";
import { countBilledCommands } from "../support/billed";
import { newIdOn, useChaosDatabases } from "../support/databases";
import { admin, busyUser, service } from "./support";

const databases = useChaosDatabases();
const { enough, pairs } = databases;

const badges = (userId: string, overrides: Partial<Env> | undefined = databases.env) => api("GET", "/v1/me/badges", { as: { userId }, env: overrides });

async function ok(method: string, path: string, as: { userId: string; role?: "service" | "admin" }, body?: unknown) {
  const res = await api(method, path, { as, body, env: databases.env });
  expect(res.status, `${method} ${path}: ${show(res)}`).toBeLessThan(300);
  return res.body;
}

/** Requests that reached each database's bridge during `call`. */
async function requestsPerDatabase(call: () => Promise<unknown>): Promise<number[]> {
  const before = await Promise.all(pairs.map((p) => p.stats()));
  await call();
  const after = await Promise.all(pairs.map((p) => p.stats()));
  return after.map((a, i) => a.requests - before[i]!.requests);
}

/** What one getBadges of `userId` bills, script call by script call, with `overrides`' databases. */
async function billedBadges(userId: string, overrides: Partial<Env>): Promise<number[]> {
  const { services, close } = servicesFor(overrides);
  try {
    const { redis: counted, billed } = countBilledCommands(services.redisFor(userId));
    const client = counted as ScriptRunner as Services["redis"];
    await getBadges({ ...services, redis: client, redisAt: () => client, redisFor: () => client }, userId, 99);
    return billed;
  } finally {
    await close();
  }
}

describe.skipIf(!enough)("badges at N = 3: round trips and billed commands", () => {
  it("GET /v1/me/badges of a known user is one request, to the user's database, billed as at N = 1", async () => {
    const atOne = await busyUser();
    // Builds the caches and counts the stream; a database whose broadcast window was missing has it
    // synced after the first call, and the user's first-seen marker recorded after the second.
    for (let i = 0; i < 2; i++) await badges(atOne.me, {});
    const billedAtOne = await billedBadges(atOne.me, {});
    expect(billedAtOne).toEqual([18]);
    for (const index of [0, 1, 2]) {
      const { me } = await busyUser(databases.env, newIdOn(index, 3));
      for (let i = 0; i < 2; i++) await badges(me);
      const counts = await requestsPerDatabase(async () => {
        const res = await badges(me);
        expect(res.status, show(res)).toBe(200);
        expect(res.body.degraded).toBe(false);
      });
      expect(counts, `user on database ${index}`).toEqual([0, 1, 2].map((i) => (i === index ? 1 : 0)));
      expect(await billedBadges(me, databases.env), `user on database ${index}`).toEqual(billedAtOne);
    }
  });

  it("a user's write is one request to their database; a broadcast, a red-dot refresh, a stream item one to each", async () => {
    const me = newIdOn(2, 3);
    const ch = `rt-${newId()}`;
    const chat = newId();
    // First calls load the scripts (a NOSCRIPT costs one more request).
    await ok("POST", `/v1/users/${me}/notifications`, service, { type: "like" });
    // A first DM also caches the recipient's safety sets (a rebuild from Postgres on a miss).
    await ok("POST", `/v1/dms/${me}`, service, { from: newId() });
    await ok("PUT", `/v1/reddots/${ch}`, admin);
    await ok("POST", `/v1/streams/chat/${chat}/items`, service, {});
    await ok("POST", "/v1/broadcasts", admin, { title: "t", body: "b" });
    // The write, and after the response (the user has no open socket) the GET of their cached
    // device list that decides whether a push is queued: both on their database.
    expect(await requestsPerDatabase(() => ok("POST", `/v1/users/${me}/notifications`, service, { type: "like" }))).toEqual([0, 0, 2]);
    expect(await requestsPerDatabase(() => ok("POST", `/v1/dms/${me}`, service, { from: newId() }))).toEqual([0, 0, 2]);
    expect(await requestsPerDatabase(() => ok("PUT", `/v1/reddots/${ch}`, admin))).toEqual([1, 1, 1]);
    expect(await requestsPerDatabase(() => ok("POST", `/v1/streams/chat/${chat}/items`, service, {}))).toEqual([1, 1, 1]);
    expect(await requestsPerDatabase(() => ok("POST", "/v1/broadcasts", admin, { title: "t", body: "b" }))).toEqual([1, 1, 1]);
    // The keys are where they belong: the user's on their database only, the global ones on all three.
    for (let i = 0; i < 3; i++) {
      const redis = redisAt(databases.env as Env, i);
      expect(await redis.exists(badgeKeys.notifications(me)), `notifications on database ${i}`).toBe(i === 2 ? 1 : 0);
      expect(await redis.hexists(badgeKeys.reddotChannels(), ch), `channel on database ${i}`).toBe(1);
      expect(await redis.hexists(badgeKeys.streamLastItem(), `chat/${chat}`), `stream on database ${i}`).toBe(1);
    }
  });
});

describe.skipIf(!enough)("a badge hub's feed reads at N = 3", () => {
  it("are one request per database holding some of the users, each user's count from their database", async () => {
    const homes = [0, 1, 2, 0, 2];
    const users = homes.map((i) => newIdOn(i, 3));
    const marker = 1_000;
    // Each user's timeline on their database (sentinel, 3 posts at or below the marker), and k posts
    // above it for the k-th user.
    for (const [k, u] of users.entries()) {
      const posts = [marker - 2, marker - 1, marker, ...Array.from({ length: k }, (_, p) => marker + 1 + p)];
      const redis = redisAt(databases.env as Env, homes[k]!);
      await redis.zadd(feedKeys.timeline(u), { score: 0, member: "0" }, ...posts.map((id) => ({ score: id, member: `${id}:${newId()}` })));
      await redis.set(feedKeys.seen(u), marker);
    }
    const { services, close } = servicesFor(databases.env);
    try {
      expect(await readFeedUnseenMany(services, users, 200)).toEqual([0, 1, 2, 3, 4]); // loads the script everywhere
      let counts: (number | null)[] = [];
      expect(await requestsPerDatabase(async () => void (counts = await readFeedUnseenMany(services, users, 200)))).toEqual([1, 1, 1]);
      expect(counts).toEqual([0, 1, 2, 3, 4]);
      expect(await requestsPerDatabase(() => readFeedUnseenMany(services, [users[1]!], 200))).toEqual([0, 1, 0]);
    } finally {
      await close();
    }
  });
});

describe.skipIf(!enough)("badges at N = 3: one database killed mid-traffic", () => {
  it("its users' badges answer degraded, the others stay exact, and nothing written meanwhile is lost", async () => {
    const users = [0, 1, 2].map((i) => newIdOn(i, 3));
    const [author, chat, peer, ch] = [newId(), newId(), newId(), `out-${newId()}`];
    const model = new Map(users.map((u) => [u, { notifications: 0, dms: 0, inbox: 0, authors: 0, streams: 0 }]));
    await ok("PUT", `/v1/reddots/${ch}`, admin);
    for (const u of users) {
      await ok("PUT", `/v1/me/following/${author}`, { userId: u });
      await ok("PUT", `/v1/streams/chat/${chat}/members/${u}`, service);
      await ok("POST", `/v1/me/reddots/${ch}/seen`, { userId: u });
      expect((await badges(u)).body.degraded).toBe(false); // builds the caches; records the user as active
    }
    const expectExact = async (u: string, when: string) => {
      const b = (await badges(u)).body;
      const want = model.get(u)!;
      expect(b.degraded, `${when}: ${u}`).toBe(false);
      expect(
        { notifications: b.notifications.total.count, dms: b.dms.count, inbox: b.inbox.total.count, authors: b.authors.count, streams: b.streams.total.count },
        `${when}: user on database ${users.indexOf(u)}`,
      ).toEqual(want);
      return b;
    };
    /** A round of traffic: each user's own writes (those of `down` users are refused, 503), and the shared ones. */
    const traffic = async (down: Set<string>) => {
      for (const u of users) {
        const n = await api("POST", `/v1/users/${u}/notifications`, { as: service, body: { type: "reply", count: 2 }, env: databases.env });
        const d = await api("POST", `/v1/dms/${u}`, { as: service, body: { from: peer, count: 1 }, env: databases.env });
        expect([n.status, d.status], `${u}: ${show(n)} ${show(d)}`).toEqual(down.has(u) ? [503, 503] : [200, 200]);
        if (!down.has(u)) {
          model.get(u)!.notifications += 2;
          model.get(u)!.dms += 1;
        }
      }
      const sent = await ok("POST", "/v1/messages", service, { to: users, type: "system", title: "t", content: "c" });
      expect(sent.degraded, "a message whose recipients' database is down is kept in Postgres").toBe(down.size > 0);
      await ok("POST", "/v1/posts", { userId: author }, { text: "p" });
      await ok("POST", `/v1/streams/chat/${chat}/items`, service, { at: Date.now() + 60_000 });
      for (const u of users) {
        model.get(u)!.inbox += 1;
        model.get(u)!.authors += 1;
        model.get(u)!.streams += 1;
      }
    };

    await traffic(new Set());
    for (const u of users) await expectExact(u, "before the outage");

    await pairs[1]!.setRedisDown(true);
    let broadcastId: string;
    try {
      await traffic(new Set([users[1]!]));
      const broadcast = await ok("POST", "/v1/broadcasts", admin, { title: "during", body: "the outage" });
      expect(broadcast.degraded, "databases 0 and 2 took the broadcast").toBe(false);
      broadcastId = broadcast.id;
      await ok("PUT", `/v1/reddots/${ch}`, admin);
      for (const u of [users[0]!, users[2]!]) {
        const b = await expectExact(u, "during the outage");
        expect(b.reddots[ch], "the refresh reached the others").toBe(true);
      }
      const down = (await badges(users[1]!)).body;
      expect(down.degraded, "the user of the dead database").toBe(true);
      expect(down.inbox.total.count, "inbox from Postgres").toBe(model.get(users[1]!)!.inbox);
    } finally {
      await pairs[1]!.setRedisDown(false);
    }

    // The cron's repair: the broadcast id, the red-dot refresh, the inbox count, the post's count
    // and the stream item database 1 missed.
    const { services, close } = servicesFor(databases.env);
    try {
      const report = await repairBadges(services);
      expect(report).toMatchObject({ databasesFailed: 0 });
      expect((report as { channelsRaised: number }).channelsRaised).toBeGreaterThanOrEqual(1);
      expect((report as { replayed: number }).replayed, "the post's count and the stream item").toBeGreaterThanOrEqual(2);
      // A second run replays nothing again (each owed write runs once).
      expect(await repairBadges(services)).toMatchObject({ replayed: 0 });
    } finally {
      await close();
    }
    const db1 = redisAt(databases.env as Env, 1);
    expect(await db1.zscore(badgeKeys.broadcastIds(), broadcastId!), "the broadcast id is back in database 1").not.toBeNull();
    // The refused writes are retried by their callers, as after any outage.
    await ok("POST", `/v1/users/${users[1]}/notifications`, service, { type: "reply", count: 2 });
    await ok("POST", `/v1/dms/${users[1]}`, service, { from: peer, count: 1 });
    model.get(users[1]!)!.notifications += 2;
    model.get(users[1]!)!.dms += 1;
    // The post's count and the stream item database 1 missed were owed to it and replayed: every
    // count of its user is exact again.
    for (const u of users) {
      const b = await expectExact(u, "after the outage and the repair");
      expect(b.reddots[ch], `the refresh during the outage shows to the user on database ${users.indexOf(u)}`).toBe(true);
    }
  });
});
