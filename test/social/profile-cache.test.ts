/**
 * The profile cache (docs/social.md "Profiles"): `GET /v1/users/{id}/posts` answered by one
 * read-only call on the author's database when warm (nothing for the primary, no Postgres), the
 * build after a miss's answer, the cache exact across every write of the author's posts, pages
 * past the cache read from Postgres, and every reader's answer the same as Postgres', field for field.
 */
import { afterAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/lib/db";
import { classifyKey } from "../../src/lib/key-owners";
import type { Services } from "../../src/lib/services";
import { socialPostsEraser, socialRowsEraser } from "../../src/social/erase";
import { erasePost, listPostsByAuthor } from "../../src/social/posts";
import { buildProfile, readProfile } from "../../src/social/profile";
import { profileKeys } from "../../src/social/keys";
import { servicesFor } from "../counters/support";
import { api, newId, show, type ApiResponse } from "../support/api";
import { prng } from "../support/prng";
import { commandNames, recordRedisRequests, type RedisRequest, redisQuiet } from "../support/redis-requests";
import { useChaos } from "../support/stack";

const near = { REDIS_READ_REGIONS: "on" } as const;
const { services, close } = servicesFor();
afterAll(() => close());
const admin = { userId: "1", role: "admin" as const };

/**
 * The Worker in this isolate (`api` with an env), so the request's `waitUntil` work — a build
 * after the answer — is done when the call returns, and its Redis requests can be recorded.
 */
const call: typeof api = (method, path, options = {}) => api(method, path, { ...options, env: options.env ?? {} });

type Item = { id: string; authorId: string; text: string; createdAt: string };

async function ok(res: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const r = await res;
  expect(r.status, show(r)).toBe(status);
  return r;
}

async function post(authorId: string, text: string, env?: Record<string, string>): Promise<Item & { held?: true }> {
  return (await ok(call("POST", "/v1/posts", { as: { userId: authorId }, body: { text }, ...(env ? { env } : {}) }), 201)).body;
}

/** The author's live posts as Postgres has them, newest first, as the reader may see them (held posts for the author only). */
async function truth(authorId: string, own: boolean): Promise<Item[]> {
  const rows = await queryRows<{ id: string; text: string; created_at: string }>(
    services.db,
    `SELECT id::text AS id, text, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
       FROM posts WHERE author_id = $1 AND deleted_at IS NULL ${own ? "" : "AND held_at IS NULL"} ORDER BY posts.id DESC`,
    [authorId],
  );
  return rows.map((r) => ({ id: r.id, authorId, text: r.text, createdAt: r.created_at }));
}

/** Every page of the author's posts as `viewer` reads them (undefined: anonymous), with page sizes from `limit`. */
async function walk(authorId: string, viewer: string | undefined, limit: () => number, env?: Record<string, string>): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 2000; pages++) {
    const n = limit();
    const res: ApiResponse = await ok(
      call("GET", `/v1/users/${authorId}/posts?limit=${n}${cursor ? `&cursor=${cursor}` : ""}`, { ...(viewer ? { as: { userId: viewer } } : {}), ...(env ? { env } : {}) }),
    );
    expect(res.body.items.length).toBeLessThanOrEqual(n);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return items;
    expect(res.body.items.length, "a page with a next cursor is full").toBe(n);
  }
  throw new Error("too many pages");
}

/** What the cache itself holds (the author's view), or "miss". */
async function cached(authorId: string): Promise<Item[] | "miss" | "past"> {
  const read = await readProfile(services, authorId, undefined, 100_000, true);
  if ("miss" in read) return "miss";
  if ("past" in read) return "past";
  return read.posts;
}

/** The cache and every reader's walk equal Postgres, field for field. */
async function expectExact(authorId: string, other: string) {
  const [mine, theirs] = [await truth(authorId, true), await truth(authorId, false)];
  expect(await cached(authorId), "the cache holds what Postgres holds").toEqual(mine);
  expect(await walk(authorId, authorId, () => 2)).toEqual(mine);
  expect(await walk(authorId, undefined, () => 3)).toEqual(theirs);
  expect(await walk(authorId, other, () => 20)).toEqual(theirs);
}

/** Every request read-only (EVALSHA_RO, or EVAL_RO the first time a script is sent). */
const readOnly = (requests: RedisRequest[]) => requests.every((r) => !r.primary && r.commands.every((c) => c[0] === "evalsha_ro" || c[0] === "eval_ro"));

/** The request's services with its `waitUntil` kept for the test to run when it chooses. */
function deferred(base: Services = services) {
  const later: Promise<unknown>[] = [];
  const deps = Object.create(base, { waitUntil: { value: (p: Promise<unknown>) => void later.push(p) } }) as Services;
  return { deps, later };
}

/** Adds `term` to the operators' list for the duration of `work` (other tests' terms kept). */
async function withTerm<T>(term: string, work: () => Promise<T>): Promise<T> {
  const before = (await ok(call("GET", "/v1/admin/moderation/terms", { as: admin }))).body.terms as string[];
  await ok(call("PUT", "/v1/admin/moderation/terms", { as: admin, body: { terms: [...before, term] } }));
  try {
    return await work();
  } finally {
    const now = (await ok(call("GET", "/v1/admin/moderation/terms", { as: admin }))).body.terms as string[];
    await ok(call("PUT", "/v1/admin/moderation/terms", { as: admin, body: { terms: now.filter((t) => t !== term) } }));
  }
}

describe("GET /v1/users/{id}/posts from the profile cache", () => {
  it("a miss is answered from Postgres without the primary and the cache is built after the answer; warm, every reader's page is read-only", async () => {
    const [author, reader] = [newId(), newId()];
    const posted = [];
    for (let i = 0; i < 3; i++) posted.push(await post(author, `p${i}`));
    expect(await services.redis.exists(profileKeys.posts(author)), "a post does not create a cache nobody read").toBe(0);

    const { deps, later } = deferred();
    const answered = await recordRedisRequests(() => listPostsByAuthor(deps, author, { limit: 20 }), { holdPrimary: 10_000 });
    try {
      expect(answered.result.items).toEqual([...posted].reverse());
      expect(answered.requests.filter((r) => r.primary), "nothing for the primary before the answer").toEqual([]);
      expect(readOnly(answered.requests), commandNames(answered.requests).join("; ")).toBe(true);
      expect(await services.redis.exists(profileKeys.posts(author)), "not built before the answer").toBe(0);
      expect(later).toHaveLength(1);
    } finally {
      answered.release();
    }
    await Promise.all(later);
    expect(await cached(author)).toEqual([...posted].reverse());

    // Warm through the Worker: anonymous, the author, another reader (whose safety sets the first read caches).
    await ok(call("GET", `/v1/users/${author}/posts`, { as: { userId: reader }, env: near }));
    await redisQuiet(); // the posts' queued fan-outs have landed: not these reads'
    for (const as of [undefined, { userId: author }, { userId: reader }]) {
      const { result, requests } = await recordRedisRequests(() => call("GET", `/v1/users/${author}/posts?limit=2`, { ...(as ? { as } : {}), env: near }));
      expect(result.status, show(result)).toBe(200);
      expect(result.body.items).toEqual([posted[2], posted[1]]);
      expect(result.body.nextCursor).not.toBeNull();
      expect(requests.length, commandNames(requests).join("; ")).toBeGreaterThan(0);
      expect(requests.filter((r) => r.primary), commandNames(requests).join("; ")).toEqual([]);
      expect(readOnly(requests), commandNames(requests).join("; ")).toBe(true);
      // Another reader's block check is a call of its own, sent beside the page's, not after it.
      expect(requests, commandNames(requests).join("; ")).toHaveLength(as?.userId === reader ? 2 : 1);
      if (as?.userId === reader) expect(Math.max(requests[0]!.start, requests[1]!.start)).toBeLessThan(Math.min(requests[0]!.end, requests[1]!.end));
    }
  });

  it("an author with no posts costs one read-only call once built", async () => {
    const author = newId();
    expect((await ok(call("GET", `/v1/users/${author}/posts`))).body).toEqual({ items: [], nextCursor: null });
    expect(await cached(author)).toEqual([]);
    const { result, requests } = await recordRedisRequests(() => call("GET", `/v1/users/${author}/posts`, { env: near }));
    expect(result.body).toEqual({ items: [], nextCursor: null });
    expect(requests, commandNames(requests).join("; ")).toHaveLength(1);
    expect(readOnly(requests)).toBe(true);
  });

  it("stays exact across a post, a held post (its author sees it, no one else), publish, delete, admin delete, moderation removal and erase", async () => {
    const [author, other] = [newId(), newId()];
    const tag = `pfterm${newId()}`;
    await post(author, "first");
    await walk(author, undefined, () => 20); // builds the cache
    expect(await cached(author)).not.toBe("miss");
    await expectExact(author, other);

    const second = await post(author, "second");
    await expectExact(author, other);

    await withTerm(tag, async () => {
      const held = await post(author, `held ${tag}`);
      expect(held.held).toBe(true);
      const heldToo = await post(author, `held again ${tag}`);
      await expectExact(author, other);
      expect((await walk(author, author, () => 20)).map((p) => p.id)).toContain(held.id);
      expect((await walk(author, other, () => 20)).map((p) => p.id)).not.toContain(held.id);

      // The operators' report lists both: approve publishes them as if just posted.
      const report = await findReport(author);
      await ok(call("POST", `/v1/admin/reports/${report.id}/actions`, { as: admin, body: { action: "approve" } }));
      await expectExact(author, other);
      expect((await walk(author, other, () => 20)).map((p) => p.id)).toEqual(expect.arrayContaining([held.id, heldToo.id]));

      // A held post removed by moderation: gone from the author's view too.
      const removed = await post(author, `removed ${tag}`);
      expect(removed.held).toBe(true);
      await expectExact(author, other);
      const next = await findReport(author);
      await ok(call("POST", `/v1/admin/reports/${next.id}/actions`, { as: admin, body: { action: "remove-posts" } }));
      await expectExact(author, other);
      expect((await walk(author, author, () => 20)).map((p) => p.id)).not.toContain(removed.id);
    });

    await ok(call("DELETE", `/v1/posts/${second.id}`, { as: { userId: author } }));
    await expectExact(author, other);
    const third = await post(author, "third");
    await ok(call("DELETE", `/v1/posts/${third.id}`, { as: admin }));
    await expectExact(author, other);
    const fourth = await post(author, "fourth");
    await erasePost(services, author, fourth.id);
    await expectExact(author, other);
    expect(await cached(author)).not.toBe("miss");
  });

  it("a build racing a write is not written back; a later build is", async () => {
    const author = newId();
    await post(author, "one");
    const read = await readProfile(services, author, undefined, 10, false);
    expect("miss" in read).toBe(true);
    const epoch = "miss" in read ? read.epoch : "";
    // The read saw `epoch`; a post lands before its build (which may have read Postgres before it).
    await post(author, "two");
    expect(await buildProfile(services, author, epoch)).toBe(false);
    expect(await cached(author)).toBe("miss");
    // The next read misses again and builds with what it saw.
    await walk(author, undefined, () => 20);
    expect(await cached(author)).toEqual(await truth(author, true));
  });

  it("a small cap (PROFILE_CACHE_CAP): the newest posts cached, pages past the oldest entry read Postgres, the cap kept on post", async () => {
    const cap = { PROFILE_CACHE_CAP: "5" };
    const [author, other] = [newId(), newId()];
    for (let i = 0; i < 8; i++) await post(author, `capped ${i}`, cap);
    const all = await truth(author, true);
    expect(await walk(author, undefined, () => 3, cap)).toEqual(all); // builds: 5 newest, partial
    expect(await cached(author), "partial: the whole walk is past it").toBe("past");
    const top = await readProfile(services, author, undefined, 5, true);
    expect("posts" in top && top.posts).toEqual(all.slice(0, 5));
    for (const size of [1, 2, 3, 4, 5, 6, 7, 9]) {
      expect(await walk(author, undefined, () => size, cap), `pages of ${size}`).toEqual(all);
      expect(await walk(author, other, () => size, cap)).toEqual(all);
    }
    // A post drops the oldest entry; a delete of a post below the cache changes nothing there.
    await post(author, "capped 8", cap);
    await ok(call("DELETE", `/v1/posts/${all[7]!.id}`, { as: { userId: author }, env: cap }));
    const now = await truth(author, true);
    const top2 = await readProfile(services, author, undefined, 5, true);
    expect("posts" in top2 && top2.posts).toEqual(now.slice(0, 5));
    const six = await readProfile(services, author, undefined, 6, true);
    expect("past" in six, "six entries reach below the cache").toBe(true);
    for (const size of [2, 5, 20]) expect(await walk(author, undefined, () => size, cap)).toEqual(now);
  });

  it("1,001 posts at the default cap: the first 1,000 from the cache, the rest from Postgres, the walk exact", async () => {
    const author = newId();
    await queryRows(services.db, "INSERT INTO posts (author_id, text) SELECT $1, 'bulk ' || g FROM generate_series(1, 1001) g", [author]);
    const all = await truth(author, false);
    expect(all).toHaveLength(1001);
    await ok(call("GET", `/v1/users/${author}/posts?limit=1`)); // builds
    const top = await readProfile(services, author, undefined, 1000, false);
    expect("posts" in top && top.posts).toEqual(all.slice(0, 1000));
    expect("past" in (await readProfile(services, author, undefined, 1001, false))).toBe(true);
    expect(await walk(author, undefined, () => 100)).toEqual(all);
    expect(await walk(author, undefined, () => 99)).toEqual(all);
  });

  it("403 blocked either way while a block stands, from a warm cache; a suspended author's posts are shown to no one but them", async () => {
    const [author, reader] = [newId(), newId()];
    const p = await post(author, "visible");
    await walk(author, reader, () => 20);
    await ok(call("PUT", `/v1/me/blocks/${reader}`, { as: { userId: author } }));
    const refused = await call("GET", `/v1/users/${author}/posts`, { as: { userId: reader } });
    expect(refused.status, show(refused)).toBe(403);
    expect(refused.body.error.code).toBe("blocked");
    expect((await ok(call("GET", `/v1/users/${author}/posts`))).body.items, "anonymous: no block to check").toEqual([p]);
    await ok(call("DELETE", `/v1/me/blocks/${reader}`, { as: { userId: author } }));
    await ok(call("PUT", `/v1/me/blocks/${author}`, { as: { userId: reader } }));
    expect((await call("GET", `/v1/users/${author}/posts`, { as: { userId: reader } })).status).toBe(403);
    await ok(call("DELETE", `/v1/me/blocks/${author}`, { as: { userId: reader } }));
    expect((await ok(call("GET", `/v1/users/${author}/posts`, { as: { userId: reader } }))).body.items).toEqual([p]);

    await ok(call("PUT", `/v1/admin/users/${author}/suspension`, { as: admin, body: { reason: "profile cache test" } }));
    try {
      expect((await ok(call("GET", `/v1/users/${author}/posts`))).body).toEqual({ items: [], nextCursor: null });
      expect((await ok(call("GET", `/v1/users/${author}/posts`, { as: { userId: reader } }))).body).toEqual({ items: [], nextCursor: null });
    } finally {
      await ok(call("DELETE", `/v1/admin/users/${author}/suspension`, { as: admin }));
    }
    expect((await ok(call("GET", `/v1/users/${author}/posts`))).body.items).toEqual([p]);
  });

  it("random page sizes over random posts, deletes and held posts: every reader's walk equals Postgres, field for field", async () => {
    const rnd = prng(41);
    const [author, other] = [newId(), newId()];
    const tag = `pfrand${newId()}`;
    await withTerm(tag, async () => {
      const live: string[] = [];
      for (let step = 0; step < 40; step++) {
        const r = rnd.next();
        if (r < 0.6 || live.length === 0) live.push((await post(author, rnd.next() < 0.2 ? `held ${tag} ${step}` : `post ${step} ✓ "quoted" \\ ${"x".repeat(rnd.int(0, 50))}`)).id);
        else if (r < 0.8) await ok(call("DELETE", `/v1/posts/${live.splice(rnd.int(0, live.length - 1), 1)[0]}`, { as: { userId: author } }));
        else if (r < 0.85) await services.redis.del(profileKeys.posts(author)); // evicted: the next read rebuilds
        if (step % 5 === 4) {
          const [mine, theirs] = [await truth(author, true), await truth(author, false)];
          expect(await walk(author, author, () => rnd.int(1, 12))).toEqual(mine);
          expect(await walk(author, undefined, () => rnd.int(1, 12))).toEqual(theirs);
          expect(await walk(author, other, () => rnd.int(1, 12))).toEqual(theirs);
        }
      }
    });
  });

  it("renews the cache after the answer once a day of its TTL has passed, by building it again (a lost write shows then)", async () => {
    const author = newId();
    const kept = await post(author, "ttl");
    await walk(author, undefined, () => 20);
    expect(await services.redis.ttl(profileKeys.posts(author))).toBeGreaterThan(6 * 24 * 3600);
    // A post whose cache write was lost (a long Redis outage): in Postgres only.
    await queryRows(services.db, "INSERT INTO posts (author_id, text) VALUES ($1, 'lost write')", [author]);
    await services.redis.expire(profileKeys.posts(author), 3600);
    const { deps, later } = deferred();
    const read = await recordRedisRequests(() => listPostsByAuthor(deps, author, { limit: 20 }), { holdPrimary: 10_000 });
    try {
      expect(read.result.items, "answered from the cache as it is").toEqual([kept]);
      expect(read.requests.filter((r) => r.primary)).toEqual([]);
      expect(later).toHaveLength(1);
    } finally {
      read.release();
    }
    await Promise.all(later);
    expect(await services.redis.ttl(profileKeys.posts(author))).toBeGreaterThan(6 * 24 * 3600);
    expect(await cached(author)).toEqual(await truth(author, true));
    // Renewed: the next read sends nothing more.
    const again = deferred();
    await listPostsByAuthor(again.deps, author, { limit: 20 });
    expect(again.later).toHaveLength(0);
  });

  it("an account deletion's social erasers empty the cache and then delete its keys", async () => {
    const author = newId();
    for (let i = 0; i < 3; i++) await post(author, `mine ${i}`);
    await walk(author, undefined, () => 20);
    for (let cursor: string | null = null, steps = 0; steps < 10; steps++) {
      const step = await socialPostsEraser.step(services, author, cursor);
      if ("done" in step) break;
      cursor = step.cursor;
    }
    expect(await cached(author), "every post taken out through its post.deleted event").toEqual([]);
    expect((await call("GET", `/v1/users/${author}/posts`, { as: { userId: author } })).body.items).toEqual([]);
    expect("done" in (await socialRowsEraser.step(services, author, null))).toBe(true);
    expect(await services.redis.exists(profileKeys.posts(author), profileKeys.epoch(author)), "no key of the user left").toBe(0);
  });

  it("a reshard drops the cache and copies its epoch", () => {
    const u = newId();
    expect(classifyKey(profileKeys.posts(u))).toEqual({ action: "drop", owner: u });
    expect(classifyKey(profileKeys.epoch(u))).toEqual({ action: "copy", owner: u });
  });
});

describe("GET /v1/users/{id}/posts when Redis is down", () => {
  const pair = useChaos();
  it("answers from Postgres, blocks included; a post whose cache write failed drops the cache once Redis answers again", async () => {
    const [author, reader, blocked] = [newId(), newId(), newId()];
    const env = () => pair.current.bindings;
    const first = await post(author, "before");
    await walk(author, undefined, () => 20, env()); // built
    await ok(call("PUT", `/v1/me/blocks/${author}`, { as: { userId: blocked } }));
    await pair.current.setRedisDown(true);
    let during: Item;
    try {
      expect((await ok(call("GET", `/v1/users/${author}/posts`, { env: env() }))).body.items).toEqual([first]);
      expect((await ok(call("GET", `/v1/users/${author}/posts`, { as: { userId: reader }, env: env() }))).body.items).toEqual([first]);
      expect((await call("GET", `/v1/users/${author}/posts`, { as: { userId: blocked }, env: env() })).status).toBe(403);
      expect((await ok(call("GET", `/v1/users/${author}/posts`, { as: { userId: author }, env: env() }))).body.items).toEqual([first]);
      // Redis comes back as the post is answered: the drops after its failed cache write reach it.
      let back: Promise<void> | undefined;
      during = (await ok(call("POST", "/v1/posts", { as: { userId: author }, body: { text: "during" }, env: env(), answered: () => void (back = pair.current.setRedisDown(false)) }), 201)).body;
      await back;
    } finally {
      await pair.current.setRedisDown(false);
    }
    expect(await cached(author), "dropped").toBe("miss");
    const back = await ok(call("GET", `/v1/users/${author}/posts`, { env: env() }));
    expect(back.body.items).toEqual([during, first]);
    expect(await cached(author)).toEqual([during, first]);
  });
});

async function findReport(userId: string): Promise<{ id: string }> {
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const res: ApiResponse = await ok(call("GET", `/v1/admin/reports?status=open&limit=100${cursor ? `&cursor=${cursor}` : ""}`, { as: admin }));
    const report = res.body.items.find((r: { userId: string }) => r.userId === userId);
    if (report) return report;
    cursor = res.body.nextCursor;
    if (!cursor) break;
  }
  throw new Error(`no open report about ${userId}`);
}
