/**
 * Model-based test of a live room's presence and fan status: seeded random interleavings of joins
 * (alone and in concurrent bursts, so the room batches its follow lookups), leaves, follows and
 * unfollows of the host through the API, and expiry of viewers' follow caches, with every join's
 * answer and the room's counts checked against an in-memory model after every step. A join
 * records the fan status of that moment; a refresh keeps it; a change counts from the next join.
 *
 * It runs at N = 1 (the Worker's own bindings) and at N = 3 (the test stack's three Redis
 * databases, `test/support/databases.ts`), where the viewers are spread over all three databases
 * (each follow cache on its viewer's) and the room objects look them up there. There it also checks
 * that every writer of a follow cache (the badges subscriber's follow and unfollow, a rebuild)
 * writes it on the follower's database: a copy left on another database would answer a stale
 * status at the next join.
 */
import { describe, expect, it } from "vitest";
import { badgeKeys } from "../../src/badges/keys";
import type { Env } from "../../src/env";
import { databaseOf } from "../../src/lib/redis-topology";
import { servicesFor } from "../counters/support";
import { api, show } from "../support/api";
import { databasesEnv, newIdOn, stackDatabases } from "../support/databases";
import { prng } from "../support/prng";
import { lookUpFansThrough, newRoom, startSession } from "./helpers";

const STEPS = 40;

async function runSeed(seed: number, env: Partial<Env>) {
  const rnd = prng(seed);
  const { services, close } = servicesFor(env);
  const n = services.databases;
  try {
    const host = newIdOn(seed, n);
    // Two viewers on each database (one database at N = 1), plus the host, who is never a fan.
    const viewers = [0, 1, 2, 0, 1, 2].map((i) => newIdOn(i + seed, n));
    const people = [...viewers, host];
    const shards = seed % 2 === 0 ? 2 : 1;
    const room = newRoom();
    await startSession(room, host, shards > 1 ? shards : undefined);
    if (env.UPSTASH_REDIS_DATABASES) await lookUpFansThrough(room, env as Parameters<typeof lookUpFansThrough>[1], shards);

    const follows = new Set<string>();
    const inRoom = new Map<string, boolean>(); // viewer → fan status recorded at join
    const log: string[] = [];
    const where = () => `seed ${seed} (N = ${n})\n${log.slice(-12).join("\n")}`;
    const short = (id: string) => `${id.slice(-4)}@${databaseOf(id, n)}`;

    const setFollow = async (viewer: string, on: boolean) => {
      const res = await api(on ? "PUT" : "DELETE", `/v1/me/following/${host}`, { as: { userId: viewer }, env });
      expect(res.status, show(res)).toBe(200);
      if (on) follows.add(viewer);
      else follows.delete(viewer);
    };
    const join = async (viewer: string) => {
      const res = await api("POST", `/v1/live/${room}/presence`, { as: { userId: viewer }, env });
      expect(res.status, `${show(res)}\n${where()}`).toBe(200);
      return res.body as { isFan: boolean; joined: boolean };
    };
    const expectJoin = (viewer: string, got: { isFan: boolean; joined: boolean }) => {
      const known = inRoom.get(viewer);
      const want = { isFan: known ?? (viewer !== host && follows.has(viewer)), joined: known === undefined };
      expect({ isFan: got.isFan, joined: got.joined }, `join of ${short(viewer)}\n${where()}`).toEqual(want);
      inRoom.set(viewer, want.isFan);
    };

    for (const viewer of viewers) if (rnd.next() < 0.4) await setFollow(viewer, true);

    for (let step = 0; step < STEPS; step++) {
      const roll = rnd.next();
      let what: string;
      if (roll < 0.3) {
        const viewer = rnd.pick(people);
        expectJoin(viewer, await join(viewer));
        what = `join ${short(viewer)}`;
      } else if (roll < 0.45) {
        // Joins arriving together: the room's lookups share a round trip per database.
        const burst = [...new Set(Array.from({ length: rnd.int(2, 5) }, () => rnd.pick(people)))];
        const answers = await Promise.all(burst.map(join));
        burst.forEach((viewer, i) => expectJoin(viewer, answers[i]!));
        what = `burst ${burst.map(short).join(",")}`;
      } else if (roll < 0.62) {
        const viewer = rnd.pick(people);
        const res = await api("DELETE", `/v1/live/${room}/presence`, { as: { userId: viewer }, env });
        expect(res.status, show(res)).toBe(200);
        inRoom.delete(viewer);
        what = `leave ${short(viewer)}`;
      } else if (roll < 0.85) {
        const viewer = rnd.pick(viewers);
        const on = !follows.has(viewer);
        await setFollow(viewer, on);
        what = `${on ? "follow" : "unfollow"} ${short(viewer)}`;
      } else {
        // A follow cache expired (or was evicted) on its viewer's database: rebuilt from Postgres.
        const viewer = rnd.pick(viewers);
        await services.redisFor(viewer).del(badgeKeys.authorSeen(viewer));
        what = `expire cache of ${short(viewer)}`;
      }
      log.push(`${step}: ${what}`);
      const res = await api("GET", `/v1/live/${room}/online`, { as: { userId: host }, env });
      expect(res.status, show(res)).toBe(200);
      const fans = [...inRoom.values()].filter(Boolean).length;
      expect({ viewers: res.body.viewers, onlineFans: res.body.onlineFans }, `counts after ${what}\n${where()}`).toEqual({ viewers: inRoom.size, onlineFans: fans });
    }

    // The host's page of online fans holds exactly the model's fans, whatever shard each is on.
    const page = await api("GET", `/v1/live/${room}/online?list=fans&limit=50`, { as: { userId: host }, env });
    expect(page.status, show(page)).toBe(200);
    const listed = (page.body.items as { userId: string }[]).map((i) => i.userId).sort();
    expect(listed, where()).toEqual([...inRoom].filter(([, fan]) => fan).map(([id]) => id).sort());
  } finally {
    await close();
  }
}

describe("a live room under random interleavings (model-based)", () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: every join's fan status and the room's counts equal the model after every step`, async () => {
      await runSeed(seed, {});
    }, 60_000);
  }
});

describe.skipIf(stackDatabases().length < 3)("a live room over three Redis databases under random interleavings (model-based)", () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: every join's fan status and the room's counts equal the model after every step`, async () => {
      await runSeed(seed, databasesEnv(stackDatabases().slice(0, 3)));
    }, 60_000);
  }
});
