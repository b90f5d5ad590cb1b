/**
 * The profile cache at N = 3: each author's cache and epoch on the author's database and nowhere
 * else, exact across post, delete and random page sizes; and what a reshard does to the keys
 * (key-owners.ts: the cache dropped, its epoch copied) leaves the next read exact, built again on
 * the owner's database, while a copy left on a database that no longer owns the author is never read.
 */
import { afterAll, expect, it } from "vitest";
import { queryRows } from "../../src/lib/db";
import { classifyKey } from "../../src/lib/key-owners";
import { databaseOf } from "../../src/lib/redis-topology";
import { profileKeys } from "../../src/social/keys";
import { profileEntry, readProfile } from "../../src/social/profile";
import { servicesFor } from "../counters/support";
import { api, newId, show, type ApiResponse } from "../support/api";
import { describeAtN3, newIdOn } from "../support/databases";
import { prng } from "../support/prng";

const { services, close } = servicesFor();
afterAll(() => close());

type Item = { id: string; authorId: string; text: string; createdAt: string };

/** The Worker in this isolate, so a build after the answer is done when the call returns. */
const call: typeof api = (method, path, options = {}) => api(method, path, { ...options, env: options.env ?? {} });

async function ok(res: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const r = await res;
  expect(r.status, show(r)).toBe(status);
  return r;
}

async function truth(authorId: string): Promise<Item[]> {
  const rows = await queryRows<{ id: string; text: string; created_at: string }>(
    services.db,
    `SELECT id::text AS id, text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
       FROM posts WHERE author_id = $1 AND deleted_at IS NULL AND held_at IS NULL ORDER BY posts.id DESC`,
    [authorId],
  );
  return rows.map((r) => ({ id: r.id, authorId, text: r.text, createdAt: r.created_at }));
}

async function walk(authorId: string, viewer: string | undefined, limit: () => number): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 500; pages++) {
    const res: ApiResponse = await ok(call("GET", `/v1/users/${authorId}/posts?limit=${limit()}${cursor ? `&cursor=${cursor}` : ""}`, viewer ? { as: { userId: viewer } } : {}));
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return items;
  }
  throw new Error("too many pages");
}

/** Which of the three databases hold the key. */
async function holders(key: string): Promise<number[]> {
  const found: number[] = [];
  for (let i = 0; i < 3; i++) if ((await services.redisAt(i).exists(key)) === 1) found.push(i);
  return found;
}

describeAtN3("profile cache, N = 3", () => {
  it("each author's cache lives on the author's database only, exact across posts and deletes by random page sizes", async () => {
    const authors = [newIdOn(0, 3), newIdOn(1, 3), newIdOn(2, 3)];
    const reader = newIdOn(1, 3);
    const random = prng(7);
    const live = new Map<string, string[]>(authors.map((a) => [a, []]));
    for (const author of authors) live.get(author)!.push((await ok(call("POST", "/v1/posts", { as: { userId: author }, body: { text: `first of ${author}` } }), 201)).body.id);
    for (const author of authors) await walk(author, undefined, () => 20); // built
    for (let round = 0; round < 30; round++) {
      const author = random.pick(authors);
      const ids = live.get(author)!;
      if (random.next() < 0.65 || ids.length === 0) ids.push((await ok(call("POST", "/v1/posts", { as: { userId: author }, body: { text: `round ${round}` } }), 201)).body.id);
      else await ok(call("DELETE", `/v1/posts/${ids.splice(random.int(0, ids.length - 1), 1)[0]}`, { as: { userId: author } }));
      const want = await truth(author);
      const read = await readProfile(services, author, undefined, 1000, true);
      expect("posts" in read && read.posts, "the cache itself").toEqual(want);
      expect(await walk(author, undefined, () => random.int(1, 5))).toEqual(want);
      expect(await walk(author, reader, () => random.int(1, 5))).toEqual(want);
    }
    for (const author of authors) {
      expect(await holders(profileKeys.posts(author))).toEqual([databaseOf(author, 3)]);
      expect(await holders(profileKeys.epoch(author))).toEqual([databaseOf(author, 3)]);
    }
  });

  it("a reshard drops the cache and copies its epoch: the next read is exact and builds on the owner's database; a copy elsewhere is never read", async () => {
    const author = newIdOn(2, 3);
    const first = (await ok(call("POST", "/v1/posts", { as: { userId: author }, body: { text: "before the move" } }), 201)).body;
    await walk(author, undefined, () => 20);
    expect(classifyKey(profileKeys.posts(author))).toEqual({ action: "drop", owner: author });
    expect(classifyKey(profileKeys.epoch(author))).toEqual({ action: "copy", owner: author });

    // A stale copy on a database that does not own the author (what an earlier topology may have
    // left there): it holds a post that does not exist, and no read goes there.
    const elsewhere = services.redisAt(0);
    await elsewhere.zadd(profileKeys.posts(author), { score: 0, member: "c" }, { score: 9_000_000_000, member: profileEntry({ id: "9000000000", text: "stale", createdAt: first.createdAt }, false) });
    await elsewhere.expire(profileKeys.posts(author), 600);
    // What the reshard's copy step does to a moving owner's cache: gone where it lives.
    await services.redisFor(author).del(profileKeys.posts(author));
    expect(await walk(author, undefined, () => 1)).toEqual([first]);
    expect((await holders(profileKeys.posts(author))).sort()).toEqual([0, 2]);
    const second = (await ok(call("POST", "/v1/posts", { as: { userId: author }, body: { text: "after the move" } }), 201)).body;
    expect(await walk(author, undefined, () => 1)).toEqual([second, first]);
    expect(await walk(author, newId(), () => 5)).toEqual(await truth(author));
    await elsewhere.del(profileKeys.posts(author));
  });
});
