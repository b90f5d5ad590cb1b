/**
 * Live rooms over three Redis databases (the test stack's, `test/support/databases.ts`), each
 * reached through a private chaos bridge so that one can be killed and its requests counted without
 * noise from other files: a room's batched follow lookups are one request per database holding
 * viewers (each follow cache is on its viewer's database); one database killed mid-traffic
 * degrades only its viewers' lookups (answered by Postgres, as a full outage does) while the
 * others stay exact and served by their caches, and nothing is lost.
 */
import { describe, expect, it } from "vitest";
import { warmAuthorSeen } from "../../src/badges/authors";
import { badgeKeys, BUILT } from "../../src/badges/keys";
import type { Env } from "../../src/env";
import { redisAt } from "../../src/lib/redis";
import type { Services } from "../../src/lib/services";
import { FanLookups } from "../../src/live/fan-lookups";
import { isFanOf } from "../../src/live/rooms";
import { servicesFor } from "../counters/support";
import { api, newId, show } from "../support/api";
import { costOn } from "../support/admission-refreshes";
import { newIdOn, useChaosDatabases } from "../support/databases";
import { follow, lookUpFansThrough, newRoom, startSession } from "./helpers";

const databases = useChaosDatabases();
const { enough, pairs } = databases;

/** Requests and billed commands each database's bridge took for `call` (its admission upkeep left out). */
async function perDatabase(call: () => Promise<unknown>): Promise<{ requests: number[]; commands: number[] }> {
  const { requests, commands } = await costOn(pairs, call);
  return { requests, commands };
}

/**
 * `host`'s fans and other viewers, with built follow caches on their own databases: the fans
 * follow the host, the others someone else (through the API), then each cache is rebuilt from
 * Postgres on its viewer's database.
 */
async function viewersWithCaches(host: string, spec: { on: number; fan: boolean }[]): Promise<string[]> {
  const viewers = spec.map((s) => newIdOn(s.on, 3));
  await Promise.all(viewers.map((viewer, i) => follow(viewer, spec[i]!.fan ? host : newId())));
  const { services, close } = servicesFor(databases.env);
  try {
    for (const viewer of viewers) {
      await services.redisFor(viewer).del(badgeKeys.authorSeen(viewer));
      await warmAuthorSeen({ db: services.db, redis: services.redisFor(viewer) }, viewer);
    }
  } finally {
    await close();
  }
  return viewers;
}

const join = async (room: string, viewer: string) => {
  const res = await api("POST", `/v1/live/${room}/presence`, { as: { userId: viewer }, env: databases.env });
  expect(res.status, show(res)).toBe(200);
  return res.body.isFan as boolean;
};

const roomCounts = async (room: string, host: string) => {
  const res = await api("GET", `/v1/live/${room}/online`, { as: { userId: host }, env: databases.env });
  expect(res.status, show(res)).toBe(200);
  return { viewers: res.body.viewers as number, onlineFans: res.body.onlineFans as number };
};

describe.skipIf(!enough)("a room's follow lookups over three databases", () => {
  it("lookups arriving during a trip go out as one request per database holding their viewers (none to the others)", async () => {
    const host = newId();
    // Four viewers on database 0 and four on database 2, none on database 1.
    const spec = [0, 2, 0, 2, 0, 2, 0, 2].map((on, i) => ({ on, fan: i % 3 === 0 }));
    const viewers = await viewersWithCaches(host, spec);
    const lookups = new FanLookups(() => ({ n: 3, redisAt: (index) => redisAt(databases.env as Env, index) }));
    await Promise.all([0, 1, 2].map((i) => lookups.lookup(newIdOn(i, 3), host))); // each database's marker checked once
    let answers: string[] = [];
    const counted = await perDatabase(async () => {
      // The first lookup of each database leaves at once; the other six arrive during those trips.
      answers = await Promise.all(viewers.map((viewer) => lookups.lookup(viewer, host)));
    });
    expect(answers).toEqual(spec.map((s) => (s.fan ? "follows" : "not_following")));
    expect(counted, "a lone trip, then one pipeline, per database holding viewers").toEqual({ requests: [2, 0, 2], commands: [4, 0, 4] });
  });

  it("a burst of joins into a room costs one HMGET per viewer on the viewer's database, and nothing on a database without viewers", async () => {
    const host = newIdOn(1, 3);
    const spec = Array.from({ length: 12 }, (_, i) => ({ on: i % 2 === 0 ? 0 : 2, fan: i % 3 === 0 }));
    const viewers = await viewersWithCaches(host, spec);
    const room = newRoom();
    await startSession(room, host);
    await lookUpFansThrough(room, databases.env as Env);
    await join(room, newIdOn(0, 3)); // the Worker holds the session; every database's marker is checked
    await join(room, newIdOn(1, 3));
    await join(room, newIdOn(2, 3));
    let answers: boolean[] = [];
    const counted = await perDatabase(async () => {
      answers = await Promise.all(viewers.map((viewer) => join(room, viewer)));
    });
    expect(answers).toEqual(spec.map((s) => s.fan));
    // Each new viewer: the HMGET, and the Worker's read of their safety sets (a block refuses the join), both on their database.
    expect(counted.commands, "billed: one HMGET and one safety read per new viewer, on its database").toEqual([12, 0, 12]);
    expect(counted.requests[1]).toBe(0);
    expect(counted.requests[0]! + counted.requests[2]!, "batched: never more requests than lookups and safety reads").toBeLessThanOrEqual(24);
    expect(await roomCounts(room, host)).toEqual({ viewers: 15, onlineFans: spec.filter((s) => s.fan).length });
  });
});

describe.skipIf(!enough)("one of three databases killed mid-traffic in a room", () => {
  it("degrades only its viewers' lookups (Postgres answers, as in a full outage), the others stay exact from their caches, and nothing is lost", async () => {
    const host = newIdOn(0, 3);
    // Three viewers per database, fans and not; one more per database joins after the outage.
    const spec = Array.from({ length: 12 }, (_, i) => ({ on: i % 3, fan: i % 2 === 0 }));
    const viewers = await viewersWithCaches(host, spec);
    const isFan = new Map(viewers.map((v, i) => [v, spec[i]!.fan]));
    const room = newRoom();
    await startSession(room, host);
    await lookUpFansThrough(room, databases.env as Env);
    const inRoom = new Set<string>();
    const expectCounts = async (when: string) =>
      expect(await roomCounts(room, host), when).toEqual({ viewers: inRoom.size, onlineFans: [...inRoom].filter((v) => isFan.get(v)).length });

    // Before: one viewer of each database in.
    for (const viewer of viewers.slice(0, 3)) {
      expect(await join(room, viewer)).toBe(isFan.get(viewer));
      inRoom.add(viewer);
    }
    await expectCounts("before the outage");

    await pairs[1]!.setRedisDown(true);
    try {
      // Traffic goes on: joins of every database's viewers, together, and a leave.
      const during = viewers.slice(3, 9);
      let answers: boolean[] = [];
      const counted = await perDatabase(async () => {
        answers = await Promise.all(during.map((viewer) => join(room, viewer)));
      });
      expect(answers, "every join answers its viewer's status (database 1's from Postgres)").toEqual(during.map((v) => isFan.get(v)));
      during.forEach((v) => inRoom.add(v));
      expect([counted.commands[0], counted.commands[2]], "the healthy databases' viewers: one HMGET and one safety read each, from their caches").toEqual([4, 4]);
      const left = await api("DELETE", `/v1/live/${room}/presence`, { as: { userId: viewers[1]! }, env: databases.env });
      expect(left.status, show(left)).toBe(200);
      inRoom.delete(viewers[1]!);
      await expectCounts("during the outage");

      // The room's own lookups: database 1's viewers answer redis_down (the Worker then asks
      // Postgres), the others exactly what their caches say.
      const lookups = new FanLookups(() => ({ n: 3, redisAt: (index) => redisAt(databases.env as Env, index) }));
      const probe = viewers.slice(9, 12);
      expect(await Promise.all(probe.map((v) => lookups.lookup(v, host)))).toEqual(probe.map((v, i) => (i === 1 ? "redis_down" : isFan.get(v) ? "follows" : "not_following")));

      // The Worker's own lookup (WebSocket viewers) for the healthy databases needs no Postgres.
      const { services, close } = servicesFor(databases.env);
      const guarded = Object.create(services, {
        db: {
          get() {
            throw new Error("a healthy database's viewer needed Postgres");
          },
        },
      }) as Services;
      try {
        for (const viewer of [viewers[9]!, viewers[11]!]) expect(await isFanOf(guarded, viewer, host)).toBe(isFan.get(viewer));
        expect(await isFanOf(services, viewers[10]!, host), "database 1's viewer, from Postgres").toBe(isFan.get(viewers[10]!));
      } finally {
        await close();
      }
    } finally {
      await pairs[1]!.setRedisDown(false);
    }

    // After: nothing lost (everyone who joined is in, with their status; database 1's caches are
    // still there), and database 1's viewers are served by their caches again.
    for (const viewer of inRoom) {
      const res = await api("GET", `/v1/live/${room}/online/${viewer}`, { as: { userId: host }, env: databases.env });
      expect(res.body, show(res)).toMatchObject({ online: true, isFan: isFan.get(viewer) });
    }
    const redis1 = redisAt(databases.env as Env, 1);
    for (const viewer of viewers.filter((_, i) => spec[i]!.on === 1)) expect(await redis1.hget(badgeKeys.authorSeen(viewer), BUILT)).toBe("all");
    const late = viewers[10]!;
    const counted = await perDatabase(async () => expect(await join(room, late)).toBe(isFan.get(late)));
    inRoom.add(late);
    expect(counted.commands, "back: database 1's viewer from its cache (+ its safety read)").toEqual([0, 2, 0]);
    await expectCounts("after the outage");
  });
});
