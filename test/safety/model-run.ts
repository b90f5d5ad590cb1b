/**
 * The safety model over HTTP: seeded random follows, unfollows, posts, deletes, likes, DMs and
 * notifications with `from`, blocks, unblocks, mutes (with and without their notifications) and
 * unmutes, suspensions and lifts among a few users, through the Worker's API on the real stack. After every step the
 * model is compared with what clients see:
 * - every page of the home timeline, chronological and ranked, walked at a random page size:
 *   every field of every item (post, counts, the reader's flags), never a blocked, muted or
 *   deleted author's post, and in the end exactly the posts the model says;
 * - the timeline in Redis equals the model's (what fan-outs, syncs and purges put there) before any
 *   read, so a late delivery or a sync that skipped the safety check shows as a difference;
 * - the badges: "N new posts" (`feed`), unread DMs by peer and notifications by type, equal to the
 *   model, and unread per author never naming a hidden author;
 * - followers and following lists (every page) and counts; profiles and post reads, 403 `blocked`
 *   between the two of a block; trending read by a user never showing a hidden author;
 * - every refusal: a follow, like, DM across a block `403 blocked`, a notification across a block
 *   or a notifications mute accepted with `applied: false` and the reason; a suspended user's every
 *   request `403 suspended`, their DMs and notifications `suppressed: "suspended"`, their posts
 *   hidden from every screen (profiles empty, post reads 404) and from others' follow lists, and all
 *   of it back exactly at the lift.
 * Durations of mutes and held posts have their own tests (mutes.test.ts, filter.test.ts): the term
 * list is the deployment's, shared by every file running at once. Follows of a suspended user and
 * likes of their posts are left out of the model (suspension.test.ts has them).
 *
 * Timelines are made settled after each step by reading Redis directly (the fan-out and follow
 * sync run on the queue): `settle` waits until every user's timeline holds what the model says.
 */
import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { Env } from "../../src/env";
import { NOTIFICATION_TYPES } from "../../src/badges/notifications";
import { feedKeys } from "../../src/feed/keys";
import { redisAt } from "../../src/lib/redis";
import { databaseOf, topologyOf } from "../../src/lib/redis-topology";
import { api, newId, show, type ApiResponse } from "../support/api";
import { newIdOn } from "../support/databases";
import { eventually } from "../support/eventually";
import { prng } from "../support/prng";
import { service } from "./support";

const admin = { userId: "9000000000000002", role: "admin" as const };

const as = (userId: string) => ({ as: { userId } });
const n = () => topologyOf(env as unknown as Env).n;
const byIdDesc = (a: string, b: string) => (BigInt(b) > BigInt(a) ? 1 : BigInt(b) < BigInt(a) ? -1 : 0);

type Post = { author: string; text: string; createdAt: string; live: boolean };
type Mute = { notifications: boolean };
export type SafetyModelStats = Record<string, number>;

export async function runSafetyModel(seed: number, steps: number): Promise<SafetyModelStats> {
  const rnd = prng(seed);
  const stats: SafetyModelStats = {};
  const count = (what: string) => (stats[what] = (stats[what] ?? 0) + 1);
  const N = n();
  const users = Array.from({ length: 5 }, (_, i) => (N === 1 ? newId() : newIdOn(i % N, N)));
  const follows = new Set<string>(); // "a>b": a follows b
  const blocks = new Set<string>(); // "a>b": a blocked b
  const mutes = new Map<string, Mute>(); // "a>b": a mutes b
  const suspended = new Set<string>();
  const posts = new Map<string, Post>();
  const likes = new Set<string>(); // "user>post"
  const timeline = new Map<string, Set<string>>(users.map((u) => [u, new Set()])); // what Redis should hold
  const marker = new Map<string, bigint>(); // the `feed` badge's marker: the timeline's top at the last first-page read
  const dms = new Map<string, Map<string, number>>(users.map((u) => [u, new Map()])); // to → from → unread
  const notifications = new Map<string, Map<string, number>>(users.map((u) => [u, new Map()])); // to → type → unread
  const kept: string[] = []; // each user's first post, never deleted: timelines are never empty
  const log: string[] = [];
  const context = () => `seed ${seed} (N = ${N}), last steps:\n${log.slice(-12).join("\n")}`;

  const blockedEither = (a: string, b: string) => blocks.has(`${a}>${b}`) || blocks.has(`${b}>${a}`);
  /** Whether `reader`'s screens hide `author`: a block either way, a mute in force, or the author suspended. */
  const hidden = (reader: string, author: string) =>
    reader !== author && (blockedEither(reader, author) || mutes.has(`${reader}>${author}`) || suspended.has(author));
  /** Readers the checks run as: a suspended user's token is refused everywhere (checked apart). */
  const active = () => users.filter((u) => !suspended.has(u));
  const visible = (reader: string) =>
    [...timeline.get(reader)!].filter((id) => posts.get(id)!.live && !hidden(reader, posts.get(id)!.author)).sort(byIdDesc);
  const likers = (postId: string) => [...likes].filter((l) => l.endsWith(`>${postId}`)).length;
  const livePostsOf = (author: string) => [...posts].filter(([, p]) => p.live && p.author === author).map(([id]) => id).sort(byIdDesc);
  const pick = <T>(xs: readonly T[]) => rnd.pick(xs);
  /** Two users; half the time two with a block or mute between them (either way round), so refusals and suppressions happen. */
  const pair = () => {
    const edges = [...blocks, ...mutes.keys()];
    if (edges.length > 0 && rnd.next() < 0.5) {
      const [x, y] = pick(edges).split(">") as [string, string];
      return rnd.next() < 0.5 ? ([x, y] as const) : ([y, x] as const);
    }
    const a = pick(users);
    let b = pick(users);
    while (b === a) b = pick(users);
    return [a, b] as const;
  };

  const ok = async (res: Promise<ApiResponse>, status = 200) => {
    const r = await res;
    expect(r.status, `${show(r)}\n${context()}`).toBe(status);
    return r;
  };
  const refusedBlocked = async (res: Promise<ApiResponse>) => {
    const r = await ok(res, 403);
    expect(r.body.error.code, context()).toBe("blocked");
  };
  const refusedSuspended = async (res: Promise<ApiResponse>) => {
    const r = await ok(res, 403);
    expect(r.body.error.code, context()).toBe("suspended");
    count("refused_suspended");
  };

  // ── What Redis holds, and waiting for the queue ───────────────────────────
  const members = async (user: string) =>
    (await redisAt(env as unknown as Env, databaseOf(user, N)).zrange<unknown[]>(feedKeys.timeline(user), 0, -1))
      .map(String)
      .filter((m) => m.includes(":"))
      .map((m) => m.slice(0, m.indexOf(":")))
      .sort(byIdDesc);
  /** Every user's timeline in Redis is the model's (the fan-outs, syncs and deletes on the queue have run). */
  async function settle() {
    for (const user of users) {
      const want = [...timeline.get(user)!].sort(byIdDesc);
      const got = await eventually(() => members(user), (ids) => JSON.stringify(ids) === JSON.stringify(want), 10_000);
      expect(got, `the timeline of ${user} in Redis (what fan-outs, syncs and purges put there)\n${context()}`).toEqual(want);
    }
  }

  // ── Reads compared with the model ─────────────────────────────────────────
  async function walkFeed(user: string, order: "chronological" | "ranked") {
    const limit = rnd.next() < 0.85 ? rnd.int(1, 6) : rnd.pick([20, 50]);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const query: string = `limit=${limit}&order=${order}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page: any = (await ok(api("GET", `/v1/me/feed?${query}`, as(user)))).body;
      expect(page.degraded, context()).toBe(false);
      expect(page.items.length, context()).toBeLessThanOrEqual(limit);
      for (const item of page.items) {
        const p = posts.get(item.post.id);
        const where = `${order} page of ${user} (limit ${limit}), item ${item.post.id}\n${context()}`;
        expect(p, `unknown post: ${where}`).toBeDefined();
        expect(hidden(user, p!.author), `a hidden author's post shown: ${where}`).toBe(false);
        expect(p!.live, `a deleted post shown: ${where}`).toBe(true);
        expect(seen, `an item twice: ${where}`).not.toContain(item.post.id);
        expect(item, `item not as the model draws it: ${where}`).toEqual({
          post: { id: item.post.id, authorId: p!.author, text: p!.text, createdAt: p!.createdAt },
          counts: { likes: likers(item.post.id), comments: 0, forwards: 0, views: 0, favorites: 0 },
          liked: likes.has(`${user}>${item.post.id}`),
          favorited: false,
        });
        seen.push(item.post.id);
      }
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const want = visible(user);
    if (order === "chronological") expect(seen, `the timeline of ${user}\n${context()}`).toEqual(want);
    else expect([...seen].sort(byIdDesc), `the ranked timeline of ${user}\n${context()}`).toEqual(want);
    // A first-page read moves the marker to the timeline's top (hidden authors' posts included).
    const top = [...timeline.get(user)!].filter((id) => posts.get(id)!.live).sort(byIdDesc)[0];
    if (top) marker.set(user, BigInt(top));
    count(`walk_${order}`);
  }

  async function checkBadges(user: string) {
    const badges = (await ok(api("GET", "/v1/me/badges?cap=99", as(user)))).body;
    const mark = marker.get(user);
    if (mark !== undefined) {
      const above = visible(user).filter((id) => BigInt(id) > mark).length;
      expect(badges.feed, `"N new posts" of ${user} (marker ${mark})\n${context()}`).toEqual({ count: above, capped: false });
      if (above > 0) count("feed_badge_nonzero");
    }
    const wantDms = Object.fromEntries([...dms.get(user)!].filter(([, c]) => c > 0));
    const gotDms = (await ok(api("GET", "/v1/me/dms", as(user)))).body;
    expect({ byPeer: Object.fromEntries(Object.entries(gotDms.byPeer).filter(([, c]) => Number(c) > 0)), total: gotDms.total }, `DMs of ${user}\n${context()}`).toEqual({
      byPeer: wantDms,
      total: Object.values(wantDms).reduce((s, c) => s + c, 0),
    });
    const wantNotes = Object.fromEntries([...notifications.get(user)!].filter(([, c]) => c > 0));
    const gotNotes = (await ok(api("GET", "/v1/me/notifications", as(user)))).body;
    expect({ byType: Object.fromEntries(Object.entries(gotNotes.byType).filter(([, c]) => Number(c) > 0)), total: gotNotes.total }, `notifications of ${user}\n${context()}`).toEqual({
      byType: wantNotes,
      total: Object.values(wantNotes).reduce((s, c) => s + c, 0),
    });
    const authors = (await ok(api("GET", "/v1/me/unread/authors?limit=50", as(user)))).body;
    for (const item of authors.items) expect(hidden(user, item.authorId), `unread per author names a hidden author ${item.authorId} for ${user}\n${context()}`).toBe(false);
    count("badges");
  }

  async function checkFollowLists(user: string) {
    for (const kind of ["followers", "following"] as const) {
      // A suspended user is in nobody's list (their own lists are as they were); the counts keep them.
      const want = users.filter((o) => !suspended.has(o) && (kind === "followers" ? follows.has(`${o}>${user}`) : follows.has(`${user}>${o}`))).sort();
      const got: string[] = [];
      let cursor: string | null = null;
      const limit = rnd.int(1, 4);
      for (let pages = 0; pages < 20; pages++) {
        const res: any = (await ok(api("GET", `/v1/users/${user}/${kind}?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`))).body;
        for (const item of res.items) {
          expect(Object.keys(item).sort(), context()).toEqual(["followedAt", "userId"]);
          expect(item.followedAt, context()).toMatch(/^\d{4}-\d\d-\d\dT/);
          got.push(item.userId);
        }
        cursor = res.nextCursor;
        if (!cursor) break;
      }
      expect([...got].sort(), `${kind} of ${user}\n${context()}`).toEqual(want);
    }
    const counts = (await ok(api("GET", `/v1/counters/user?ids=${user}`))).body.items[0].counts;
    expect({ followers: counts.followers, following: counts.following }, `follow counts of ${user}\n${context()}`).toEqual({
      followers: users.filter((o) => follows.has(`${o}>${user}`)).length,
      following: users.filter((o) => follows.has(`${user}>${o}`)).length,
    });
    count("follow_lists");
  }

  async function checkProfile(reader: string, author: string) {
    const res = api("GET", `/v1/users/${author}/posts?limit=50`, as(reader));
    // A suspended author shows nothing to anyone, block or not (the suspension is checked first).
    if (reader !== author && blockedEither(reader, author) && !suspended.has(author)) return refusedBlocked(res);
    const body = (await ok(res)).body;
    // A suspended author's profile is an empty page and their posts read 404, for everyone.
    const shown = suspended.has(author) ? [] : livePostsOf(author);
    expect(body.items.map((p: { id: string }) => p.id), `profile of ${author} read by ${reader}\n${context()}`).toEqual(shown);
    const one = pick(livePostsOf(author));
    if (one && suspended.has(author)) await ok(api("GET", `/v1/posts/${one}`, as(reader)), 404);
    else if (one) expect((await ok(api("GET", `/v1/posts/${one}`, as(reader)))).body.id, context()).toBe(one);
    count(suspended.has(author) ? "profiles_suspended" : "profiles");
  }

  async function checkTrending(reader: string) {
    const items = (await ok(api("GET", "/v1/posts/trending?window=1h&limit=100", as(reader)))).body.items as { post: { id: string; authorId: string } }[];
    for (const item of items) expect(hidden(reader, item.post.authorId), `trending of ${reader} shows a hidden author's post ${item.post.id}\n${context()}`).toBe(false);
    count("trending");
  }

  // ── Writes ────────────────────────────────────────────────────────────────
  async function createPost(author: string) {
    const text = `m${seed} ${author} ${posts.size}`;
    const res = await ok(api("POST", "/v1/posts", { ...as(author), body: { text } }), 201);
    posts.set(res.body.id, { author, text, createdAt: res.body.createdAt, live: true });
    // Delivered to the author's own timeline and to each follower whose sets do not hide the author.
    timeline.get(author)!.add(res.body.id);
    for (const u of users) if (follows.has(`${u}>${author}`) && !hidden(u, author)) timeline.get(u)!.add(res.body.id);
    return res.body.id as string;
  }

  /** The posts a follow sync copies into `follower`'s timeline: the followee's live posts (the model stays far below its bound). */
  const synced = (follower: string, followee: string) => livePostsOf(followee).forEach((id) => timeline.get(follower)!.add(id));
  const purge = (reader: string, author: string) => {
    for (const id of [...timeline.get(reader)!]) if (posts.get(id)!.author === author) timeline.get(reader)!.delete(id);
  };

  const ops: [number, () => Promise<void>][] = [
    [4, async () => {
      const [a, b] = pair();
      if (suspended.has(b)) return;
      log.push(`follow ${a} → ${b}`);
      const res = api("PUT", `/v1/me/following/${b}`, as(a));
      if (suspended.has(a)) return refusedSuspended(res);
      if (blockedEither(a, b)) return void (await refusedBlocked(res), count("refused_follow"));
      await ok(res);
      if (!follows.has(`${a}>${b}`)) {
        follows.add(`${a}>${b}`);
        if (!hidden(a, b)) synced(a, b);
        // A hidden followee's sync copies nothing, so `settle` cannot tell it has run; it is given
        // time to land (test queues deliver within 50 ms), or a later unmute's step would meet it
        // still queued, and the sync, reading the mute as it is then, would copy the posts.
        else await new Promise((resolve) => setTimeout(resolve, 500));
        // The followee's `follow` notification, unless they mute the follower's notifications.
        if (mutes.get(`${b}>${a}`)?.notifications) count("suppressed_follow_notification");
        else notifications.get(b)!.set("follow", (notifications.get(b)!.get("follow") ?? 0) + 1);
      }
    }],
    [2, async () => {
      const [a, b] = pair();
      log.push(`unfollow ${a} → ${b}`);
      if (suspended.has(a)) return refusedSuspended(api("DELETE", `/v1/me/following/${b}`, as(a)));
      await ok(api("DELETE", `/v1/me/following/${b}`, as(a)));
      if (follows.delete(`${a}>${b}`)) purge(a, b);
    }],
    [5, async () => {
      const author = pick(users);
      log.push(`post by ${author}`);
      if (suspended.has(author)) return refusedSuspended(api("POST", "/v1/posts", { ...as(author), body: { text: "refused" } }));
      await createPost(author);
    }],
    [1, async () => {
      const deletable = [...posts].filter(([id, p]) => p.live && !kept.includes(id) && !suspended.has(p.author));
      if (deletable.length === 0) return;
      const [id, p] = pick(deletable);
      log.push(`delete ${id} by ${p.author}`);
      await ok(api("DELETE", `/v1/posts/${id}`, as(p.author)));
      p.live = false;
      for (const t of timeline.values()) t.delete(id);
      for (const l of [...likes]) if (l.endsWith(`>${id}`)) likes.delete(l);
    }],
    [3, async () => {
      const live = [...posts].filter(([, p]) => p.live);
      if (live.length === 0) return;
      const [user, other] = pair();
      const theirs = live.filter(([, p]) => p.author === other);
      const [id, p] = theirs.length > 0 && rnd.next() < 0.7 ? pick(theirs) : pick(live);
      if (suspended.has(p.author)) return;
      const like = !likes.has(`${user}>${id}`);
      if (suspended.has(user)) return refusedSuspended(api(like ? "PUT" : "DELETE", `/v1/posts/${id}/likes/me`, as(user)));
      log.push(`${like ? "like" : "unlike"} ${id} (by ${p.author}) by ${user}`);
      const res = api(like ? "PUT" : "DELETE", `/v1/posts/${id}/likes/me`, as(user));
      if (like && user !== p.author && blockedEither(user, p.author)) return void (await refusedBlocked(res), count("refused_like"));
      await ok(res);
      if (like) likes.add(`${user}>${id}`);
      else likes.delete(`${user}>${id}`);
    }],
    [3, async () => {
      const [to, from] = pair();
      const k = rnd.int(1, 3);
      log.push(`dm ${from} → ${to} ×${k}`);
      const res = api("POST", `/v1/dms/${to}`, { as: service(), body: { from, count: k } });
      if (suspended.has(from)) {
        const body = (await ok(res)).body;
        expect({ applied: body.applied, suppressed: body.suppressed }, context()).toEqual({ applied: false, suppressed: "suspended" });
        return void count("suppressed_dm_suspended");
      }
      if (blockedEither(to, from)) return void (await refusedBlocked(res), count("refused_dm"));
      const body = (await ok(res)).body;
      if (mutes.get(`${to}>${from}`)?.notifications) {
        expect({ applied: body.applied, suppressed: body.suppressed }, context()).toEqual({ applied: false, suppressed: "muted" });
        return void count("suppressed_dm");
      }
      expect(body.applied, context()).toBe(true);
      dms.get(to)!.set(from, (dms.get(to)!.get(from) ?? 0) + k);
    }],
    [1, async () => {
      const user = pick(users);
      const peer = pick(users.filter((u) => u !== user));
      log.push(`${user} reads the DMs of ${peer}`);
      if (suspended.has(user)) return refusedSuspended(api("POST", `/v1/me/dms/${peer}/read`, as(user)));
      await ok(api("POST", `/v1/me/dms/${peer}/read`, as(user)));
      dms.get(user)!.delete(peer);
    }],
    [3, async () => {
      const [to, from] = pair();
      const type = pick(NOTIFICATION_TYPES);
      log.push(`notification ${type} to ${to} from ${from}`);
      const body = (await ok(api("POST", `/v1/users/${to}/notifications`, { as: service(), body: { type, from } }))).body;
      const suppressed = suspended.has(from) ? "suspended" : blockedEither(to, from) ? "blocked" : mutes.get(`${to}>${from}`)?.notifications ? "muted" : undefined;
      if (suppressed) {
        expect({ applied: body.applied, suppressed: body.suppressed }, context()).toEqual({ applied: false, suppressed });
        return void count(`suppressed_notification_${suppressed}`);
      }
      expect(body.applied, context()).toBe(true);
      expect(body.suppressed, context()).toBeUndefined();
      notifications.get(to)!.set(type, (notifications.get(to)!.get(type) ?? 0) + 1);
    }],
    [3, async () => {
      const [a, b] = pair();
      log.push(`block ${a} ⊘ ${b}`);
      if (suspended.has(a)) return refusedSuspended(api("PUT", `/v1/me/blocks/${b}`, as(a)));
      await ok(api("PUT", `/v1/me/blocks/${b}`, as(a)));
      blocks.add(`${a}>${b}`);
      // Both follows end; each one's posts leave the other's timeline; the unread DMs between them go.
      follows.delete(`${a}>${b}`);
      follows.delete(`${b}>${a}`);
      purge(a, b);
      purge(b, a);
      dms.get(a)!.delete(b);
      dms.get(b)!.delete(a);
      count("blocks");
    }],
    [1, async () => {
      const held = [...blocks];
      if (held.length === 0) return;
      const [a, b] = pick(held).split(">") as [string, string];
      log.push(`unblock ${a} ⊘ ${b}`);
      if (suspended.has(a)) return refusedSuspended(api("DELETE", `/v1/me/blocks/${b}`, as(a)));
      await ok(api("DELETE", `/v1/me/blocks/${b}`, as(a)));
      blocks.delete(`${a}>${b}`); // nothing comes back by itself
    }],
    [3, async () => {
      const [a, b] = pair();
      const notificationsToo = rnd.next() < 0.5;
      log.push(`mute ${a} ◌ ${b} (notifications ${notificationsToo})`);
      if (suspended.has(a)) return refusedSuspended(api("PUT", `/v1/me/mutes/${b}`, { ...as(a), body: { notifications: notificationsToo } }));
      const body = (await ok(api("PUT", `/v1/me/mutes/${b}`, { ...as(a), body: { notifications: notificationsToo } }))).body;
      expect({ userId: body.userId, notifications: body.notifications, expiresAt: body.expiresAt }, context()).toEqual({ userId: b, notifications: notificationsToo, expiresAt: null });
      mutes.set(`${a}>${b}`, { notifications: notificationsToo });
      count("mutes");
    }],
    [1, async () => {
      const held = [...mutes.keys()];
      if (held.length === 0) return;
      const [a, b] = pick(held).split(">") as [string, string];
      log.push(`unmute ${a} ◌ ${b}`);
      if (suspended.has(a)) return refusedSuspended(api("DELETE", `/v1/me/mutes/${b}`, as(a)));
      await ok(api("DELETE", `/v1/me/mutes/${b}`, as(a)));
      mutes.delete(`${a}>${b}`); // what was delivered before the mute shows again; nothing posted during it comes back
    }],
    [3, async () => {
      // At most two suspended at once, so most steps still have readers and authors to act.
      const user = pick(users);
      if (suspended.has(user) || suspended.size >= 2) return;
      log.push(`suspend ${user}`);
      const body = (await ok(api("PUT", `/v1/admin/users/${user}/suspension`, { as: admin, body: { reason: `model ${seed}` } }))).body;
      expect({ userId: body.userId, suspended: body.suspended, reason: body.reason }, context()).toEqual({ userId: user, suspended: true, reason: `model ${seed}` });
      suspended.add(user);
      count("suspensions");
    }],
    [1, async () => {
      if (suspended.size === 0) return;
      const user = pick([...suspended]);
      log.push(`lift ${user}`);
      const body = (await ok(api("DELETE", `/v1/admin/users/${user}/suspension`, { as: admin }))).body;
      expect({ userId: body.userId, suspended: body.suspended }, context()).toEqual({ userId: user, suspended: false });
      suspended.delete(user); // everything shows again exactly: nothing was removed
      count("lifts");
    }],
  ];
  const totalWeight = ops.reduce((s, [w]) => s + w, 0);
  const nextOp = () => {
    let r = rnd.next() * totalWeight;
    for (const [w, op] of ops) if ((r -= w) < 0) return op;
    return ops[ops.length - 1]![1];
  };

  // Each user's timeline built (fan-outs land only on built timelines), and one post of theirs kept.
  for (const user of users) {
    await walkFeed(user, "chronological");
    kept.push(await createPost(user));
  }
  await settle();

  for (let step = 0; step < steps; step++) {
    await nextOp()();
    await settle();
    const readers = active();
    if (readers.length === 0) continue;
    const user = pick(readers);
    // Badges first: a walk's first page moves the `feed` badge's marker.
    await checkBadges(user);
    if (rnd.next() < 0.6) await walkFeed(user, rnd.next() < 0.7 ? "chronological" : "ranked");
    if (rnd.next() < 0.3) await checkFollowLists(pick(users));
    if (rnd.next() < 0.3) await checkProfile(pick(readers), pick(users));
    if (rnd.next() < 0.15) await checkTrending(user);
    if (suspended.size > 0 && rnd.next() < 0.3) await refusedSuspended(api("GET", "/v1/me/badges", as(pick([...suspended]))));
  }
  // At the end, every screen of every user; then every suspension lifted, and every screen again.
  const everyScreen = async () => {
    for (const user of active()) {
      await checkBadges(user);
      await walkFeed(user, "chronological");
      await walkFeed(user, "ranked");
      for (const other of users) await checkProfile(user, other);
      await checkTrending(user);
    }
    for (const user of users) await checkFollowLists(user);
  };
  await everyScreen();
  for (const user of [...suspended]) {
    await ok(api("DELETE", `/v1/admin/users/${user}/suspension`, { as: admin }));
    suspended.delete(user);
    count("lifts");
  }
  await everyScreen();
  return stats;
}
