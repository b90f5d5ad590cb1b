/**
 * What a badges call answers, against the Worker's own bindings: at N = 1 (test/badges/badges.test.ts)
 * and at N = 3 (badges-databases.test.ts, the workers-n3 project), where users are spread over the
 * three databases (`userOn(i)`) and each key is read and deleted on its owner's database.
 */
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { badgeKeys } from "../../src/badges/keys";
import type { Env } from "../../src/env";
import { redisAt } from "../../src/lib/redis";
import { databaseOf } from "../../src/lib/redis-topology";
import { api, show } from "../support/api";
import { workerDatabases } from "../support/databases";
import { eventually } from "../support/eventually";
import { busyUser, service } from "./support";

const badges = async (userId: string, q = "") => api("GET", `/v1/me/badges${q}`, { as: { userId } });

export function badgesAnswers(userOn: (i: number) => string) {
  const n = workerDatabases();
  const redisOf = (userId: string) => redisAt(env as unknown as Env, databaseOf(userId, n));

  it("returns every kind, equal to the per-kind endpoints", async () => {
    for (let i = 0; i < n; i++) {
      const { me, chat, ch } = await busyUser(undefined, userOn(i));
      const res = await badges(me);
      expect(res.status, show(res)).toBe(200);
      const b = res.body;
      const as = { as: { userId: me } };
      const notifications = (await api("GET", "/v1/me/notifications", as)).body;
      const authors = (await api("GET", "/v1/me/unread/authors", as)).body;
      const streams = (await api("GET", "/v1/me/streams", as)).body;
      const dms = (await api("GET", "/v1/me/dms", as)).body;
      const messages = (await api("GET", "/v1/me/messages?unread=true", as)).body;
      const dots = (await api("GET", "/v1/me/reddots", as)).body.dots;
      const on = `user on database ${i} of ${n}`;
      expect(b.degraded, on).toBe(false);
      expect(b.notifications.total.count, on).toBe(notifications.total);
      expect(b.notifications.total.count, on).toBe(5);
      expect(b.authors.count, on).toBe(authors.items.reduce((s: number, a: { unread: number }) => s + a.unread, 0));
      expect(b.authors.count, on).toBe(2);
      expect(b.streams.total.count, on).toBe(streams.total);
      expect(b.streams.byStream[`chat/${chat}`], on).toEqual({ count: 4, capped: false });
      expect(b.dms.count, on).toBe(dms.total);
      expect(b.dms.count, on).toBe(5);
      expect(b.inbox.total.count, on).toBe(messages.items.length);
      expect(b.inbox.total.count, on).toBe(1);
      expect(b.reddots[ch], on).toBe(dots[ch]);
      expect(b.reddots[ch], on).toBe(true);
    }
  });

  it("caps every number and flags it", async () => {
    const me = userOn(n - 1);
    await api("POST", `/v1/users/${me}/notifications`, { as: service, body: { type: "like", count: 150 } });
    const b = (await badges(me)).body;
    expect(b.notifications.total).toEqual({ count: 99, capped: true });
    expect(b.notifications.byType.like).toEqual({ count: 99, capped: true });
    expect((await badges(me, "?cap=200")).body.notifications.total).toEqual({ count: 150, capped: false });
  });

  it("answers lost caches from Postgres and rebuilds them beside the answer", async () => {
    const { me } = await busyUser(undefined, userOn(n - 1));
    const before = (await badges(me)).body;
    const lost = [badgeKeys.authorSeen(me), badgeKeys.streamAccess(me), badgeKeys.inbox(me)];
    await redisOf(me).del(...lost);
    const after = (await badges(me)).body;
    expect(after.inbox).toEqual(before.inbox);
    expect(after.streams).toEqual(before.streams);
    expect(after.authors.count, "a rebuilt follow cache starts at the current counts").toBe(0);
    // The read wrote nothing itself; the rebuilds followed it (`waitUntil`).
    expect(await eventually(() => redisOf(me).exists(...lost), (k) => k === lost.length, 5_000)).toBe(lost.length);
    expect((await badges(me)).body).toEqual(after);
  });
}
