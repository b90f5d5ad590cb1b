/**
 * The fan-out and the races around a timeline build, driven at the level of the consumer and the
 * scripts (the same functions the queue handler and the page read run), plus the real queue for a
 * fan-out that crosses pages.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { counterKeys } from "../../src/counters/keys";
import { queryRows } from "../../src/counters/store";
import type { Env } from "../../src/env";
import { deliver } from "../../src/feed/fanout";
import { INIT_TIMELINE } from "../../src/feed/init.lua";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import { MARK_BUILDING, READ_PAGE } from "../../src/feed/page.lua";
import { readHomeFeed } from "../../src/feed/timeline";
import { servicesFor } from "../counters/support";
import { newId } from "../support/api";
import { rebuildSets } from "../../src/safety/cache";
import { eventually, feed, follow, newestFirst, post, redis, removePost, fileServices, servicesPausingAfter } from "./support";

const services = fileServices();

const pageKeys = (userId: string) => [feedKeys.timeline(userId), feedKeys.flags(userId), feedKeys.unfollowEpoch(userId), feedKeys.bigFollows(userId), feedKeys.activity(), feedKeys.seen(userId)];
/** The page scripts' config arguments: TTL, prefixes, pulled-account bound, counter fields, the safety clock (these keys name no safety sets: nothing is filtered). */
const CONFIG = ["604800", "feed:post:", counterKeys.cache("post", ""), "feed:ob:", "200", "5", "views", "comments", "likes", "favorites", "forwards", String(Date.now()), ""]; // the last: the suspended ids (none)

const parse = <T>(raw: unknown) => (typeof raw === "string" ? JSON.parse(raw) : raw) as T;

/**
 * What a cold read does before it reads Postgres: the page script (read-only) finds no timeline,
 * then the mark (a write) flags it as building and answers the unfollow epoch the build must see.
 */
async function readPageScript(userId: string) {
  const page = parse<{ cold?: boolean }>(await redis.createScript(READ_PAGE, { readonly: true }).exec(pageKeys(userId), ["+inf", "20", "", ...CONFIG]));
  const mark = parse<{ epoch?: string; ready?: boolean }>(await redis.createScript(MARK_BUILDING).exec([feedKeys.timeline(userId), feedKeys.unfollowEpoch(userId)], ["300"]));
  return { cold: page.cold, epoch: mark.epoch };
}

/** Writes a build as the read does, with `pairs` standing for what Postgres returned. */
async function initScript(userId: string, epoch: string, pairs: string[]) {
  const raw = await redis
    .createScript(INIT_TIMELINE)
    .exec(
      pageKeys(userId), // the build also sets the `feed` badge's marker
      [epoch, "1000", "300", "1", ...CONFIG, "0", ...pairs],
    );
  return parse<{ retry?: boolean; written?: boolean }>(raw);
}

const members = (userId: string) => redis.zrange<string[]>(feedKeys.timeline(userId), 0, -1).then((m) => m.map(String));

describe("fan-out", () => {
  it("delivers one post to 2,500 followers in pages of 1,000, only to timelines that exist", async () => {
    const author = newId();
    const base = BigInt(newId()) * 100n; // 2,500 consecutive ids below 2^63
    const followers = Array.from({ length: 2500 }, (_, i) => String(base + BigInt(i)));
    await queryRows(services.db, `INSERT INTO follows (follower_id, followee_id) SELECT unnest($1::bigint[]), $2`, [followers, author]);
    const active = followers.filter((_, i) => i % 2 === 0);
    const p = redis.pipeline();
    for (const f of active) p.zadd(feedKeys.timeline(f), { score: 0, member: "0" }).expire(feedKeys.timeline(f), 600);
    await p.exec();

    const id = await post({ userId: author });
    const member = timelineMember(id, author);
    const scores = async (ids: string[]) => {
      const q = redis.pipeline();
      for (const f of ids) q.zscore(feedKeys.timeline(f), member);
      return (await q.exec()) as (number | null)[];
    };
    await eventually(() => scores(active), (s) => s.every((x) => x !== null), 30_000);
    const q = redis.pipeline();
    for (const f of followers.filter((_, i) => i % 2 === 1)) q.exists(feedKeys.timeline(f));
    expect(((await q.exec()) as number[]).every((x) => x === 0), "no timeline is created by a push").toBe(true);
  });

  it("is idempotent: a redelivered page changes nothing, and an add after the delete's removal adds nothing", async () => {
    const [me, author] = [newId(), newId()];
    await follow(me, author);
    await feed(me);
    const id = await post({ userId: author });
    await eventually(() => members(me), (m) => m.includes(timelineMember(id, author)));
    const add = { kind: "fanout", op: "add", postId: id, authorId: author, after: null } as const;
    const before = await members(me);
    expect(await deliver(services, add)).toMatchObject({ kind: "fanout", followers: 1, touched: 1, next: false });
    expect(await members(me)).toEqual(before);

    await removePost(author, id);
    await eventually(() => members(me), (m) => !m.includes(timelineMember(id, author)));
    await deliver(services, add); // a late redelivery of the publish, after the delete
    await deliver(services, { ...add, op: "remove" });
    await deliver(services, add);
    expect(await members(me)).not.toContain(timelineMember(id, author));
  });

  it("syncs act on the latest follow intent, in any delivery order", async () => {
    const [me, author] = [newId(), newId()];
    const ids = [await post({ userId: author }), await post({ userId: author })];
    await feed(me);
    const sync = { kind: "sync", followerId: me, followeeId: author } as const;
    await follow(me, author);
    await follow(me, author, "DELETE");
    // The follow's own sync arrives after the unfollow: it must not bring the posts back.
    expect(await deliver(services, sync)).toEqual({ kind: "sync", outcome: "removed" });
    expect((await feed(me)).items).toEqual([]);
    await follow(me, author);
    await deliver(services, sync);
    await deliver(services, sync);
    expect((await feed(me)).items.map((i) => i.post.id)).toEqual(newestFirst(ids));
  });
});

/** The interleaving "a fan-out page reads its followers → `between` → it delivers", forced. */
const servicesPausingAfterFollowerPage = (between: () => Promise<void>) => servicesPausingAfter(/FROM follows\s+WHERE followee_id = \$1 AND/, between);

describe("an unfollow racing a delivery", () => {
  it("wins over a fan-out page that read its followers before it: the post is not added back", async () => {
    const [me, author] = [newId(), newId()];
    await follow(me, author);
    await feed(me);
    const id = await post({ userId: author });
    await eventually(() => members(me), (m) => m.includes(timelineMember(id, author)));
    const racing = servicesPausingAfterFollowerPage(() => follow(me, author, "DELETE"));
    try {
      await deliver(racing.services, { kind: "fanout", op: "add", postId: id, authorId: author, after: null });
      expect(racing.paused(), "the page read me as a follower before the unfollow").toBe(true);
    } finally {
      await racing.close();
    }
    expect(await members(me)).not.toContain(timelineMember(id, author));
    expect((await feed(me)).items).toEqual([]);
    // Following again makes the intent "1": the next delivery adds (and the follow's sync copies) it.
    await follow(me, author);
    await deliver(services, { kind: "fanout", op: "add", postId: id, authorId: author, after: null });
    expect((await feed(me)).items.map((i) => i.post.id)).toEqual([id]);
  });

  it("wins over a transition page that read its followers before it: the account is not pulled", async () => {
    const [me, author] = [newId(), newId()];
    await follow(me, author);
    await post({ userId: author });
    await feed(me);
    // The scan's claim (and a followers count that keeps other files' scans off this author).
    await queryRows(services.db, `INSERT INTO feed_big_accounts (author_id, state) VALUES ($1, 'to-big')`, [author]);
    await queryRows(
      services.db,
      `INSERT INTO counters (entity, entity_id, field, value) VALUES ('user', $1, 'followers', 1000000000)
       ON CONFLICT (entity, entity_id, field) DO UPDATE SET value = excluded.value`,
      [author],
    );
    const racing = servicesPausingAfterFollowerPage(() => follow(me, author, "DELETE"));
    try {
      await deliver(racing.services, { kind: "transition", authorId: author, to: "big", after: null });
      expect(racing.paused(), "the page read me as a follower before the unfollow").toBe(true);
    } finally {
      await racing.close();
    }
    expect(await redis.smembers(feedKeys.bigFollows(me))).not.toContain(author);
    expect((await feed(me)).items).toEqual([]);
  });
});

describe("follow syncs and posts", () => {
  it("delivers a post while the follow syncs queued before it still wait: a burst of follows never delays a post", async () => {
    const SYNCS = 500;
    const followee = newId();
    const [row] = await queryRows<{ id: string }>(services.db, `INSERT INTO posts (author_id, text) VALUES ($1, 'backfill') RETURNING id::text AS id`, [followee]);
    const backfill = timelineMember(row!.id, followee);
    // SYNCS followers of `followee` with a timeline and the follow intent, as SYNCS follows leave them.
    const fans = Array.from({ length: SYNCS }, () => newId());
    await queryRows(services.db, `INSERT INTO follows (follower_id, followee_id) SELECT unnest($1::bigint[]), $2`, [fans, followee]);
    const p = redis.pipeline();
    for (const f of fans) p.zadd(feedKeys.timeline(f), { score: 0, member: "0" }).expire(feedKeys.timeline(f), 600).set(feedKeys.intent(f, followee), "1", { ex: 600 });
    await p.exec();
    const synced = async () => {
      const q = redis.pipeline();
      for (const f of fans) q.zscore(feedKeys.timeline(f), backfill);
      return ((await q.exec()) as (number | null)[]).filter((score) => score !== null).length;
    };
    const [me, author] = [newId(), newId()];
    await follow(me, author);
    await feed(me);

    // Their syncs queued first, then a post by an account I follow.
    const syncs = (env as unknown as Env).FEED_SYNC_QUEUE;
    for (let i = 0; i < SYNCS; i += 100) {
      await syncs.sendBatch(fans.slice(i, i + 100).map((f) => ({ body: { kind: "sync", followerId: f, followeeId: followee } as const })));
    }
    const id = await post({ userId: author });
    await eventually(() => members(me), (m) => m.includes(timelineMember(id, author)));
    expect(await synced(), "the post waited for every sync queued before it").toBeLessThan(SYNCS);
    // The syncs still all complete.
    await eventually(synced, (n) => n === SYNCS, 50_000);
  });
});

describe("timeline build races", () => {
  it("keeps a post pushed while the build was reading Postgres", async () => {
    const [me, author] = [newId(), newId()];
    await follow(me, author);
    const cold = await readPageScript(me);
    expect(cold).toMatchObject({ cold: true });
    const id = await post({ userId: author }); // committed after the build's (simulated) read
    await eventually(() => members(me), (m) => m.includes(timelineMember(id, author)));
    const built = await initScript(me, cold.epoch!, []); // the build's rows predate the post
    expect(built).toEqual({ written: true });
    expect((await members(me)).filter((m) => m !== "0"), "the pushed post, kept by the build").toEqual([timelineMember(id, author)]);
    expect((await feed(me)).items.map((i) => i.post.id)).toEqual([id]);
  });

  it("refuses to write a build that read Postgres before an unfollow, and the next read rebuilds", async () => {
    const [me, author] = [newId(), newId()];
    await follow(me, author);
    const id = await post({ userId: author });
    const cold = await readPageScript(me);
    await follow(me, author, "DELETE"); // after the build's read, before its write
    expect(await initScript(me, cold.epoch!, [timelineMember(id, author), id])).toEqual({ retry: true });
    expect((await feed(me)).items).toEqual([]);
  });
});

describe("cold page", () => {
  it("builds the timeline, its first page's posts, counters and flags from ONE Postgres statement", async () => {
    const [me, a, b] = [newId(), newId(), newId()];
    await follow(me, a);
    await follow(me, b);
    const ids = [await post({ userId: a }), await post({ userId: b }), await post({ userId: me })];
    await queryRows(services.db, `INSERT INTO post_likes (user_id, post_id) VALUES ($1, $2)`, [me, ids[1]]);
    await queryRows(services.db, `INSERT INTO counters (entity, entity_id, field, value) VALUES ('post', $1, 'likes', 5)`, [ids[1]]);
    await redis.del(feedKeys.timeline(me), ...ids.map((id) => counterKeys.cache("post", id)), ...ids.map((id) => feedKeys.post(id)), feedKeys.flags(me));
    // The reader's safety sets cached (a reader whose sets are not costs one statement more: their rebuild).
    await rebuildSets(services, me, "");
    const { services: counted, close } = servicesFor();
    const pool = (counted.db as unknown as { $client: { query: (...args: unknown[]) => Promise<unknown> } }).$client;
    const statements: string[] = [];
    const query = pool.query.bind(pool);
    pool.query = (...args: unknown[]) => {
      statements.push(String(args[0]).slice(0, 60));
      return query(...args);
    };
    try {
      const page = await readHomeFeed(counted, me, { limit: 20 });
      expect(page.items.map((i) => i.post.id)).toEqual(newestFirst(ids));
      expect(page.items[1]).toMatchObject({ liked: true, counts: { likes: 5 } }); // as written to Postgres
      expect(statements, statements.join("\n")).toHaveLength(1);
    } finally {
      await close();
    }
  });
});
