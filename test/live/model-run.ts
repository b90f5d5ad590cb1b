/**
 * Model-based test of a live room's presence and fan status: seeded random interleavings of joins
 * (alone and in concurrent bursts, so the room batches its follow lookups), leaves, follows and
 * unfollows of the host through the API, and expiry of viewers' follow caches, with every join's
 * answer and the room's counts checked against an in-memory model after every step. A join
 * records the fan status of that moment; a refresh keeps it; a change counts from the next join.
 *
 * It runs at N = 1 (test/live/model.test.ts) and at N = 3 (model-databases.test.ts, a Worker
 * bound to the test stack's three Redis databases), where the viewers are spread over all three
 * databases (each follow cache on its viewer's) and the room objects look them up there. There it
 * also checks that every writer of a follow cache (the badges subscriber's follow and unfollow, a
 * rebuild) writes it on the follower's database: a copy left on another database would answer a
 * stale status at the next join.
 */
import { expect } from "vitest";
import { badgeKeys } from "../../src/badges/keys";
import { databaseOf } from "../../src/lib/redis-topology";
import { servicesFor } from "../counters/support";
import { api, show } from "../support/api";
import { newIdOn } from "../support/databases";
import { prng } from "../support/prng";
import { newRoom, startSession } from "./helpers";

const STEPS = 40;

/** Runs seed `seed` against the Worker's own bindings (one database, or three in the workers-n3 project). */
export async function runSeed(seed: number) {
  const rnd = prng(seed);
  const { services, close } = servicesFor();
  const n = services.databases;
  try {
    const host = newIdOn(seed, n);
    // Two viewers on each database (one database at N = 1), plus the host, who is never a fan.
    const viewers = [0, 1, 2, 0, 1, 2].map((i) => newIdOn(i + seed, n));
    const people = [...viewers, host];
    const shards = seed % 2 === 0 ? 2 : 1;
    const room = newRoom();
    await startSession(room, host, shards > 1 ? shards : undefined);

    const follows = new Set<string>();
    const inRoom = new Map<string, boolean>(); // viewer → fan status recorded at join
    const log: string[] = [];
    const where = () => `seed ${seed} (N = ${n})\n${log.slice(-12).join("\n")}`;
    const short = (id: string) => `${id.slice(-4)}@${databaseOf(id, n)}`;

    const setFollow = async (viewer: string, on: boolean) => {
      const res = await api(on ? "PUT" : "DELETE", `/v1/me/following/${host}`, { as: { userId: viewer } });
      expect(res.status, show(res)).toBe(200);
      if (on) follows.add(viewer);
      else follows.delete(viewer);
    };
    const join = async (viewer: string) => {
      const res = await api("POST", `/v1/live/${room}/presence`, { as: { userId: viewer } });
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
        const res = await api("DELETE", `/v1/live/${room}/presence`, { as: { userId: viewer } });
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
      const res = await api("GET", `/v1/live/${room}/online`, { as: { userId: host } });
      expect(res.status, show(res)).toBe(200);
      const fans = [...inRoom.values()].filter(Boolean).length;
      expect({ viewers: res.body.viewers, onlineFans: res.body.onlineFans }, `counts after ${what}\n${where()}`).toEqual({ viewers: inRoom.size, onlineFans: fans });
    }

    // The host's page of online fans holds exactly the model's fans, whatever shard each is on.
    const page = await api("GET", `/v1/live/${room}/online?list=fans&limit=50`, { as: { userId: host } });
    expect(page.status, show(page)).toBe(200);
    const listed = (page.body.items as { userId: string }[]).map((i) => i.userId).sort();
    expect(listed, where()).toEqual([...inRoom].filter(([, fan]) => fan).map(([id]) => id).sort());
  } finally {
    await close();
  }
}

