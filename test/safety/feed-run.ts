/**
 * The home feed leaving out what the reader's safety sets hide, at the Worker's N (feed.test.ts at
 * N = 1, feed-databases.test.ts at N = 3): chronological pages (cold, from the build's rows, and
 * warm) and the ranked first page, full pages and cursors walking exactly the shown posts.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import { redisAt } from "../../src/lib/redis";
import { databaseOf, topologyOf } from "../../src/lib/redis-topology";
import { feed, follow, type Item, newestFirst, post } from "../feed/support";
import { api, newId } from "../support/api";
import { ok } from "./support";

const as = (userId: string) => ({ as: { userId } });
const n = () => topologyOf(env as unknown as Env).n;

/** Every chronological page with random sizes; asserts every page but the last is full. */
async function walkRandom(userId: string): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const limit = 1 + Math.floor(Math.random() * 4);
    const page = await feed(userId, `limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) return items;
    expect(page.items.length, "a page with more to come is full").toBe(limit);
  }
  throw new Error("too many pages");
}

export function feedFilterTests() {
  describe(`GET /v1/me/feed leaves out blocked and muted authors (N = ${n()})`, () => {
    it("in every page, cold and warm, chronological and ranked, and after a late delivery of a blocked author's post", async () => {
      const [reader, friend, muted, mutedForAWhile, blocked, blocker, quiet] = [newId(), newId(), newId(), newId(), newId(), newId(), newId()];
      const authors = [friend, muted, mutedForAWhile, blocked, blocker, quiet];
      for (const a of authors) await follow(reader, a);
      const posts = new Map<string, string[]>(authors.map((a) => [a, []]));
      for (let round = 0; round < 4; round++) for (const a of authors) posts.get(a)!.push(await post({ userId: a }, `${a} ${round}`));
      await ok(api("PUT", `/v1/me/mutes/${muted}`, { ...as(reader), body: { notifications: false } }));
      await ok(api("PUT", `/v1/me/mutes/${mutedForAWhile}`, { ...as(reader), body: { durationSeconds: 3600 } }));
      await ok(api("PUT", `/v1/me/blocks/${blocked}`, as(reader)));
      await ok(api("PUT", `/v1/me/blocks/${reader}`, as(blocker)));
      const shown = newestFirst([...posts.get(friend)!, ...posts.get(quiet)!]);

      // Cold: the first read builds the timeline and serves the page from the build's rows.
      expect((await walkRandom(reader)).map((i) => i.post.id)).toEqual(shown);
      // A post of each blocked side delivered late (a fan-out page read before the block) is left out too.
      const readerDb = redisAt(env as unknown as Env, databaseOf(reader, n()));
      for (const a of [blocked, blocker]) {
        const id = posts.get(a)![3]!;
        await readerDb.zadd(feedKeys.timeline(reader), { score: Number(id), member: timelineMember(id, a) });
      }
      for (let run = 0; run < 3; run++) {
        const items = await walkRandom(reader);
        expect(items.map((i) => i.post.id)).toEqual(shown);
        for (const item of items) expect([friend, quiet]).toContain(item.post.authorId);
      }
      const ranked = await feed(reader, "order=ranked&limit=50");
      expect(newestFirst(ranked.items.map((i) => i.post.id))).toEqual(shown);

      // Unmuted: the muted author's posts are shown again; the blocks still hold.
      await ok(api("DELETE", `/v1/me/mutes/${muted}`, as(reader)));
      const after = newestFirst([...shown, ...posts.get(muted)!]);
      expect((await walkRandom(reader)).map((i) => i.post.id)).toEqual(after);
    });

    it("a reader with nothing blocked or muted sees every followed post", async () => {
      const [reader, a, b] = [newId(), newId(), newId()];
      await follow(reader, a);
      await follow(reader, b);
      const ids = [await post({ userId: a }), await post({ userId: b }), await post({ userId: a })];
      expect((await walkRandom(reader)).map((i) => i.post.id)).toEqual(newestFirst(ids));
      expect((await walkRandom(reader)).map((i) => i.post.id)).toEqual(newestFirst(ids));
    });
  });
}
