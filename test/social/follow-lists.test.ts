/**
 * The follower and following list caches (docs/social.md, "Follower and following lists"): a warm
 * page is one read-only call to the list owner's database (nothing for the primary); a miss is
 * answered by Postgres and built after the answer; the cached lists stay exact — items and cursors
 * byte for byte what Postgres' pages give — across follow, unfollow, re-follow, block, suspension,
 * an account deletion's eraser, ties on follow time and pages past the cache.
 */
import { afterAll, describe, expect, it } from "vitest";
import { socialFollowsEraser } from "../../src/social/erase";
import { listFollowEdges } from "../../src/social/follows";
import { buildFollowList, microsOfPgText, pgTimestampText } from "../../src/social/follow-lists";
import { FOLLOW_LIST_ALL, FOLLOW_LIST_TOP, followListKeys } from "../../src/social/keys";
import { queryRows } from "../../src/lib/db";
import type { Env } from "../../src/env";
import { api, newId, show } from "../support/api";
import { commandNames, recordRedisRequests, redisQuiet } from "../support/redis-requests";
import { prng } from "../support/prng";
import { servicesFor } from "../counters/support";
import { followListHelpers } from "./follow-list-support";
import { useChaos } from "../support/stack";

const { services, close } = servicesFor();
afterAll(() => close());

const admin = { as: { userId: "1", role: "admin" as const } };
const { here, listPage, postgresEdges, expectedPage, expectExact, cachedList, follow, unfollowOf } = followListHelpers(services);

describe("follow times as Postgres prints them", () => {
  it("pgTimestampText prints what Postgres prints, fraction trimmed, and microsOfPgText reads it back", async () => {
    const samples = ["2026-12-03 18:22:03.123456+00", "2026-01-01 00:00:00+00", "2026-01-01 00:00:00.5+00", "2026-02-28 23:59:59.000001+00", "2026-06-30 12:00:00.12+00"];
    const rows = await queryRows<{ text: string; us: string }>(
      services.db,
      "SELECT t::timestamptz::text AS text, (extract(epoch FROM t::timestamptz) * 1000000)::bigint::text AS us FROM unnest($1::text[]) AS t",
      [samples],
    );
    for (const row of rows) {
      expect(pgTimestampText(row.us)).toBe(row.text);
      expect(microsOfPgText(row.text)).toBe(row.us);
    }
    expect(rows.map((r) => r.text)).toEqual(samples);
    expect(microsOfPgText("2026-01-01T00:00:00Z"), "not Postgres' form: Postgres answers that page").toBeUndefined();
  });
});

describe("GET /v1/users/{id}/followers and /following from the cache", () => {
  it("a warm page is one read-only call to the owner's database, nothing for the primary, and is the cache's answer", async () => {
    const star = newId();
    const fans = [newId(), newId(), newId()];
    for (const fan of fans) expect((await follow(fan, star)).status).toBe(200);
    await expectExact("followers", star); // the miss: Postgres answers, the build follows
    expect(await cachedList("followers", star)).toEqual({ ids: [...fans].reverse(), sentinel: FOLLOW_LIST_ALL });

    const near: Partial<Env> = { REDIS_READ_REGIONS: "on" };
    await listPage("followers", star, 2, null, near); // warms this isolate's moderation copy for the read-region client
    await redisQuiet(); // the follows' queued sync and notification have landed: not this read's
    const { result, requests } = await recordRedisRequests(() => listPage("followers", star, 2, null, near));
    expect(result.items.map((i) => i.userId)).toEqual([fans[2], fans[1]]);
    expect(requests.filter((r) => r.primary), commandNames(requests).join("; ")).toEqual([]);
    const listReads = requests.filter((r) => r.commands.some((c) => c.includes(followListKeys.list("followers", star))));
    expect(commandNames(listReads)).toEqual(["/ evalsha_ro"]);

    // The cache answers, not Postgres: a row removed behind its back (no event) still shows.
    await queryRows(services.db, "DELETE FROM follows WHERE follower_id = $1 AND followee_id = $2", [fans[0], star]);
    expect((await listPage("followers", star, 10, null)).items.map((i) => i.userId)).toEqual([...fans].reverse());
    await services.redisFor(star).del(followListKeys.list("followers", star));
    expect((await listPage("followers", star, 10, null)).items.map((i) => i.userId)).toEqual([fans[2], fans[1]]);
  });

  it("a miss is answered by Postgres, and the list is built after the answer", async () => {
    const me = newId();
    const stars = [newId(), newId()];
    for (const star of stars) await follow(me, star);
    await services.redisFor(me).del(followListKeys.list("following", me));
    // The request's services with its background work kept, and requests for the primary held: the answer must not wait for them.
    const later: Promise<unknown>[] = [];
    const deps = Object.create(services, { waitUntil: { value: (p: Promise<unknown>) => void later.push(p) } }) as typeof services;
    const answered = await recordRedisRequests(() => listFollowEdges(deps, "following", me, { limit: 20 }), { holdPrimary: 10_000 });
    expect(answered.result.items.map((i) => i.userId)).toEqual([...stars].reverse());
    const touching = (rs: typeof answered.requests) => rs.filter((r) => r.commands.some((c) => c.includes(followListKeys.list("following", me))));
    expect(commandNames(touching(answered.requests.filter((r) => !r.primary)))).toEqual(["/ evalsha_ro"]);
    expect(later).toHaveLength(1);
    expect(await services.redisFor(me).exists(followListKeys.list("following", me)), "not built before the answer").toBe(0);
    answered.release();
    await Promise.all(later);
    expect(commandNames(touching(answered.requests.filter((r) => r.primary))), "the build, after the answer").toEqual(["/ evalsha"]);
    expect(await cachedList("following", me)).toEqual({ ids: [...stars].reverse(), sentinel: FOLLOW_LIST_ALL });
    expect(await listPage("following", me, 20, null)).toEqual(expectedPage(await postgresEdges("following", me), 0, 20));
  });

  it("stays exact across follow, unfollow and re-follow (a new followedAt, first again)", async () => {
    const star = newId();
    const fans = Array.from({ length: 6 }, () => newId());
    for (const fan of fans) await follow(fan, star);
    await expectExact("followers", star);
    for (const fan of fans) await expectExact("following", fan);
    const before = (await listPage("followers", star, 100, null)).items.find((i) => i.userId === fans[1])!;

    await unfollowOf(fans[3]!, star);
    await unfollowOf(fans[1]!, star);
    expect((await cachedList("followers", star)).ids).toEqual([fans[5], fans[4], fans[2], fans[0]]);
    await expectExact("followers", star, { sizes: () => 1 });
    expect((await cachedList("following", fans[3]!)).ids).toEqual([]);
    await expectExact("following", fans[3]!);

    await follow(fans[1]!, star);
    const again = (await listPage("followers", star, 100, null)).items;
    expect(again[0]!.userId).toBe(fans[1]);
    expect(Date.parse(again[0]!.followedAt)).toBeGreaterThanOrEqual(Date.parse(before.followedAt));
    await expectExact("followers", star, { sizes: () => 2 });
    await expectExact("following", fans[1]!);
    // A repeated follow or unfollow changes nothing.
    await follow(fans[1]!, star);
    await unfollowOf(fans[3]!, star);
    await expectExact("followers", star);
  });

  it("a block ends both follows in both users' cached lists", async () => {
    const [a, b, c] = [newId(), newId(), newId()];
    await follow(a, b);
    await follow(b, a);
    await follow(c, a);
    for (const [d, u] of [["followers", a], ["following", a], ["followers", b], ["following", b]] as const) await expectExact(d, u);
    const blocked = await api("PUT", `/v1/me/blocks/${b}`, { as: { userId: a }, env: here });
    expect(blocked.status, show(blocked)).toBe(200);
    expect((await cachedList("followers", a)).ids).toEqual([c]);
    expect((await cachedList("following", a)).ids).toEqual([]);
    expect((await cachedList("followers", b)).ids).toEqual([]);
    expect((await cachedList("following", b)).ids).toEqual([]);
    for (const [d, u] of [["followers", a], ["following", a], ["followers", b], ["following", b]] as const) await expectExact(d, u);
  });

  it("a suspended user is left out of cached pages, which stay full, and is back where they were after the lift", async () => {
    const star = newId();
    const fans = Array.from({ length: 7 }, () => newId());
    for (const fan of fans) await follow(fan, star);
    await expectExact("followers", star);
    const suspended = [fans[5]!, fans[4]!, fans[1]!];
    for (const user of suspended) expect((await api("PUT", `/v1/admin/users/${user}/suspension`, { ...admin, body: { reason: "test" }, env: here })).status).toBe(200);
    try {
      const hidden = new Set(suspended);
      for (const size of [1, 2, 3, 100]) await expectExact("followers", star, { hidden, sizes: () => size });
      expect((await listPage("followers", star, 3, null)).items.map((i) => i.userId)).toEqual([fans[6], fans[3], fans[2]]);
      expect((await cachedList("followers", star)).ids, "the cache keeps them").toHaveLength(7);
    } finally {
      for (const user of suspended) await api("DELETE", `/v1/admin/users/${user}/suspension`, { ...admin, env: here });
    }
    await expectExact("followers", star, { sizes: () => 2 });
  });

  it("an account deletion's follows eraser takes the erased user out of the others' cached lists", async () => {
    const gone = newId();
    const stars = [newId(), newId()];
    const fans = [newId(), newId()];
    for (const star of stars) await follow(gone, star);
    for (const fan of fans) await follow(fan, gone);
    await follow(fans[0]!, stars[0]!);
    for (const u of [...stars, ...fans]) {
      await expectExact("followers", u);
      await expectExact("following", u);
    }
    for (let cursor: string | null = null, steps = 0; steps < 10; steps++) {
      const step = await socialFollowsEraser.step(services, gone, cursor);
      if ("done" in step) break;
      cursor = step.cursor;
    }
    expect((await cachedList("followers", stars[0]!)).ids).toEqual([fans[0]]);
    expect((await cachedList("followers", stars[1]!)).ids).toEqual([]);
    for (const fan of fans) expect((await cachedList("following", fan)).ids).not.toContain(gone);
    for (const u of [...stars, ...fans]) {
      await expectExact("followers", u);
      await expectExact("following", u);
    }
  });

  it("pages past a small cache read Postgres, with the cache's cursors; the cache keeps the newest edges as follows come and go", async () => {
    const small: Partial<Env> = { SOCIAL_FOLLOW_LIST_CAP: "5" };
    const star = newId();
    const fans = Array.from({ length: 9 }, () => newId());
    for (const fan of fans) await follow(fan, star, small);
    for (const size of [1, 2, 3, 4, 5, 6, 10]) await expectExact("followers", star, { sizes: () => size, env: small });
    expect(await cachedList("followers", star)).toEqual({ ids: fans.slice(4).reverse(), sentinel: FOLLOW_LIST_TOP });

    // A follow trims the oldest; an unfollow beyond the cached edges leaves them as they are.
    const late = newId();
    await follow(late, star, small);
    expect((await cachedList("followers", star)).ids).toEqual([late, ...fans.slice(5).reverse()]);
    await unfollowOf(fans[0]!, star, small);
    expect((await cachedList("followers", star)).ids).toEqual([late, ...fans.slice(5).reverse()]);
    await unfollowOf(fans[7]!, star, small);
    expect((await cachedList("followers", star)).ids).toEqual([late, fans[8], fans[6], fans[5]]);
    for (const size of [1, 3, 4, 5, 100]) await expectExact("followers", star, { sizes: () => size, env: small });
  });

  it("random page sizes over edges with ties on follow time, compared field by field with Postgres", async () => {
    const star = newId();
    const fans = Array.from({ length: 40 }, () => newId());
    // Written in Postgres directly: several follows in one microsecond (ties order by id), whole seconds and trailing zeros.
    const times = ["2026-03-01 10:00:00+00", "2026-03-01 10:00:00.5+00", "2026-03-01 10:00:00.000001+00", "2026-03-01 10:00:01.12345+00"];
    await queryRows(
      services.db,
      "INSERT INTO follows (follower_id, followee_id, created_at) SELECT f::bigint, $2::bigint, ($3::text[])[1 + (i % 4)]::timestamptz FROM unnest($1::text[]) WITH ORDINALITY AS t(f, i)",
      [fans, star, times],
    );
    await services.redisFor(star).del(followListKeys.list("followers", star));
    expect(await buildFollowList(services, "followers", star, (await services.redisFor(star).get<string>(followListKeys.epoch("followers", star))) ?? "")).toBe(true);
    const edges = await postgresEdges("followers", star);
    expect((await cachedList("followers", star)).ids).toEqual(edges.map((e) => e.id));
    const random = prng(41);
    for (let round = 0; round < 6; round++) await expectExact("followers", star, { sizes: () => random.int(1, 12) });
    // And the ties past a small cache, where pages cross from Redis to Postgres.
    const small: Partial<Env> = { SOCIAL_FOLLOW_LIST_CAP: "7" };
    await services.redisFor(star).del(followListKeys.list("followers", star));
    await listPage("followers", star, 1, null, small);
    expect((await cachedList("followers", star)).sentinel).toBe(FOLLOW_LIST_TOP);
    for (let round = 0; round < 6; round++) await expectExact("followers", star, { sizes: () => random.int(1, 9), env: small });
  });

  it("a build that read Postgres before a follow landed stores nothing (the epoch moved)", async () => {
    const star = newId();
    const fan = newId();
    await follow(fan, star);
    await services.redisFor(star).del(followListKeys.list("followers", star));
    const epoch = (await services.redisFor(star).get<string | number>(followListKeys.epoch("followers", star))) ?? "";
    await follow(newId(), star); // not cached: nothing written but the epoch
    expect(await buildFollowList(services, "followers", star, String(epoch))).toBe(false);
    expect(await services.redisFor(star).exists(followListKeys.list("followers", star))).toBe(0);
    await expectExact("followers", star);
    await expectExact("followers", star);
    expect((await cachedList("followers", star)).ids).toHaveLength(2);
  });
});

describe("follower lists when Redis is down", () => {
  const pair = useChaos();

  it("a cached list's pages are answered by Postgres, exactly, while its database cannot be reached", async () => {
    const star = newId();
    const fans = Array.from({ length: 5 }, () => newId());
    for (const fan of fans) await follow(fan, star);
    await expectExact("followers", star);
    await pair.current.setRedisDown(true);
    try {
      await expectExact("followers", star, { sizes: () => 2, env: pair.current.bindings });
      await expectExact("following", fans[0]!, { env: pair.current.bindings });
    } finally {
      await pair.current.setRedisDown(false);
    }
  });

  it("a follow whose list writes failed is applied by the bus's retry once Redis is back", async () => {
    const star = newId();
    const [fan, late] = [newId(), newId()];
    await follow(fan, star);
    await expectExact("followers", star);
    await expectExact("following", late);
    await pair.current.setRedisDown(true);
    let healed: Promise<void> | undefined;
    try {
      // Answered (Postgres has the follow; the event's pipeline failed), then Redis comes back
      // before the bus's first retry (250 ms), which api() waits for with the request's other background work.
      const res = await api("PUT", `/v1/me/following/${star}`, { as: { userId: late }, env: pair.current.bindings, answered: () => void (healed = pair.current.setRedisDown(false)) });
      expect(res.status, show(res)).toBe(200);
      await healed;
    } finally {
      await pair.current.setRedisDown(false);
    }
    expect((await cachedList("followers", star)).ids).toEqual([late, fan]);
    expect((await cachedList("following", late)).ids).toEqual([star]);
    await expectExact("followers", star);
    await expectExact("following", late);
  });
});
