/**
 * The cost of a join: one object call, in which the room object looks a new viewer up in the
 * follow cache itself (lookups arriving together share one Redis round trip); a refresh is one
 * object call and no Redis. Round trips and commands are counted on a private chaos bridge.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { redisFor } from "../../src/lib/redis";
import type { Services } from "../../src/lib/services";
import { FanLookups, type FanRedis } from "../../src/live/fan-lookups";
import { newIdOn } from "../support/databases";
import { enterRoom } from "../../src/live/rooms";
import { servicesFor } from "../counters/support";
import { newId } from "../support/api";
import { useChaos } from "../support/stack";
import { counts, enter, follow, leave, liveEnv, lookUpFansThrough, newRoom, startSession, unfollow } from "./helpers";

const chaos = useChaos();

/** LIVE_ROOMS with every RPC method call on a room object recorded by name. */
function recordingRooms(calls: string[]): Env["LIVE_ROOMS"] {
  const rooms = liveEnv.LIVE_ROOMS;
  return {
    idFromName: (name: string) => rooms.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = rooms.get(id);
      return new Proxy(stub, {
        get(target, method) {
          const value = Reflect.get(target, method);
          if (typeof value !== "function" || typeof method !== "string") return value;
          return (...args: unknown[]) => {
            calls.push(method);
            // Reflect.apply: `.apply` on an RPC method would itself be taken for a remote property.
            return Reflect.apply(value, target, args);
          };
        },
      });
    },
  } as unknown as Env["LIVE_ROOMS"];
}

/** Services on the chaos pair whose room calls are recorded and whose Postgres may not be touched. */
function guardedServices(calls: string[]) {
  const { services, close } = servicesFor({ ...chaos.current.bindings, LIVE_ROOMS: recordingRooms(calls) });
  const guarded = Object.create(services, {
    db: {
      get() {
        throw new Error("the join path opened Postgres");
      },
    },
  }) as Services;
  return { services: guarded, close };
}

describe("the cost of POST /v1/live/{roomId}/presence", () => {
  it("joins a new viewer with one object call and one Redis command (+ the safety read); refreshes with one object call and the safety read", async () => {
    const [room, host, fan, stranger, other, first] = [newRoom(), newId(), newId(), newId(), newId(), newId()];
    await follow(fan, host);
    await follow(stranger, other); // a built cache that lacks the host
    await follow(first, other);
    await startSession(room, host);
    await lookUpFansThrough(room, chaos.current.bindings);
    const calls: string[] = [];
    const { services, close } = guardedServices(calls);
    try {
      await enterRoom(services, room, first, "default"); // the isolate now holds the session
      for (const [viewer, isFan] of [[fan, true], [stranger, false]] as const) {
        calls.length = 0;
        const before = await chaos.current.stats();
        const joined = await enterRoom(services, room, viewer, "default");
        const after = await chaos.current.stats();
        expect(joined).toMatchObject({ joined: true, isFan });
        expect(calls, "object calls of a join").toEqual(["enter"]);
        // The fan lookup, and the joiner's safety sets read by the Worker before entering (a block refuses the join).
        expect({ requests: after.requests - before.requests, commands: after.commands - before.commands }).toEqual({ requests: 2, commands: 2 });

        calls.length = 0;
        const again = await chaos.current.stats();
        expect(await enterRoom(services, room, viewer, "default")).toMatchObject({ joined: false, isFan });
        const refreshed = await chaos.current.stats();
        expect(calls, "object calls of a refresh").toEqual(["enter"]);
        expect({ requests: refreshed.requests - again.requests, commands: refreshed.commands - again.commands }).toEqual({ requests: 1, commands: 1 });
      }
    } finally {
      await close();
    }
    expect(await counts(room)).toMatchObject({ viewers: 3, onlineFans: 1 });
  });

  it("counts concurrent joins exactly, with one HMGET each", async () => {
    const [room, host] = [newRoom(), newId()];
    const viewers = Array.from({ length: 24 }, () => newId());
    const fans = viewers.filter((_, i) => i % 3 === 0);
    await Promise.all(viewers.map((viewer, i) => (i % 3 === 0 ? follow(viewer, host) : follow(viewer, newId()))));
    await startSession(room, host);
    await lookUpFansThrough(room, chaos.current.bindings);
    const before = await chaos.current.stats();
    const { services, close } = servicesFor(chaos.current.bindings);
    try {
      const answers = await Promise.all(viewers.map((viewer) => enterRoom(services, room, viewer, "default")));
      expect(answers.map((a) => a.isFan)).toEqual(viewers.map((_, i) => i % 3 === 0));
    } finally {
      await close();
    }
    const after = await chaos.current.stats();
    expect(after.commands - before.commands, "one HMGET per new viewer, and each one's safety read").toBe(2 * viewers.length);
    expect(after.requests - before.requests).toBeLessThanOrEqual(2 * viewers.length);
    expect(await counts(room)).toMatchObject({ viewers: viewers.length, onlineFans: fans.length });
  });

  it("looks a viewer up again after they leave: an unfollow, then a follow, count from the next join", async () => {
    const [room, host, viewer] = [newRoom(), newId(), newId()];
    await follow(viewer, host);
    await startSession(room, host);
    expect((await enter(room, viewer)).isFan).toBe(true);
    expect(await counts(room)).toMatchObject({ viewers: 1, onlineFans: 1 });
    await unfollow(viewer, host);
    await leave(room, viewer);
    expect((await enter(room, viewer)).isFan).toBe(false);
    expect(await counts(room)).toMatchObject({ viewers: 1, onlineFans: 0 });
    await follow(viewer, host);
    await leave(room, viewer);
    expect((await enter(room, viewer)).isFan).toBe(true);
    expect(await counts(room)).toMatchObject({ viewers: 1, onlineFans: 1 });
  });
});

/**
 * `n` fake databases whose trips (an HMGET, or a pipeline's exec) wait until the test releases
 * them, answering "no cache" for every lookup: what is in flight, per database, is then visible.
 */
function heldDatabases(n: number) {
  const pending: { index: number; release: () => void }[] = [];
  const stats = { inFlight: 0, maxInFlight: 0 };
  const trip = (index: number, size: number) =>
    new Promise<null[]>((resolve) => {
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      pending.push({ index, release: () => (stats.inFlight--, resolve(Array<null>(size).fill(null))) });
    });
  const client = (index: number) =>
    ({
      hmget: () => trip(index, 1).then((got) => got[0]),
      pipeline: () => {
        let size = 0;
        const pipeline = { hmget: () => (size++, pipeline), exec: () => trip(index, size) };
        return pipeline;
      },
    }) as unknown as FanRedis;
  return {
    databases: () => ({ n, redisAt: client }),
    stats,
    inFlightOn: () => pending.map((p) => p.index).sort(),
    /** Releases the trips in flight (to `index` only, when given) and lets the next ones start. */
    async release(index?: number) {
      for (const trip of pending.filter((p) => index === undefined || p.index === index)) {
        pending.splice(pending.indexOf(trip), 1);
        trip.release();
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
}

describe("FanLookups over several databases", () => {
  it("keeps at most 6 trips in flight however many databases hold viewers, and answers every lookup", async () => {
    const held = heldDatabases(8);
    const lookups = new FanLookups(held.databases);
    const answers = Promise.all(Array.from({ length: 8 }, (_, i) => lookups.lookup(newIdOn(i, 8), "1")));
    expect(held.inFlightOn()).toEqual([0, 1, 2, 3, 4, 5]);
    await held.release();
    expect(held.inFlightOn(), "the two databases past the limit leave as trips end").toEqual([6, 7]);
    await held.release();
    expect(await answers).toEqual(Array(8).fill("missing"));
    expect(held.stats.maxInFlight).toBe(6);
  });

  it("never holds up a database's lookups behind another database's trip", async () => {
    const held = heldDatabases(3);
    const lookups = new FanLookups(held.databases);
    const slow = lookups.lookup(newIdOn(1, 3), "1"); // database 1 does not answer (yet)
    const queued = lookups.lookup(newIdOn(1, 3), "1");
    const first = lookups.lookup(newIdOn(0, 3), "1");
    const second = [lookups.lookup(newIdOn(0, 3), "1"), lookups.lookup(newIdOn(2, 3), "1")];
    expect(held.inFlightOn()).toEqual([0, 1, 2]);
    await held.release(0);
    await held.release(2);
    await held.release(0);
    expect(await Promise.all([first, ...second]), "databases 0 and 2 answered while database 1's trip is in flight").toEqual(["missing", "missing", "missing"]);
    expect(held.inFlightOn()).toEqual([1]);
    await held.release(1);
    await held.release(1);
    expect(await Promise.all([slow, queued])).toEqual(["missing", "missing"]);
  });
});

describe("FanLookups", () => {
  it("sends lookups that arrive during a round trip together, in the next one", async () => {
    const redis = redisFor(liveEnv);
    const trips: string[] = [];
    const counting = {
      hmget: ((...args: Parameters<typeof redis.hmget>) => {
        trips.push("hmget");
        return redis.hmget(...args);
      }) as typeof redis.hmget,
      pipeline: () => {
        trips.push("pipeline");
        return redis.pipeline();
      },
    };
    const [host, fan, other] = [newId(), newId(), newId()];
    await follow(fan, host);
    await follow(other, newId());
    const lookups = new FanLookups(() => counting);
    const answers = await Promise.all([
      lookups.lookup(fan, host), // leaves at once, alone
      lookups.lookup(other, host), // these three wait for it, then go together
      lookups.lookup(fan, host),
      lookups.lookup(newId(), host),
    ]);
    expect(answers).toEqual(["follows", "not_following", "follows", "missing"]);
    expect(trips).toEqual(["hmget", "pipeline"]);
  });

  it("answers redis_down for every waiting lookup when Redis is unreachable", async () => {
    await chaos.current.setRedisDown(true);
    try {
      const lookups = new FanLookups(() => redisFor(chaos.current.bindings));
      expect(await Promise.all([lookups.lookup(newId(), newId()), lookups.lookup(newId(), newId())])).toEqual(["redis_down", "redis_down"]);
    } finally {
      await chaos.current.setRedisDown(false);
    }
  });
});
