/**
 * Badge reads near the user (docs/regions.md, "Badges near the user"): a warm `GET /v1/me/badges` and the
 * badge hubs' reads send only commands a read region of a Global database answers itself
 * (EVALSHA_RO and read commands), so nothing of them crosses to the primary; what a read finds due
 * or missing is written after it, a call of its own. Run at N = 1 (read-only.test.ts) and at N = 3
 * (read-only-databases.test.ts, the workers-n3 project), users on each database.
 *
 * Every request the domain functions send is recorded at the client (one entry per REST request,
 * the database it went to, and whether it writes by the rule the Worker's own read-your-writes
 * hook uses, `writesData`: the near-region bridge's and Upstash's routing rule).
 */
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { Redis } from "@upstash/redis/cloudflare";
import { getBadges, getBadgesAndBigFollows } from "../../src/badges/badges";
import { badgeKeys } from "../../src/badges/keys";
import { readCheapKinds } from "../../src/badges/live/values";
import type { Env } from "../../src/env";
import { maxPulledAccounts } from "../../src/feed/keys";
import { readFeedUnseenMany } from "../../src/feed/unseen";
import { writesData } from "../../src/lib/consistency";
import { redisAt } from "../../src/lib/redis";
import { databaseOf, topologyOf } from "../../src/lib/redis-topology";
import type { Services } from "../../src/lib/services";
import { servicesFor } from "../counters/support";
import { api, newId, show } from "../support/api";
import { workerDatabases } from "../support/databases";
import { eventually } from "../support/eventually";
import { busyUser } from "./support";

/** One REST request a client sent: to which database, its commands' names, whether it writes. */
type Sent = { database: number; commands: string[]; writes: boolean };

/**
 * `services` whose every database's client records the requests it sends; `waitUntil` keeps the
 * background work so a test can tell what was sent for the answer from what followed it.
 */
function recorded(services: Services) {
  const { databases } = topologyOf(services.env);
  const sent: Sent[] = [];
  const background: Promise<unknown>[] = [];
  const clients = databases.map(({ url, token }, database) => {
    const client = new Redis({ url, token, enableTelemetry: false, enableAutoPipelining: false });
    const holder = client as unknown as { client: { request(req: { body?: unknown }): Promise<unknown> } };
    holder.client = new Proxy(holder.client, {
      get: (target, prop) =>
        prop === "request"
          ? (req: { body?: unknown }) => {
              const body = req.body as unknown[];
              const commands = (Array.isArray(body?.[0]) ? (body as unknown[][]) : [body]).map((c) => String(c[0]).toUpperCase());
              sent.push({ database, commands, writes: writesData(body) });
              return target.request(req);
            }
          : Reflect.get(target, prop, target),
    });
    return client as unknown as Services["redis"];
  });
  const n = databases.length;
  const view: Services = Object.create(services, {
    redis: { value: clients[0] },
    redisAt: { value: (index: number) => clients[index] },
    redisFor: { value: (ownerId: string) => clients[databaseOf(ownerId, n)] },
    waitUntil: { value: (p: Promise<unknown>) => void background.push(p) },
  });
  return { services: view, sent, settle: () => Promise.all(background), mark: () => sent.length };
}

/** In process, so the call's background writes are done when it returns. */
const badges = (userId: string, overrides: Partial<Env> = {}) => api("GET", "/v1/me/badges", { as: { userId }, env: overrides });

/** A user with something of every kind, a home timeline with news, and their caches warm (calls made, background writes done). */
async function warmUser(userId: string) {
  const user = await busyUser(undefined, userId);
  expect((await api("GET", "/v1/me/feed?limit=5", { as: { userId } })).status).toBe(200); // builds the timeline, sets the marker
  expect((await api("POST", "/v1/posts", { as: { userId: user.author }, body: { text: "after the read" } })).status).toBe(201);
  // The post reaches the timeline through the fan-out queue, on its own time: wait for it, so the
  // reads a test compares (a snapshot, then a cheap kind) do not straddle its arrival.
  const landed = await eventually(() => badges(userId), (res) => (res.body as { feed?: { count: number } }).feed?.count === 1, 10_000);
  expect((landed.body as { feed?: unknown }).feed, show(landed)).toEqual({ count: 1, capped: false });
  expect((await badges(userId)).status).toBe(200);
  return user;
}

export function readOnlyBadges(userOn: (i: number) => string) {
  const n = workerDatabases();

  it("a warm GET /v1/me/badges sends one read-only request, to the user's database, and nothing after", async () => {
    const { services, close } = servicesFor();
    try {
      for (let i = 0; i < n; i++) {
        const { me } = await warmUser(userOn(i));
        const on = `user on database ${i} of ${n}`;
        const rec = recorded(services);
        await getBadges(rec.services, me, 99); // loads the script into this client's path if it must (NOSCRIPT, then EVAL_RO)
        await rec.settle();
        const from = rec.mark();
        const answer = await getBadges(rec.services, me, 99);
        const forAnswer = rec.sent.slice(from);
        await rec.settle();
        expect(forAnswer, on).toEqual([{ database: i, commands: ["EVALSHA_RO"], writes: false }]);
        expect(rec.sent.length - from, `${on}: nothing written after the answer`).toBe(1);
        // Every kind is there, and it is what the route answers.
        expect(answer.notifications.total.count, on).toBe(5);
        expect(answer.dms.count, on).toBe(5);
        expect(answer.streams.total.count, on).toBe(4);
        expect(answer.inbox.total.count, on).toBe(1);
        expect(answer.authors.count, on).toBeGreaterThanOrEqual(2);
        const http = await badges(me);
        expect(http.status, show(http)).toBe(200);
        expect(http.body, on).toEqual(answer);
      }
    } finally {
      await close();
    }
  });

  it("a warm GET /v1/me/badges through the Worker with read regions on answers no consistency token: it wrote nothing", async () => {
    for (let i = 0; i < n; i++) {
      const { me } = await warmUser(userOn(i));
      const res = await badges(me, { REDIS_READ_REGIONS: "on" });
      expect(res.status, show(res)).toBe(200);
      expect(res.headers.get("X-Consistency-Token"), `user on database ${i}: the badges call wrote`).toBeNull();
      // The check can fail: a write through the same path answers one.
      const wrote = await api("POST", `/v1/me/dms/${newId()}/read`, { as: { userId: me }, env: { REDIS_READ_REGIONS: "on" } });
      expect(wrote.headers.get("X-Consistency-Token"), show(wrote)).not.toBeNull();
    }
  });

  it("the badge hubs' reads (a snapshot, a cheap kind, a fan-out page's feed counts) send only read-only requests", async () => {
    const { services, close } = servicesFor();
    try {
      const users = [];
      for (let i = 0; i < n; i++) users.push((await warmUser(userOn(i))).me);
      const maxPulled = maxPulledAccounts(env as unknown as Env);
      const rec = recorded(services);
      // Twice: the first may load the scripts (NOSCRIPT, then EVAL_RO); both must be reads.
      for (let round = 0; round < 2; round++) {
        for (const me of users) {
          const { badges: snapshot, bigFollows } = await getBadgesAndBigFollows(rec.services, me, 99);
          expect(snapshot.degraded).toBe(false);
          expect(bigFollows).toEqual([]);
          const { values } = await readCheapKinds(rec.services.redisFor(me), me, 99, ["notifications", "dms", "feed"], maxPulled);
          expect(values.notifications?.total.count).toBe(5);
          expect(values.dms?.count).toBe(5);
          expect(values.feed).toEqual(snapshot.feed);
        }
        const counts = await readFeedUnseenMany(rec.services, users, maxPulled);
        expect(counts.every((c) => typeof c === "number")).toBe(true);
        await rec.settle();
      }
      expect(rec.sent.filter((s) => s.writes)).toEqual([]);
      expect(new Set(rec.sent.flatMap((s) => s.commands))).toEqual(new Set(rec.sent.some((s) => s.commands.includes("EVAL_RO")) ? ["EVALSHA_RO", "EVAL_RO"] : ["EVALSHA_RO"]));
    } finally {
      await close();
    }
  });

  it("a cold call answers from what it has and Postgres, writes the rebuilds after (the recorder sees writes), then is warm", async () => {
    const { services, close } = servicesFor();
    try {
      const me = userOn(n - 1);
      const { chat } = await busyUser(undefined, me);
      await badges(me);
      const redis = redisAt(env as unknown as Env, databaseOf(me, n));
      await redis.del(badgeKeys.authorSeen(me), badgeKeys.streamAccess(me), badgeKeys.inbox(me), badgeKeys.markers(me));
      const rec = recorded(services);
      const cold = await getBadges(rec.services, me, 99);
      expect(cold.inbox.total.count).toBe(1);
      expect(cold.streams.byStream[`chat/${chat}`]).toEqual({ count: 4, capped: false });
      expect(cold.authors.count).toBe(0);
      await rec.settle();
      const writes = rec.sent.filter((s) => s.writes);
      expect(writes.length, "the rebuilds and the first-seen marker are writes").toBeGreaterThanOrEqual(4);
      expect(new Set(writes.map((s) => s.database))).toEqual(new Set([databaseOf(me, n)]));
      // The next call remembers the stream's count in the rebuilt cache (a write after it), the one after is warm.
      expect(await getBadges(rec.services, me, 99)).toEqual(cold);
      await rec.settle();
      const from = rec.mark();
      expect(await getBadges(rec.services, me, 99)).toEqual(cold);
      await rec.settle();
      expect(rec.sent.slice(from)).toEqual([{ database: databaseOf(me, n), commands: ["EVALSHA_RO"], writes: false }]);
    } finally {
      await close();
    }
  });
}
