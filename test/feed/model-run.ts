/**
 * Model-based test of the home timeline: seeded random interleavings of posts, deletes, follows,
 * unfollows, likes, unlikes, favourites and unfavourites, big-account threshold crossings both ways (posts, follows and reads happen while a
 * transition is claimed but not delivered, and transitions are redelivered), queue deliveries
 * (held back while reads happen, delivered out of order, some redelivered), timeline and flag-cache expiry and reads. The domain functions the routes and the queue handler
 * run are called directly, with a queue that holds messages until the test delivers them, so the
 * test decides the delivery order.
 *
 * At every read, walked at a random page size (1–12, sometimes 20–100): no deleted post, no post of
 * an account not followed, no item twice across pages, and every item exactly as the model draws
 * it — post id, author, text, creation time, counts, and the reader's liked/favourited flags —
 * and so is one post's detail per page (`GET /v1/posts/{id}`: the same fields, or 404 once deleted).
 * Around every transition step: no reader loses a post of that author.
 * Once the queue is drained: every user's whole timeline equals the model — followees' and own live
 * posts, newest first. (The model stays under the cap; the cap has its own test in feed.test.ts.)
 * The user's followers and following lists (the lists' caches), at every read step and at the end:
 * exactly the model's follows, newest first, walked at a random page size; and an author's
 * profile (the profile cache), read by another user: the author's live posts, every field.
 * The `feed` badge, at every read step and at the end: the number of posts above the reader's
 * marker on the merged page (the walk: timeline and big accounts' outboxes), capped at a random
 * cap; after a first-page read (half the read steps), zero.
 *
 * model.test.ts runs ten seeds at one Redis database; model-databases.test.ts runs four of them
 * over three Redis databases (users spread over the three, posts wherever
 * their ids fall): timelines, flags and markers on the reader's database, posts on theirs, outboxes
 * on every one; every check is the same. (There the `feed` badge is read by the feed's own
 * `readFeedUnseenMany`, the read the badge hubs make, one request per database of its users.)
 */
import { createExecutionContext, env } from "cloudflare:test";
import { expect } from "vitest";
import { events } from "../../src/app";
import type { Env } from "../../src/env";
import { deliver } from "../../src/feed/fanout";
import { addReaction, removeReaction, type Reaction } from "../../src/counters/reactions";
import { queryRows } from "../../src/counters/store";
import { feedKeys, maxPulledAccounts } from "../../src/feed/keys";
import type { FeedMessage } from "../../src/feed/messages";
import { readPostDetail } from "../../src/feed/detail";
import { readHomeFeed } from "../../src/feed/timeline";
import { ApiError } from "../../src/lib/errors";
import { readFeedUnseenMany, readingFirstPage } from "../../src/feed/unseen";
import { getBadges } from "../../src/badges/badges";
import { capped } from "../../src/badges/shared";
import { createServices, type Services } from "../../src/lib/services";
import { follow, listFollowEdges, unfollow } from "../../src/social/follows";
import { createPost, deletePost, listPostsByAuthor } from "../../src/social/posts";
import { newId } from "../support/api";
import { newIdOn } from "../support/databases";
import { prng } from "../support/prng";

const byIdDesc = (a: string, b: string) => (BigInt(b) > BigInt(a) ? 1 : BigInt(b) < BigInt(a) ? -1 : 0);

/** Runs seed `seed` for `steps` steps, with the Worker's bindings plus `overrides`, checking as it goes. */
export async function runSeed(seed: number, steps: number, overrides: Partial<Env> = {}) {
  const rnd = prng(seed);
  const held: FeedMessage[] = [];
  const queue = { send: async (m: FeedMessage) => void held.push(structuredClone(m)), sendBatch: async () => {} } as unknown as Queue<FeedMessage>;
  const { services, close } = createServices({ ...(env as unknown as Env), ...overrides, FEED_QUEUE: queue, FEED_SYNC_QUEUE: queue }, createExecutionContext(), events);
  const n = services.databases;
  // At N > 1 the users are spread over every database (and the posts fall where their ids put them).
  const users = Array.from({ length: 5 }, (_, i) => (n === 1 ? newId() : newIdOn(i, n)));
  /** The `feed` badge: the badges call at N = 1; at N > 1 the feed's own read of it (the hubs' read). */
  const feedBadge = async (user: string, cap: number) =>
    n === 1 ? (await getBadges(services, user, cap)).feed : capped((await readFeedUnseenMany(services, [user], maxPulledAccounts(services.env)))[0]!, cap);
  const follows = new Set<string>(); // "follower>followee"
  /** Each follow's place in time ("follower>followee" → sequence): the follower lists are newest first. */
  const followedAt = new Map<string, number>();
  const posts = new Map<string, { author: string; text: string; createdAt: string; live: boolean }>();
  const reactions = { like: new Set<string>(), favorite: new Set<string>() }; // "user>post"
  const reactors = (kind: Reaction, postId: string) => [...reactions[kind]].filter((r) => r.endsWith(`>${postId}`)).length;
  const log: string[] = [];

  const expected = (user: string) =>
    [...posts.entries()]
      .filter(([, p]) => p.live && (p.author === user || follows.has(`${user}>${p.author}`)))
      .map(([id]) => id)
      .sort(byIdDesc);

  /** The whole timeline, walked with a random page size, checking the per-read invariants. */
  async function walk(user: string): Promise<string[]> {
    const limit = rnd.next() < 0.85 ? rnd.int(1, 12) : rnd.pick([20, 50, 100]);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 500; pages++) {
      const page = await readHomeFeed(services, user, { limit, cursor });
      expect(page.degraded, `seed ${seed}`).toBe(false);
      for (const item of page.items) {
        const p = posts.get(item.post.id);
        const context = `seed ${seed}, user ${user}, item ${item.post.id}, log:\n${log.slice(-15).join("\n")}`;
        expect(p?.live, `deleted post shown: ${context}`).toBe(true);
        expect(item.post.authorId === user || follows.has(`${user}>${item.post.authorId}`), `post of an account not followed: ${context}`).toBe(true);
        expect(seen, `item twice: ${context}`).not.toContain(item.post.id);
        expect(item, `item not as the model draws it (limit ${limit}): ${context}`).toEqual({
          post: { id: item.post.id, authorId: p!.author, text: p!.text, createdAt: p!.createdAt },
          counts: { likes: reactors("like", item.post.id), comments: 0, forwards: 0, views: 0, favorites: reactors("favorite", item.post.id) },
          liked: reactions.like.has(`${user}>${item.post.id}`),
          favorited: reactions.favorite.has(`${user}>${item.post.id}`),
        });
        seen.push(item.post.id);
      }
      await checkDetail(user, page.items.length > 0 && rnd.next() < 0.7 ? rnd.pick(page.items).post.id : rnd.pick([...posts.keys()]));
      if (!page.nextCursor) return seen;
      cursor = page.nextCursor;
    }
    throw new Error("runaway pagination");
  }

  /** A post's detail (`GET /v1/posts/{id}`, from the same caches) as the model draws it: the item's fields, or 404 once deleted. */
  async function checkDetail(user: string, postId: string | undefined) {
    const p = postId === undefined ? undefined : posts.get(postId);
    if (!p || !postId) return;
    const context = `seed ${seed}, detail of ${postId} for ${user}, log:\n${log.slice(-15).join("\n")}`;
    const got = await readPostDetail(services, postId, user).catch((err: unknown) => (err instanceof ApiError ? err.code : Promise.reject(err)));
    if (!p.live) return expect(got, context).toBe("not_found");
    expect(got, context).toEqual({
      id: postId,
      authorId: p.author,
      text: p.text,
      createdAt: p.createdAt,
      counts: { likes: reactors("like", postId), comments: 0, forwards: 0, views: 0, favorites: reactors("favorite", postId) },
      liked: reactions.like.has(`${user}>${postId}`),
      favorited: reactions.favorite.has(`${user}>${postId}`),
    });
  }

  /**
   * An author's profile (`GET /v1/users/{id}/posts`, from the profile cache) as `viewer` walks it
   * at a random page size: the author's live posts, newest first, every field as the model has it.
   */
  async function checkProfile(author: string, viewer: string) {
    const limit = rnd.int(1, 6);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 200; pages++) {
      const page = await listPostsByAuthor(services, author, { limit, ...(cursor ? { cursor } : {}) }, viewer);
      seen.push(...page.items);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const want = [...posts.entries()]
      .filter(([, p]) => p.live && p.author === author)
      .sort(([a], [b]) => byIdDesc(a, b))
      .map(([id, p]) => ({ id, authorId: author, text: p.text, createdAt: p.createdAt }));
    expect(seen, `seed ${seed}, profile of ${author} read by ${viewer} (limit ${limit}), log:\n${log.slice(-15).join("\n")}`).toEqual(want);
  }

  /**
   * The user's followers and following lists (`GET /v1/users/{id}/followers|following`, from the
   * lists' caches), walked at a random page size: exactly the model's follows, newest first.
   */
  async function checkFollowLists(user: string) {
    for (const direction of ["followers", "following"] as const) {
      const limit = rnd.int(1, 4);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 50; pages++) {
        const page = await listFollowEdges(services, direction, user, { limit, ...(cursor ? { cursor } : {}) });
        for (const item of page.items) expect(Number.isNaN(Date.parse(item.followedAt))).toBe(false);
        seen.push(...page.items.map((i) => i.userId));
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      const expected = [...followedAt.entries()]
        .map(([key, at]) => [key.split(">") as [string, string], at] as const)
        .filter(([[a, b]]) => (direction === "followers" ? b === user : a === user))
        .sort((x, y) => y[1] - x[1])
        .map(([[a, b]]) => (direction === "followers" ? a : b));
      expect(seen, `seed ${seed}, ${direction} of ${user} (limit ${limit}), log:\n${log.slice(-15).join("\n")}`).toEqual(expected);
    }
  }

  /**
   * The `feed` badge equals the posts above the marker on the merged page (what the walk shows),
   * capped; a first-page read (the route's `readingFirstPage`) then resets it to zero.
   */
  async function checkFeedBadge(user: string) {
    const ids = await walk(user);
    const marker = Number((await services.redisFor(user).get(feedKeys.seen(user))) ?? 0);
    const cap = rnd.pick([2, 5, 99]);
    const context = `seed ${seed}, user ${user}, cap ${cap}, marker ${marker}, page ${ids.join(",")}, log:\n${log.slice(-25).join("\n")}`;
    const above = ids.filter((id) => Number(id) > marker).length;
    expect(await feedBadge(user, cap), `feed badge: ${context}`).toEqual(capped(above, cap));
    if (rnd.next() < 0.5) {
      log.push(`first page ${user}`);
      await readingFirstPage(services, user, (s) => readHomeFeed(s, user, { limit: rnd.int(1, 12) }));
      expect(await feedBadge(user, cap), `feed badge after a first-page read: ${context}`).toEqual(capped(0, cap));
    }
  }

  /**
   * Other test files run the threshold scan on the same database: a flushed followers counter far
   * above their threshold while big (and 0 once normal) keeps their scans off this model's authors.
   */
  async function setFollowers(author: string, value: number) {
    await queryRows(
      services.db,
      `INSERT INTO counters (entity, entity_id, field, value) VALUES ('user', $1, 'followers', $2)
       ON CONFLICT (entity, entity_id, field) DO UPDATE SET value = excluded.value`,
      [author, value],
    );
  }

  async function deliverOne() {
    const i = rnd.int(0, held.length - 1);
    const [message] = rnd.next() < 0.2 ? [structuredClone(held[i]!)] : held.splice(i, 1); // 20%: delivered now and again later
    log.push(`deliver ${JSON.stringify(message)}`);
    if (message!.kind !== "transition") {
      await deliver(services, message!);
      return;
    }
    // A transition step never takes one of the author's posts off anyone's page.
    const author = message!.authorId;
    const visible = async () => new Map(await Promise.all(users.map(async (u) => [u, (await walk(u)).filter((id) => posts.get(id)?.author === author)] as const)));
    const before = await visible();
    await deliver(services, message!);
    const after = await visible();
    for (const u of users) {
      expect(after.get(u), `seed ${seed}: transition of ${author} hid posts from ${u}; log:\n${log.slice(-25).join("\n")}`).toEqual(expect.arrayContaining(before.get(u)!));
    }
  }

  try {
    for (let step = 0; step < steps; step++) {
      const roll = rnd.next();
      const live = [...posts.entries()].filter(([, p]) => p.live);
      if (roll < 0.2) {
        const author = rnd.pick(users);
        const p = await createPost(services, author, `s${seed} #${step}`);
        posts.set(p.id, { author, text: p.text, createdAt: p.createdAt, live: true });
        log.push(`post ${p.id} by ${author}`);
      } else if (roll < 0.26 && live.length > 0) {
        const [id, p] = rnd.pick(live);
        await deletePost(services, { userId: p.author, role: "user" }, id);
        p.live = false;
        log.push(`delete ${id}`);
      } else if (roll < 0.4) {
        const [a, b] = [rnd.pick(users), rnd.pick(users)];
        if (a === b) continue;
        if (follows.has(`${a}>${b}`)) {
          await unfollow(services, a, b);
          follows.delete(`${a}>${b}`);
          followedAt.delete(`${a}>${b}`);
          log.push(`unfollow ${a}>${b}`);
        } else {
          await follow(services, a, b);
          follows.add(`${a}>${b}`);
          followedAt.set(`${a}>${b}`, step);
          log.push(`follow ${a}>${b}`);
        }
      } else if (roll < 0.48) {
        // A threshold crossing, as the per-minute scan starts it: the Postgres claim now, the
        // transition's message into the held queue (so posts, follows and reads happen mid-transition).
        const author = rnd.pick(users);
        const [row] = await queryRows<{ state: string }>(services.db, `SELECT state FROM feed_big_accounts WHERE author_id = $1`, [author]);
        if (!row) {
          await queryRows(services.db, `INSERT INTO feed_big_accounts (author_id, state) VALUES ($1, 'to-big')`, [author]);
          await setFollowers(author, 1_000_000_000);
          held.push({ kind: "transition", authorId: author, to: "big", after: null });
          log.push(`to-big ${author}`);
        } else if (row.state === "big") {
          await queryRows(services.db, `UPDATE feed_big_accounts SET state = 'to-normal' WHERE author_id = $1`, [author]);
          await setFollowers(author, 0);
          held.push({ kind: "transition", authorId: author, to: "normal", after: null });
          log.push(`to-normal ${author}`);
        }
      } else if (roll < 0.62 && live.length > 0) {
        // A like or favourite toggled, mostly on a post the user's timeline shows.
        const user = rnd.pick(users);
        const mine = expected(user);
        const id = mine.length > 0 && rnd.next() < 0.8 ? rnd.pick(mine) : rnd.pick(live)[0];
        const kind: Reaction = rnd.next() < 0.6 ? "like" : "favorite";
        const key = `${user}>${id}`;
        if (reactions[kind].has(key)) {
          await removeReaction(services, kind, user, id);
          reactions[kind].delete(key);
          log.push(`un${kind} ${key}`);
        } else {
          await addReaction(services, kind, user, id);
          reactions[kind].add(key);
          log.push(`${kind} ${key}`);
        }
      } else if (roll < 0.8 && held.length > 0) {
        await deliverOne();
      } else if (roll < 0.84) {
        // A TTL ran out: the timeline's or the reaction flags'.
        const user = rnd.pick(users);
        const key = rnd.next() < 0.6 ? feedKeys.timeline(user) : feedKeys.flags(user);
        await services.redisFor(user).del(key);
        log.push(`expire ${key}`);
      } else {
        const user = rnd.pick(users);
        log.push(`read ${user}`);
        await checkFeedBadge(user);
        await checkFollowLists(user);
        await checkProfile(rnd.pick(users), user);
      }
    }
    while (held.length > 0) await deliverOne();
    // Epilogue: everyone posts once more after every transition has ended (pull for the big
    // accounts, push for the others), then everything is delivered.
    for (const author of users) {
      const p = await createPost(services, author, `s${seed} epilogue`);
      posts.set(p.id, { author, text: p.text, createdAt: p.createdAt, live: true });
      log.push(`post ${p.id} by ${author}`);
    }
    while (held.length > 0) await deliverOne();
    for (const user of users) {
      expect(await walk(user), `seed ${seed}, user ${user}, log:\n${log.slice(-25).join("\n")}`).toEqual(expected(user));
      await checkFeedBadge(user);
      await checkFollowLists(user);
      await checkProfile(user, rnd.pick(users));
    }
  } finally {
    await close();
  }
}
