/**
 * What a suspension hides and a lift restores, at the Worker's N (suspension-screens.test.ts at
 * N = 1, suspension-databases.test.ts at N = 3): the suspended user's posts leave every home
 * timeline page kind (chronological cold and warm, merged with big accounts' outboxes, ranked
 * first and later pages, a ranked walk the suspension crossed), "N new posts", unread per author
 * and trending; they are in nobody's follower or following list; the live rooms they host end
 * and the sockets they hold close (4003); and a lift gives every one of these answers back exactly.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/counters/store";
import type { Env } from "../../src/env";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import { feedBigAccountsTask } from "../../src/feed/tasks";
import { CLOSE_SUSPENDED } from "../../src/live/room";
import { redisAt } from "../../src/lib/redis";
import { databaseOf, topologyOf } from "../../src/lib/redis-topology";
import { servicesFor } from "../counters/support";
import { eventually, feed, fileServices, follow, type Item, post } from "../feed/support";
import { counts, enter, newRoom, openSocket, startSession } from "../live/helpers";
import { api, newId, show, tokenFor } from "../support/api";
import { closeSockets } from "../support/sockets";
import { ok } from "./support";
import { SELF } from "cloudflare:test";
import { afterEach } from "vitest";

afterEach(closeSockets);

const as = (userId: string) => ({ as: { userId } });
const admin = { as: { userId: "1", role: "admin" as const } };
const n = () => topologyOf(env as unknown as Env).n;
const dbOf = (userId: string) => redisAt(env as unknown as Env, databaseOf(userId, n()));
const members = async (userId: string) => (await dbOf(userId).zrange<unknown[]>(feedKeys.timeline(userId), 0, -1)).map(String).filter((m) => m.includes(":"));
const ids = (items: Item[]) => items.map((i) => i.post.id);

const suspend = (userId: string) => ok(api("PUT", `/v1/admin/users/${userId}/suspension`, { ...admin, body: { reason: "test" } }));
const lift = (userId: string) => ok(api("DELETE", `/v1/admin/users/${userId}/suspension`, admin));

/** Above big.test.ts' threshold: the scan makes these authors big (their flushed followers counter). */
const THRESHOLD = "900000000";
async function makeBig(authors: string[]) {
  const services = fileServices();
  await queryRows(
    services.db,
    `INSERT INTO counters (entity, entity_id, field, value) SELECT 'user', unnest($1::bigint[]), 'followers', 1000000000
     ON CONFLICT (entity, entity_id, field) DO UPDATE SET value = excluded.value`,
    [authors],
  );
  const { services: scan, close } = servicesFor({ BIG_ACCOUNT_FOLLOWERS: THRESHOLD });
  try {
    for (let runs = 0; runs < 10; runs++) if (((await feedBigAccountsTask.run(scan)) as { transitions: number }).transitions === 0) break;
  } finally {
    await close();
  }
  const redis = dbOf(authors[0]!);
  await eventually(
    async () => Promise.all(authors.map((a) => redis.hget<string>(feedKeys.bigStates(), a))),
    (states) => states.every((s) => s === "big"),
    30_000,
  );
}

/** Every page of an order with `limit` items a page; asserts each page with more to come is full. */
async function walkPages(userId: string, order: "chronological" | "ranked", limit: number, from?: { cursor: string; items: Item[] }): Promise<Item[]> {
  const items: Item[] = [...(from?.items ?? [])];
  let cursor: string | null = from?.cursor ?? null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await feed(userId, `order=${order}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) return items;
    expect(page.items.length, `a ${order} page with more to come is full`).toBe(limit);
  }
  throw new Error("too many pages");
}

async function badgesOf(userId: string) {
  return (await ok(api("GET", "/v1/me/badges", as(userId)))).body as Record<string, unknown> & { feed: { count: number } };
}
async function unreadAuthors(userId: string) {
  return (await ok(api("GET", "/v1/me/unread/authors?limit=50", as(userId)))).body;
}
async function edges(userId: string, direction: "followers" | "following") {
  const items: unknown[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const res = await ok(api("GET", `/v1/users/${userId}/${direction}?limit=2${cursor ? `&cursor=${cursor}` : ""}`));
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return items;
    expect(res.body.items, "a list page with more to come is full").toHaveLength(2);
  }
  throw new Error("too many pages");
}
/** The trending list's items among `ours` (other test files' posts trend beside them). */
async function trending(ours: string[], userId?: string) {
  const res = await api("GET", "/v1/posts/trending?window=1h&limit=100", userId ? as(userId) : {});
  expect(res.status, show(res)).toBe(200);
  return (res.body.items as Item[]).filter((i) => ours.includes(i.post.id));
}

export function suspensionTests() {
  describe(`a suspension hides the user everywhere; a lift restores it exactly (N = ${n()})`, () => {
    it("home feed (every page kind, big accounts' outboxes), N new posts, unread per author, trending, follower and following lists", async () => {
      const [reader, friend, b, star, fan] = [newId(), newId(), newId(), newId(), newId()];
      for (const a of [friend, b, star]) await follow(reader, a);
      await follow(b, friend);
      await follow(fan, b);
      await follow(b, fan);
      await feed(reader); // builds the timeline: the fan-outs land on it
      // B's first posts are pushed to the reader's timeline; then B and the star are big, and B's
      // later posts are only in B's outbox, merged at read time.
      const bPosts: string[] = [];
      for (let i = 0; i < 3; i++) bPosts.push(await post({ userId: b }, `b pushed ${i}`));
      const friendPosts: string[] = [];
      for (let i = 0; i < 4; i++) friendPosts.push(await post({ userId: friend }, `friend ${i}`));
      await eventually(() => members(reader), (m) => m.includes(timelineMember(bPosts[2]!, b)) && m.includes(timelineMember(friendPosts[3]!, friend)));
      await makeBig([b, star]);
      for (let i = 0; i < 3; i++) bPosts.push(await post({ userId: b }, `b pulled ${i}`));
      const starPosts: string[] = [];
      for (let i = 0; i < 3; i++) starPosts.push(await post({ userId: star }, `star ${i}`));
      friendPosts.push(await post({ userId: friend }, "friend late"));
      // B's later posts are pulled from its outbox, not pushed: the merged pages' path.
      expect((await dbOf(reader).smembers(feedKeys.bigFollows(reader))).map(String).sort()).toEqual([b, star].sort());
      await eventually(() => members(reader), (m) => m.includes(timelineMember(friendPosts[4]!, friend)));
      for (const id of bPosts.slice(3)) expect(await members(reader)).not.toContain(timelineMember(id, b));
      // Likes, so B's and the friend's posts trend.
      for (const id of [bPosts[0]!, bPosts[4]!, friendPosts[0]!]) for (let i = 0; i < 3; i++) await ok(api("PUT", `/v1/posts/${id}/likes/me`, as(newId())));
      const all = [...bPosts, ...friendPosts, ...starPosts];
      const shownWhileSuspended = (list: string[]) => list.filter((id) => !bPosts.includes(id));

      // Badges before any page is read again: every post counts as new.
      const badgesBefore = await badgesOf(reader);
      const authorsBefore = await unreadAuthors(reader);
      expect(badgesBefore.feed.count).toBe(all.length);
      expect(authorsBefore.items.map((i: { authorId: string }) => i.authorId)).toContain(b);

      await suspend(b);
      const badgesSuspended = await badgesOf(reader);
      expect(badgesSuspended.feed.count).toBe(all.length - bPosts.length);
      const authorsSuspended = await unreadAuthors(reader);
      const bUnread = authorsBefore.items.find((i: { authorId: string }) => i.authorId === b).unread;
      expect(authorsSuspended).toEqual({ ...authorsBefore, total: authorsBefore.total - bUnread, items: authorsBefore.items.filter((i: { authorId: string }) => i.authorId !== b) });
      const { feed: _f, authors: _a, ...rest } = badgesSuspended;
      const { feed: _bf, authors: _ba, ...restBefore } = badgesBefore;
      expect(rest).toEqual(restBefore);
      await lift(b);
      expect(await badgesOf(reader)).toEqual(badgesBefore);
      expect(await unreadAuthors(reader)).toEqual(authorsBefore);

      // The pages before: chronological (warm, merged with the outboxes) and ranked.
      const chronoBefore = await walkPages(reader, "chronological", 2);
      expect(new Set(ids(chronoBefore))).toEqual(new Set(all));
      const rankedBefore = await walkPages(reader, "ranked", 2);
      expect(new Set(ids(rankedBefore))).toEqual(new Set(all));
      const followersBefore = await edges(friend, "followers");
      const followingBefore = await edges(fan, "following");
      const followersOfFanBefore = await edges(fan, "followers");
      expect(followersBefore.map((e: any) => e.userId)).toContain(b);
      const trendingBefore = await eventually(() => trending(all), (got) => [bPosts[0]!, bPosts[4]!, friendPosts[0]!].every((id) => ids(got).includes(id)));
      const trendingReaderBefore = await trending(all, reader);
      // A ranked walk the suspension will cross: its first page now.
      const crossing = await feed(reader, "order=ranked&limit=2");

      await suspend(b);
      // Chronological, warm and merged: B's posts left out, pages full, every other item as it was.
      for (const limit of [1, 2, 3]) {
        const items = await walkPages(reader, "chronological", limit);
        expect(items).toEqual(chronoBefore.filter((i) => i.post.authorId !== b));
      }
      // Cold: a timeline built again from Postgres leaves them out too.
      await dbOf(reader).del(feedKeys.timeline(reader));
      expect(ids(await walkPages(reader, "chronological", 2))).toEqual(shownWhileSuspended(ids(chronoBefore)));
      // Ranked: first and later pages.
      for (const limit of [1, 3]) {
        const items = await walkPages(reader, "ranked", limit);
        expect(new Set(ids(items))).toEqual(new Set(shownWhileSuspended(all)));
        expect(items).toHaveLength(all.length - bPosts.length);
      }
      // The walk begun before the suspension: its later pages leave B out and stay full.
      const crossed = await walkPages(reader, "ranked", 2, { cursor: crossing.nextCursor!, items: [] });
      const shownFirst = ids(crossing.items);
      expect(new Set([...shownFirst, ...ids(crossed)])).toEqual(new Set([...shownFirst, ...shownWhileSuspended(all)]));
      for (const item of crossed) expect(item.post.authorId).not.toBe(b);
      // Lists: B is nobody's follower and nobody's followee; the counts keep B.
      expect(await edges(friend, "followers")).toEqual(followersBefore.filter((e: any) => e.userId !== b));
      expect(await edges(fan, "following")).toEqual(followingBefore.filter((e: any) => e.userId !== b));
      expect(await edges(fan, "followers")).toEqual(followersOfFanBefore.filter((e: any) => e.userId !== b));
      // Trending, anonymous and with a token.
      expect(await trending(all)).toEqual(trendingBefore.filter((i) => i.post.authorId !== b));
      expect(await trending(all, reader)).toEqual(trendingReaderBefore.filter((i) => i.post.authorId !== b));

      await lift(b);
      // Everything back exactly (the cold rebuild above put every post back on the timeline).
      expect(await walkPages(reader, "chronological", 2)).toEqual(chronoBefore);
      expect(new Set(ids(await walkPages(reader, "ranked", 2)))).toEqual(new Set(all));
      expect(await edges(friend, "followers")).toEqual(followersBefore);
      expect(await edges(fan, "following")).toEqual(followingBefore);
      expect(await edges(fan, "followers")).toEqual(followersOfFanBefore);
      expect(await trending(all)).toEqual(trendingBefore);
      expect(await trending(all, reader)).toEqual(trendingReaderBefore);
    });

    it("live: the room a suspended user hosts ends (their socket 4003), their viewer socket elsewhere closes (4003), they cannot join; a lift lets them in again", async () => {
      const [b, viewer, host, other] = [newId(), newId(), newId(), newId()];
      const hosted = newRoom();
      await startSession(hosted, b);
      const hostSocket = await openSocket(hosted, b);
      const viewerSocket = await openSocket(hosted, viewer);
      const elsewhere = newRoom();
      await startSession(elsewhere, host);
      await enter(elsewhere, other);
      await enter(elsewhere, b, "phone");
      const bSocket = await openSocket(elsewhere, b);
      const closes = [hostSocket, viewerSocket, bSocket].map(({ ws }) => new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code))));
      await eventually(() => counts(elsewhere), (c) => c.viewers === 2);

      await suspend(b);
      const [hostCode, viewerCode, bCode] = await Promise.all(closes);
      expect(hostCode).toBe(CLOSE_SUSPENDED);
      expect(bCode).toBe(CLOSE_SUSPENDED);
      expect(viewerCode).toBe(1000); // the session ended
      expect(await counts(hosted)).toMatchObject({ viewers: 0, onlineFans: 0 });
      expect(await counts(elsewhere)).toMatchObject({ viewers: 1 });
      const join = await api("POST", `/v1/live/${elsewhere}/presence`, as(b));
      expect(join.status, show(join)).toBe(403);
      expect(join.body.error.code).toBe("suspended");
      const upgrade = await SELF.fetch(`http://edge.test/v1/live/${elsewhere}/ws?token=${await tokenFor(b)}`, { headers: { Upgrade: "websocket" } });
      expect(upgrade.status).toBe(403);
      expect(((await upgrade.json()) as { error: { code: string } }).error.code).toBe("suspended");
      expect(await counts(elsewhere)).toMatchObject({ viewers: 1 });

      await lift(b);
      await enter(elsewhere, b);
      expect(await counts(elsewhere)).toMatchObject({ viewers: 2 });
    });
  });
}
