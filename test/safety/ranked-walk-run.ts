/**
 * A ranked walk of the home feed meeting a block or a mute made after its first page, at the
 * Worker's N (ranked-walk.test.ts at N = 1, ranked-walk-databases.test.ts at N = 3): the later
 * pages, which walk the ids the cursor carries, leave out every author the reader's sets hide from
 * then on — pushed posts (found in the timeline), a big account's pulled posts (found in its
 * outbox), posts a block purged — and stay full, their cursor going on after the last id taken.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { decodeRankedCursor } from "../../src/feed/ranked-cursor";
import { topologyOf } from "../../src/lib/redis-topology";
import { eventually, feed, follow, type Item, post } from "../feed/support";
import { api, newId } from "../support/api";
import { makeBig } from "./big-accounts";
import { ok } from "./support";

const as = (userId: string) => ({ as: { userId } });
const n = () => topologyOf(env as unknown as Env).n;

/** The later ranked pages from `cursor` with random sizes; asserts every page but the last is full. */
async function walkOn(userId: string, cursor: string | null): Promise<Item[]> {
  const items: Item[] = [];
  for (let pages = 0; cursor && pages < 100; pages++) {
    const limit = 1 + Math.floor(Math.random() * 4);
    const page = await feed(userId, `order=ranked&limit=${limit}&cursor=${cursor}`);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (cursor) expect(page.items.length, "a page with more to come is full").toBe(limit);
  }
  expect(cursor, "the walk ends").toBeNull();
  return items;
}

export function rankedWalkTests() {
  describe(`GET /v1/me/feed?order=ranked: later pages re-check the reader's sets (N = ${n()})`, () => {
    it("a block (either way) or a mute made mid-walk leaves the author out of every later page, pushed and pulled posts alike; pages stay full", async () => {
      const [reader, friend, muted, blocked, blocker, star, mutedStar] = [newId(), newId(), newId(), newId(), newId(), newId(), newId()];
      const normal = [friend, muted, blocked, blocker];
      for (const a of [...normal, star, mutedStar]) await follow(reader, a);
      await makeBig([star, mutedStar], "big");
      await feed(reader); // built: pushed posts land in the timeline, the big ones are pulled
      const authorOf = new Map<string, string>();
      for (let round = 0; round < 4; round++) {
        for (const a of [...normal, star, mutedStar]) authorOf.set(await post({ userId: a }, `${a} ${round}`), a);
      }
      // Likes scatter the ranking, so hidden authors' posts sit between the others'.
      const ids = [...authorOf.keys()];
      for (let i = 0; i < ids.length; i += 3) await ok(api("PUT", `/v1/posts/${ids[i]}/likes/me`, as(newId())));
      await eventually(() => feed(reader, "limit=100"), (p) => p.items.length === ids.length);

      const first = await feed(reader, "order=ranked&limit=3");
      expect(first.items).toHaveLength(3);
      const rest = decodeRankedCursor(first.nextCursor!, Date.now()).ids;
      expect(rest).toHaveLength(ids.length - 3);

      await ok(api("PUT", `/v1/me/blocks/${blocked}`, as(reader)));
      await ok(api("PUT", `/v1/me/blocks/${reader}`, as(blocker)));
      await ok(api("PUT", `/v1/me/mutes/${muted}`, as(reader)));
      await ok(api("PUT", `/v1/me/mutes/${mutedStar}`, { ...as(reader), body: { notifications: false } }));
      const hidden = new Set([blocked, blocker, muted, mutedStar]);

      const later = await walkOn(reader, first.nextCursor);
      expect(later.map((i) => i.post.id)).toEqual(rest.filter((id) => !hidden.has(authorOf.get(id)!)));
      for (const item of later) expect([friend, star]).toContain(item.post.authorId);
      // The pulled account nobody hides is still there: its posts were found in its outbox.
      expect(later.some((i) => i.post.authorId === star)).toBe(true);

      // A walk ranked while the author was not muted: muted after its first page, the next page
      // leaves them out; unmuted again, the pages after show the ids the cursor still carries.
      await ok(api("DELETE", `/v1/me/mutes/${muted}`, as(reader)));
      const again = await feed(reader, "order=ranked&limit=2");
      const restAgain = decodeRankedCursor(again.nextCursor!, Date.now()).ids;
      expect(restAgain.some((id) => authorOf.get(id) === muted), "the new ranking holds the unmuted author's posts").toBe(true);
      await ok(api("PUT", `/v1/me/mutes/${muted}`, as(reader)));
      const stillBlocked = [blocked, blocker, mutedStar];
      const mutedPage = await feed(reader, `order=ranked&limit=3&cursor=${again.nextCursor}`);
      expect(mutedPage.items.map((i) => i.post.id)).toEqual(restAgain.filter((id) => ![...stillBlocked, muted].includes(authorOf.get(id)!)).slice(0, 3));
      const remaining = decodeRankedCursor(mutedPage.nextCursor!, Date.now()).ids;
      expect(restAgain.slice(restAgain.length - remaining.length), "the cursor goes on after the last id the page took").toEqual(remaining);
      await ok(api("DELETE", `/v1/me/mutes/${muted}`, as(reader)));
      const tail = await walkOn(reader, mutedPage.nextCursor);
      expect(tail.map((i) => i.post.id)).toEqual(remaining.filter((id) => !stillBlocked.includes(authorOf.get(id)!)));
    });

    it("a reader with nothing hidden walks the ranking exactly as the cursor carries it", async () => {
      const [reader, a, b] = [newId(), newId(), newId()];
      await follow(reader, a);
      await follow(reader, b);
      await feed(reader);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await post({ userId: i % 2 ? a : b }, `plain ${i}`));
      await eventually(() => feed(reader), (p) => p.items.length === ids.length);
      const first = await feed(reader, "order=ranked&limit=2");
      const rest = decodeRankedCursor(first.nextCursor!, Date.now()).ids;
      expect((await walkOn(reader, first.nextCursor)).map((i) => i.post.id)).toEqual(rest);
    });
  });
}
