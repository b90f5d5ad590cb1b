/**
 * Fan status on the join path: answered by the viewer's follow cache in Redis (one command, no
 * Postgres), rebuilt from Postgres when missing, and by Postgres when the cache cannot say or Redis
 * is down. Outage and round-trip checks go through a private chaos bridge+proxy pair.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_FOLLOWED_AUTHORS } from "../../src/badges/authors";
import { badgeKeys, BUILT } from "../../src/badges/keys";
import { queryRows } from "../../src/counters/store";
import type { Env } from "../../src/env";
import { isFanOf } from "../../src/live/rooms";
import { redisFor } from "../../src/lib/redis";
import type { Services } from "../../src/lib/services";
import { servicesFor } from "../counters/support";
import { closeSockets } from "../support/sockets";
import { costOn } from "../support/admission-refreshes";
import { api, newId, show } from "../support/api";
import { useChaos } from "../support/stack";
import { enter, follow, lookUpFansThrough, newRoom, openSocket, startSession, unfollow } from "./helpers";

afterEach(closeSockets);

const redis = redisFor(env as unknown as Env);
const chaos = useChaos();

/**
 * Joins a fresh room of `host` as `viewer` (a new join every time, so the fan lookup runs). With
 * `env` (a chaos pair's bindings) the Worker and the room object's fan lookups both use it.
 */
async function joinAsFan(host: string, viewer: string, options: { env?: Partial<Env> } = {}): Promise<boolean> {
  const room = newRoom();
  await startSession(room, host);
  if (options.env) await lookUpFansThrough(room, chaos.current.bindings);
  const res = await api("POST", `/v1/live/${room}/presence`, { as: { userId: viewer }, env: options.env });
  expect(res.status, show(res)).toBe(200);
  return res.body.isFan as boolean;
}

/** `isFanOf` for each [viewer, host] with services whose Postgres may not be touched: any use of `db` fails the test. */
async function fansWithoutPostgres(...pairs: [viewer: string, host: string][]): Promise<boolean[]> {
  const { services, close } = servicesFor();
  const guarded = Object.create(services, {
    db: {
      get() {
        throw new Error("the join path opened Postgres");
      },
    },
  }) as Services;
  try {
    const answers: boolean[] = [];
    for (const [viewer, host] of pairs) answers.push(await isFanOf(guarded, viewer, host));
    return answers;
  } finally {
    await close();
  }
}

describe("fan status on join", () => {
  it("counts a follow that has returned in the next join, and an unfollow too", async () => {
    const [host, viewer] = [newId(), newId()];
    expect(await joinAsFan(host, viewer)).toBe(false);
    await follow(viewer, host);
    expect(await joinAsFan(host, viewer)).toBe(true);
    await unfollow(viewer, host);
    expect(await joinAsFan(host, viewer)).toBe(false);
    await follow(viewer, host);
    expect(await joinAsFan(host, viewer)).toBe(true);
  });

  it("answers from the cache alone once it is built: zero Postgres statements, one Redis command", async () => {
    const [host, fan, other, stranger] = [newId(), newId(), newId(), newId()];
    await follow(fan, host);
    await follow(stranger, other); // a built cache that lacks the host
    expect(await fansWithoutPostgres([fan, host], [stranger, host])).toEqual([true, false]);
  });

  it("joins over HTTP with Postgres down and one Redis round trip (+ the safety read) when the cache is warm", async () => {
    const [host, fan] = [newId(), newId()];
    await follow(fan, host);
    const room = newRoom();
    await startSession(room, host);
    await lookUpFansThrough(room, chaos.current.bindings);
    await chaos.current.setPostgresDown(true);
    try {
      const cost = await costOn([chaos.current], () => api("POST", `/v1/live/${room}/presence`, { as: { userId: fan }, env: chaos.current.bindings }));
      expect(cost.result.status, show(cost.result)).toBe(200);
      expect(cost.result.body.isFan).toBe(true);
      // The fan lookup, and the joiner's safety sets read before entering (src/safety: a block refuses the join).
      expect({ requests: cost.requests[0], commands: cost.commands[0] }).toEqual({ requests: 2, commands: 2 });
    } finally {
      await chaos.current.setPostgresDown(false);
    }
  });

  it("rebuilds a missing cache from Postgres and answers correctly from it", async () => {
    const [host, fan, notFan, other] = [newId(), newId(), newId(), newId()];
    await follow(fan, host);
    await follow(notFan, other);
    await redis.del(badgeKeys.authorSeen(fan), badgeKeys.authorSeen(notFan));
    expect(await joinAsFan(host, fan)).toBe(true);
    expect(await joinAsFan(host, notFan)).toBe(false);
    expect(await redis.hget(badgeKeys.authorSeen(fan), BUILT)).toBe("all");
    expect(await redis.hexists(badgeKeys.authorSeen(fan), host)).toBe(1);
    expect(await redis.hexists(badgeKeys.authorSeen(notFan), other)).toBe(1);
    // Built: the next lookups need no Postgres.
    expect(await fansWithoutPostgres([fan, host], [notFan, host])).toEqual([true, false]);
  });

  it("builds a cache for a viewer who follows nobody, so the next join needs no Postgres", async () => {
    const [host, loner] = [newId(), newId()];
    expect(await joinAsFan(host, loner)).toBe(false);
    expect(await redis.hget(badgeKeys.authorSeen(loner), BUILT)).toBe("all");
  });

  it("asks Postgres when the cache is a capped subset that lacks the host", async () => {
    const [host, fan, other] = [newId(), newId(), newId()];
    await follow(fan, other);
    await follow(fan, host);
    // As a build that stopped at MAX_FOLLOWED_AUTHORS would leave it: a subset without the host.
    await redis.hset(badgeKeys.authorSeen(fan), { [BUILT]: "some" });
    await redis.hdel(badgeKeys.authorSeen(fan), host);
    expect(await joinAsFan(host, fan)).toBe(true);
    expect(await joinAsFan(host, newId())).toBe(false);
  });

  it("finds a fan beyond MAX_FOLLOWED_AUTHORS follows (the cache is a subset: a miss asks Postgres)", async () => {
    const [host, fan] = [newId(), newId()];
    const { services, close } = servicesFor();
    try {
      // The host is the oldest follow, so the newest MAX_FOLLOWED_AUTHORS leave it out of the build.
      await queryRows(
        services.db,
        `INSERT INTO follows (follower_id, followee_id, created_at)
         SELECT $1::bigint, $2::bigint, now() - interval '1 day'
         UNION ALL
         SELECT $1::bigint, 9000000000000000 + g, now() FROM generate_series(1, $3::int) AS g`,
        [fan, host, MAX_FOLLOWED_AUTHORS],
      );
      expect(await joinAsFan(host, fan)).toBe(true);
      expect(await redis.hget(badgeKeys.authorSeen(fan), BUILT)).toBe("some");
      expect(await redis.hexists(badgeKeys.authorSeen(fan), host)).toBe(0);
      expect(await joinAsFan(host, fan), "the built subset lacks the host: Postgres answers").toBe(true);
      expect(await joinAsFan(newId(), fan)).toBe(false);
    } finally {
      await close();
    }
  });

  it("answers from Postgres when Redis is down", async () => {
    const [host, fan, stranger] = [newId(), newId(), newId()];
    await follow(fan, host);
    await chaos.current.setRedisDown(true);
    try {
      expect(await joinAsFan(host, fan, { env: chaos.current.bindings })).toBe(true);
      expect(await joinAsFan(host, stranger, { env: chaos.current.bindings })).toBe(false);
    } finally {
      await chaos.current.setRedisDown(false);
    }
  });

  it("resolves WebSocket viewers the same way", async () => {
    const [room, host, fan] = [newRoom(), newId(), newId()];
    await follow(fan, host);
    await startSession(room, host);
    const { ws } = await openSocket(room, fan);
    const status = await api("GET", `/v1/live/${room}/online/${fan}`, { as: { userId: host } });
    expect(status.body, show(status)).toMatchObject({ online: true, isFan: true });
    ws.close();
  });

  it("does not count the host as their own fan", async () => {
    const [room, host] = [newRoom(), newId()];
    await startSession(room, host);
    expect((await enter(room, host)).isFan).toBe(false);
  });
});

describe("the Postgres-lookup join baseline", () => {
  it("is not part of the deployed Worker (only the bench entry mounts it)", async () => {
    const res = await api("POST", `/v1/bench/naive/live/${newRoom()}/presence`, { as: { userId: newId() } });
    expect(res.status, show(res)).toBe(404);
  });
});
