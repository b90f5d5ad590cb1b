/**
 * The home feed answered from Postgres (Redis down: a private chaos pair, seen only by this file's
 * requests) leaves out what the Redis pages leave out, from Postgres' truth: authors the reader
 * blocked or who blocked the reader, authors muted and not ended, suspended authors — in the
 * chronological pages and the ranked ones, full pages and cursors walking exactly the shown posts.
 * And, Redis up, what a later ranked page pays for re-checking a block made mid-walk: one request.
 */
import { describe, expect, it } from "vitest";
import { decodeRankedCursor } from "../../src/feed/ranked-cursor";
import { eventually, feed, follow, type Item, newestFirst, post } from "../feed/support";
import { costOn } from "../support/admission-refreshes";
import { api, newId } from "../support/api";
import { useChaos } from "../support/stack";
import { ok } from "./support";

const chaos = useChaos();
const as = (userId: string) => ({ as: { userId } });
const admin = { as: { userId: "1", role: "admin" as const } };

/** Every page of one order through the chaos pair with random sizes; asserts each is degraded, and full but the last. */
async function walkDown(userId: string, order: "chronological" | "ranked", env: Record<string, string> = {}): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const limit = 1 + Math.floor(Math.random() * 3);
    const page = await feed(userId, `order=${order}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { env: { ...chaos.current.bindings, ...env } });
    expect(page.degraded, "answered from Postgres").toBe(true);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) return items;
    expect(page.items.length, "a page with more to come is full").toBe(limit);
  }
  throw new Error("too many pages");
}

describe("GET /v1/me/feed from Postgres (Redis down) leaves out blocked, muted and suspended authors", () => {
  it("chronological and ranked, with the mutes' ends on the safety clock; lifted and unmuted authors come back", async () => {
    const [reader, friend, muted, mutedForAWhile, blocked, blocker, suspended] = [newId(), newId(), newId(), newId(), newId(), newId(), newId()];
    const authors = [friend, muted, mutedForAWhile, blocked, blocker, suspended];
    for (const a of authors) await follow(reader, a);
    const posts = new Map<string, string[]>(authors.map((a) => [a, []]));
    for (let round = 0; round < 3; round++) for (const a of [...authors, reader]) (posts.get(a) ?? posts.set(a, []).get(a)!).push(await post({ userId: a }, `${a} ${round}`));
    await ok(api("PUT", `/v1/me/mutes/${muted}`, { ...as(reader), body: { notifications: false } }));
    await ok(api("PUT", `/v1/me/mutes/${mutedForAWhile}`, { ...as(reader), body: { durationSeconds: 3600 } }));
    await ok(api("PUT", `/v1/me/blocks/${blocked}`, as(reader)));
    await ok(api("PUT", `/v1/me/blocks/${reader}`, as(blocker)));
    await ok(api("PUT", `/v1/admin/users/${suspended}/suspension`, { ...admin, body: { reason: "fallback test" } }));
    const shown = newestFirst([...posts.get(friend)!, ...posts.get(reader)!]);

    await chaos.current.setRedisDown(true);
    try {
      const down = await walkDown(reader, "chronological");
      expect(down.map((i) => i.post.id)).toEqual(shown);
      for (const item of down) expect([friend, reader]).toContain(item.post.authorId);
      expect(newestFirst((await walkDown(reader, "ranked")).map((i) => i.post.id))).toEqual(shown);
      // Two hours on, the hour-long mute has ended: that author is shown again.
      const later = { SAFETY_CLOCK_OFFSET_MS: String(2 * 3600_000) };
      expect((await walkDown(reader, "chronological", later)).map((i) => i.post.id)).toEqual(newestFirst([...shown, ...posts.get(mutedForAWhile)!]));
    } finally {
      await chaos.current.setRedisDown(false);
    }

    await ok(api("DELETE", `/v1/me/mutes/${muted}`, as(reader)));
    await ok(api("DELETE", `/v1/admin/users/${suspended}/suspension`, admin));
    await chaos.current.setRedisDown(true);
    try {
      const back = newestFirst([...shown, ...posts.get(muted)!, ...posts.get(suspended)!]);
      expect((await walkDown(reader, "chronological")).map((i) => i.post.id)).toEqual(back);
    } finally {
      await chaos.current.setRedisDown(false);
    }
  });
});

describe("a later ranked page re-checking the reader's sets (Redis up)", () => {
  it("is one Redis request at N = 1, with a block and a mute made after the first page", async () => {
    const via = { env: chaos.current.bindings };
    const [reader, friend, blocked, muted] = [newId(), newId(), newId(), newId()];
    for (const a of [friend, blocked, muted]) await follow(reader, a);
    await feed(reader, "", via);
    const authorOf = new Map<string, string>();
    for (let round = 0; round < 3; round++) for (const a of [friend, blocked, muted]) authorOf.set(await post({ userId: a }, `${a} ${round}`), a);
    await eventually(() => feed(reader, "limit=100", via), (p) => p.items.length === authorOf.size);
    const first = await feed(reader, "order=ranked&limit=2", via);
    const rest = decodeRankedCursor(first.nextCursor!, Date.now()).ids;
    await ok(api("PUT", `/v1/me/blocks/${blocked}`, { ...as(reader), ...via }));
    await ok(api("PUT", `/v1/me/mutes/${muted}`, { ...as(reader), ...via }));
    await feed(reader, `order=ranked&limit=2&cursor=${first.nextCursor}`, via); // warms the script on this bridge's Redis
    const { result, requests } = await costOn([chaos.current], () => feed(reader, `order=ranked&limit=2&cursor=${first.nextCursor}`, via));
    expect(requests).toEqual([1]);
    expect(result.items.map((i) => i.post.id)).toEqual(rest.filter((id) => authorOf.get(id) === friend).slice(0, 2));
  });
});
