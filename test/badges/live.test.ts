import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { BadgeHub } from "../../src/badges/live/hub";
import { FRESH_READ_MS, PUBLISHED_CLOCK_SLACK_MS } from "../../src/badges/live/protocol";
import { CLOSE_MESSAGE_TOO_BIG, CLOSE_TOKEN_EXPIRED, CLOSE_TOO_MANY_SOCKETS, hubOf, hubShardOf, hubShards, MAX_SOCKETS_PER_USER, onlineAmong, pushChangedOnline } from "../../src/badges/live";
import { publishPost } from "../../src/badges/authors";
import { deliver } from "../../src/feed/fanout";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import { BIG_POST_WINDOW_SECONDS } from "../../src/feed/messages";
import { servicesFor, withServices } from "../counters/support";
import { createBroadcast } from "../../src/badges/broadcasts";
import { refreshChannel, seeChannel } from "../../src/badges/reddots";
import { api, newId, show, tokenFor } from "../support/api";
import { createChaos } from "../support/stack";
import { countBilledCommands } from "../support/billed";
import { badgesOf, canonical, closeLive, makeBig, openLive, settled, until, type LiveDevice } from "./live-helpers";

const liveEnv = env as unknown as Env;
const service = { userId: "1", role: "service" as const };
const admin = { userId: "1", role: "admin" as const };
const open: LiveDevice[] = [];

async function device(userId: string, options?: Parameters<typeof openLive>[1]) {
  const d = await openLive(userId, options);
  open.push(d);
  await until(() => d.state, (s) => s !== null);
  return d;
}

afterEach(async () => {
  open.length = 0;
  await closeLive();
});

async function ok(method: string, path: string, as: { userId: string; role?: "user" | "service" | "admin" }, body?: unknown) {
  const res = await api(method, path, { as, body });
  expect(res.status, show(res)).toBeLessThan(300);
  return res.body;
}

/** The value of `kind` (default `authors`) a hub holds for a user (what its next push carries). */
async function known(hub: DurableObjectStub<BadgeHub>, userId: string, kind = "authors") {
  return runInDurableObject(hub, (_h: BadgeHub, state) => {
    const rows = state.storage.sql.exec<{ current: string }>(`SELECT current FROM state WHERE user_id = ?`, userId).toArray();
    return rows.length === 1 ? (JSON.parse(rows[0]!.current) as Record<string, unknown>)[kind] : rows.length;
  });
}

/**
 * `fan` online on one device, following `author` (a big account with `big`), on a hub whose
 * fresh-read window is off while `work` runs, so only the publish-time checks keep a late page from
 * counting a post twice. `publish` moves the author's published count as a post does, with no
 * fan-out: the test hands the hub its page itself.
 */
async function withLateFollower(
  options: { big?: boolean },
  work: (f: { fan: string; author: string; d: LiveDevice; hub: DurableObjectStub<BadgeHub>; publish: () => Promise<void> }) => Promise<void>,
) {
  const [fan, author] = [newId(), newId()];
  await ok("PUT", `/v1/me/following/${author}`, { userId: fan });
  if (options.big) {
    await ok("GET", "/v1/me/feed", { userId: fan }); // a timeline: the big account is pulled into it
    await makeBig([author]);
  }
  const d = await device(fan);
  const hub = hubOf(liveEnv, fan);
  const publish = async () => {
    const { services, close } = servicesFor();
    await publishPost(services, author).finally(close);
  };
  await runInDurableObject(hub, (h: BadgeHub) => void (h.freshReadMs = 0));
  try {
    await work({ fan, author, d, hub, publish });
  } finally {
    await runInDurableObject(hub, (h: BadgeHub) => void (h.freshReadMs = FRESH_READ_MS));
  }
}

/** The `changed` pushes a device got after its snapshot. */
const pushes = (d: LiveDevice) => d.messages.filter((m) => m?.type === "badges" && m.changed);

describe("GET /v1/me/live: the snapshot", () => {
  it("is exactly the body of GET /v1/me/badges?cap=, feed included", async () => {
    const me = newId();
    await ok("POST", `/v1/users/${me}/notifications`, service, { type: "reply", count: 7 });
    const d = await device(me, { query: "cap=5" });
    expect(d.messages[0].type).toBe("badges");
    expect(canonical(d.messages[0].badges)).toBe(canonical(await badgesOf(me, 5)));
    expect(d.messages[0].badges.notifications.total).toEqual({ count: 5, capped: true });
    expect(d.messages[0].badges.feed).toEqual({ count: 0, capped: false });
  });

  it("takes the token as a subprotocol next to `live`, answered `live`", async () => {
    const me = newId();
    const d = await device(me, { protocols: ["live", await tokenFor(me)] });
    expect(d.state!.cap).toBe(99);
  });

  it("answers `badges` with a fresh snapshot and anything else with an error, changing nothing", async () => {
    const me = newId();
    const d = await device(me);
    d.ws.send("hello");
    const error = await until(() => d.messages.find((m) => m?.type === "error"), (m) => m !== undefined);
    expect(error.error.code).toBe("bad_request");
    d.ws.send("badges");
    await until(() => d.messages.filter((m) => m?.badges).length, (n) => n === 2);
    expect(d.messages.filter((m) => m?.badges)).toHaveLength(2);
    expect(d.closed).toBeNull();
  });
});

describe("GET /v1/me/live: every kind is pushed", () => {
  it("notifications, as only the kinds that changed", async () => {
    const me = newId();
    const d = await device(me);
    await ok("POST", `/v1/users/${me}/notifications`, service, { type: "like", count: 2 });
    const push = await until(() => pushes(d)[0], (m) => m !== undefined);
    expect(push).toEqual({ type: "badges", changed: { notifications: { byType: { like: { count: 2, capped: false } }, total: { count: 2, capped: false } } } });
  });

  it("direct messages, inbox messages and their reads", async () => {
    const me = newId();
    const d = await device(me);
    await ok("POST", `/v1/dms/${me}`, service, { from: newId(), count: 3 });
    await ok("POST", "/v1/messages", service, { to: [me], type: "system", title: "t", content: "c" });
    const { got, expected } = await settled(d, me);
    expect(got).toEqual(expected);
    expect(got!.dms.count).toBe(3);
    expect(got!.inbox.total.count).toBe(1);
    await ok("POST", "/v1/me/messages/read", { userId: me });
    const after = await settled(d, me);
    expect(after.got!.inbox.total.count).toBe(0);
  });

  it("streams: a new item in a stream the user belongs to", async () => {
    const me = newId();
    const stream = newId();
    await ok("PUT", `/v1/streams/chat/${stream}/members/${me}`, service);
    const d = await device(me);
    await ok("POST", `/v1/streams/chat/${stream}/items`, service, { at: Date.now() + 1000 });
    const push = await until(() => pushes(d).find((m) => m.changed.streams), (m) => m !== undefined);
    expect(push.changed.streams.total).toEqual({ count: 1, capped: false });
    expect(push.changed.streams.byStream).toEqual({ [`chat/${stream}`]: { count: 1, capped: false } });
  });

  it("broadcasts and red dots: one call per hub shard moves every online user's value", async () => {
    const [a, b] = [newId(), newId()];
    const [da, db] = [await device(a), await device(b)];
    await ok("POST", "/v1/broadcasts", admin, { title: "Maintenance", body: "tonight" });
    const channel = `ch-${newId()}`;
    await ok("PUT", `/v1/reddots/${channel}`, admin);
    for (const [d, u] of [[da, a], [db, b]] as const) {
      const { got, expected } = await settled(d, u);
      expect(got).toEqual(expected);
      expect(got!.reddots[channel]).toBe(true);
      expect(got!.broadcasts.count).toBeGreaterThanOrEqual(1);
    }
  });

  it("a broadcast moves a settled user's count in place (nothing read for them)", async () => {
    const me = newId();
    const d = await device(me);
    await runInDurableObject(hubOf(liveEnv, me), (hub: BadgeHub) => {
      hub.freshReadMs = 0;
    });
    try {
      const before = d.state!.broadcasts.count;
      await ok("POST", "/v1/broadcasts", admin, { title: "One more", body: "b" });
      await until(() => d.state!.broadcasts.count, (n) => n === before + 1);
      const { got, expected } = await settled(d, me);
      expect(got!.broadcasts).toEqual(expected.broadcasts);
    } finally {
      await runInDurableObject(hubOf(liveEnv, me), (hub: BadgeHub) => {
        hub.freshReadMs = 10_000;
      });
    }
  });

  it("followed authors and feed: a post reaches online followers through the fan-out pages", async () => {
    const [author, fan] = [newId(), newId()];
    await ok("PUT", `/v1/me/following/${author}`, { userId: fan });
    await ok("GET", "/v1/me/feed", { userId: fan }); // builds the fan's timeline: pushes reach it
    const d = await device(fan);
    await ok("POST", "/v1/posts", { userId: author }, { text: "hello" });
    // Settled once the fan-out page has reached the socket (a re-read before it agrees with a poll too).
    await until(() => d.state!.feed.count, (n) => n === 1);
    const { got, expected } = await settled(d, fan);
    expect(got).toEqual(expected);
    expect(got!.authors).toEqual({ count: 1, capped: false });
    expect(got!.feed).toEqual({ count: 1, capped: false });
    // Reading the first page of the feed clears the pill; catching up on the author clears theirs.
    await ok("GET", "/v1/me/feed", { userId: fan });
    await ok("POST", `/v1/me/authors/${author}/seen`, { userId: fan });
    const after = await settled(d, fan);
    expect(after.got!.feed).toEqual({ count: 0, capped: false });
    expect(after.got!.authors).toEqual({ count: 0, capped: false });
  });

  it("a fan-out page reaching several online followers of one hub reads their feed badges in one Redis request", async () => {
    // Followers whose devices meet in one hub, so the page reaches it as one `posted` call.
    const first = newId();
    const shard = hubShardOf(first, hubShards(liveEnv));
    const fans = [first];
    while (fans.length < 4) {
      const id = newId();
      if (hubShardOf(id, hubShards(liveEnv)) === shard) fans.push(id);
    }
    const author = newId();
    const devices: LiveDevice[] = [];
    for (const fan of fans) {
      await ok("PUT", `/v1/me/following/${author}`, { userId: fan });
      await ok("GET", "/v1/me/feed", { userId: fan }); // builds the fan's timeline: pushes reach it
      devices.push(await device(fan));
    }
    const hub = hubOf(liveEnv, first);
    const chaos = await createChaos();
    try {
      // The hub's reads go through a private bridge that counts them; no read is "fresh", so the
      // `authors` bump moves in place and the only reads are the page's `feed` reads.
      await runInDurableObject(hub, (h: BadgeHub) => {
        h.servicesEnv = chaos.bindings;
        h.freshReadMs = 0;
      });
      const settleAll = async (posts: number) => {
        for (const [i, d] of devices.entries()) {
          await until(() => d.state!.feed.count, (n) => n === posts);
          const { got, expected } = await settled(d, fans[i]!);
          expect(got).toEqual(expected);
        }
      };
      // The first post also loads the script into Redis (a miss costs one more request).
      await ok("POST", "/v1/posts", { userId: author }, { text: "first" });
      await settleAll(1);
      // Quiet first: what the set-up sent on (the follows' queued syncs, the first reads' pushes)
      // has reached the hub before the second post is counted.
      let before = await chaos.stats();
      for (let quiet = 0; quiet < 3; ) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        const now = await chaos.stats();
        quiet = now.requests === before.requests ? quiet + 1 : 0;
        before = now;
      }
      await ok("POST", "/v1/posts", { userId: author }, { text: "second" });
      await settleAll(2);
      const after = await chaos.stats();
      expect(after.requests - before.requests).toBe(1);
    } finally {
      await runInDurableObject(hub, (h: BadgeHub) => {
        h.servicesEnv = {};
        h.freshReadMs = 10_000;
      });
      await chaos.close();
    }
  });

  it("a fan-out page that comes after a read already counting its post does not count it again", async () => {
    // The order a late page meets: the post is published (its author's published count moves), a
    // read of the follower (here a targeted change; in a run, a follow's sync or a DM) ends after
    // it and counts the post, then the page reaches the hub, long after any fresh-read window.
    await withLateFollower({}, async ({ fan, d, hub, publish }) => {
      const publishedAt = Date.now();
      await publish();
      await runInDurableObject(hub, (h: BadgeHub) => h.changed([fan]));
      await until(() => d.state!.authors.count, (n) => n === 1);
      await runInDurableObject(hub, (h: BadgeHub) => h.posted([{ userId: fan, feed: false }], publishedAt));
      // What the hub knows is what it pushes (a push may wait up to a second): exact, not 2.
      expect(await known(hub, fan)).toEqual({ count: 1, capped: false });
      const { got, expected } = await settled(d, fan);
      expect(expected.authors).toEqual({ count: 1, capped: false });
      expect(got).toEqual(expected);
      // The page of a post published after that read counts it.
      await publish();
      await runInDurableObject(hub, (h: BadgeHub) => h.posted([{ userId: fan, feed: false }], Date.now()));
      // In place, or read (a read that ended within the clock slack of it): 2 either way.
      await until(() => known(hub, fan), (a) => canonical(a) === canonical({ count: 2, capped: false }));
      await until(() => d.state!.authors.count, (n) => n === 2);
      expect((await settled(d, fan)).got).toEqual(await badgesOf(fan));
    });
  });

  it("a fan-out page delivered again (a queue retry) counts its post once on the socket", async () => {
    await withLateFollower({}, async ({ fan, d, hub, publish }) => {
      await new Promise((r) => setTimeout(r, 100 + PUBLISHED_CLOCK_SLACK_MS)); // the snapshot's read is well before the post
      const publishedAt = Date.now();
      await publish();
      await runInDurableObject(hub, (h: BadgeHub) => h.posted([{ userId: fan, feed: false }], publishedAt));
      await until(() => known(hub, fan), (a) => canonical(a) === canonical({ count: 1, capped: false }));
      // Delivered again: a move in place would show at once (it reads nothing).
      for (let delivery = 2; delivery <= 3; delivery++) {
        await runInDurableObject(hub, (h: BadgeHub) => h.posted([{ userId: fan, feed: false }], publishedAt));
        expect(await known(hub, fan), `delivery ${delivery}`).toEqual({ count: 1, capped: false });
      }
      const { got, expected } = await settled(d, fan);
      expect(expected.authors).toEqual({ count: 1, capped: false });
      expect(got).toEqual(expected);
    });
  });

  it("a fan-out page whose feed read fails for a follower has them read in full: the post is counted and feed read all the same", async () => {
    await withLateFollower({}, async ({ fan, d, hub, publish }) => {
      const chaos = await createChaos();
      try {
        await runInDurableObject(hub, (h: BadgeHub) => void (h.servicesEnv = chaos.bindings));
        await new Promise((r) => setTimeout(r, 100 + PUBLISHED_CLOCK_SLACK_MS)); // the snapshot's read is well before the post
        const publishedAt = Date.now();
        await publish();
        // The page's one `feed` request fails (and its one retry): `authors`, which would have moved
        // with its answer, must still come, from the read the follower gets instead.
        await chaos.loseAnswers(2, "503");
        await runInDurableObject(hub, (h: BadgeHub) => h.posted([{ userId: fan, feed: true }], publishedAt));
        await until(() => known(hub, fan), (a) => canonical(a) === canonical({ count: 1, capped: false }));
        const { got, expected } = await settled(d, fan);
        expect(expected.authors).toEqual({ count: 1, capped: false });
        expect(got).toEqual(expected);
      } finally {
        await runInDurableObject(hub, (h: BadgeHub) => void (h.servicesEnv = {}));
        await chaos.close();
      }
    });
  });

  it("an object whose state table predates counted_to gets the column when it starts", async () => {
    const stub = liveEnv.BADGE_HUBS.get(liveEnv.BADGE_HUBS.idFromName(`schema-${newId()}`));
    const columns = await runInDurableObject(stub, (_h: BadgeHub, state) => {
      const sql = state.storage.sql;
      sql.exec(`DROP TABLE state`);
      sql.exec(`CREATE TABLE state (user_id TEXT NOT NULL, cap INTEGER NOT NULL, current TEXT NOT NULL, read_at INTEGER NOT NULL, PRIMARY KEY (user_id, cap)) WITHOUT ROWID`);
      sql.exec(`INSERT INTO state (user_id, cap, current, read_at) VALUES ('7', 99, '{}', 1)`);
      new BadgeHub(state, liveEnv); // as the object starts after a deploy
      new BadgeHub(state, liveEnv); // and again: nothing to add
      return sql.exec<{ user_id: string; counted_to: number }>(`SELECT user_id, counted_to FROM state`).toArray();
    });
    expect(columns).toEqual([{ user_id: "7", counted_to: 0 }]);
  });

  // A stamp reaches the hubs after its write; a read of the user that ended in between (a DM, a
  // follow's sync) may hold the write already. Its write time decides, whatever the fresh-read
  // window (0 here: only the write time keeps the stamp from counting twice).
  it.each([0, FRESH_READ_MS])("a broadcast stamp written before a read of the user does not count again on the socket; one written after it does (fresh-read window %i ms)", async (window) => {
    const me = newId();
    const d = await device(me);
    const hub = hubOf(liveEnv, me);
    const broadcast = () => withServices({}, (services) => createBroadcast(services, "late", "b"));
    await runInDurableObject(hub, (h: BadgeHub) => void (h.freshReadMs = window));
    try {
      const writtenAt = Date.now();
      await broadcast();
      await runInDurableObject(hub, (h: BadgeHub) => h.changed([me]));
      await until(() => d.state!.broadcasts.count, (n) => n === 1);
      await runInDurableObject(hub, (h: BadgeHub) => h.stamp({ kind: "broadcasts", writtenAt }));
      // What the hub knows is what it pushes: exact, not 2.
      expect(await known(hub, me, "broadcasts")).toEqual({ count: 1, capped: false });
      // A broadcast written after that read counts (in place, or read inside the window).
      await new Promise((r) => setTimeout(r, 100 + PUBLISHED_CLOCK_SLACK_MS));
      const later = Date.now();
      await broadcast();
      await runInDurableObject(hub, (h: BadgeHub) => h.stamp({ kind: "broadcasts", writtenAt: later }));
      await until(() => known(hub, me, "broadcasts"), (b) => canonical(b) === canonical({ count: 2, capped: false }));
      await until(() => d.state!.broadcasts.count, (n) => n === 2);
      expect((await settled(d, me)).got).toEqual(await badgesOf(me));
    } finally {
      await runInDurableObject(hub, (h: BadgeHub) => void (h.freshReadMs = FRESH_READ_MS));
    }
  });

  it.each([0, FRESH_READ_MS])("a red-dot stamp written before a read that saw the channel leaves the dot off; one written after it turns it on (fresh-read window %i ms)", async (window) => {
    const me = newId();
    const channel = `late-${newId()}`;
    const d = await device(me);
    const hub = hubOf(liveEnv, me);
    const refresh = () => withServices({}, (services) => refreshChannel(services, channel));
    await runInDurableObject(hub, (h: BadgeHub) => void (h.freshReadMs = window));
    try {
      const writtenAt = Date.now();
      await refresh();
      await withServices({}, (services) => seeChannel(services.redisFor(me), me, channel));
      await runInDurableObject(hub, (h: BadgeHub) => h.changed([me]));
      await until(() => d.state!.reddots[channel], (dot) => dot === false);
      await runInDurableObject(hub, (h: BadgeHub) => h.stamp({ kind: "reddots", channel, writtenAt }));
      // The user has seen it since: the late stamp does not turn the dot back on.
      expect(((await known(hub, me, "reddots")) as Record<string, boolean>)[channel]).toBe(false);
      await new Promise((r) => setTimeout(r, 100 + PUBLISHED_CLOCK_SLACK_MS));
      const later = Date.now();
      await refresh();
      await runInDurableObject(hub, (h: BadgeHub) => h.stamp({ kind: "reddots", channel, writtenAt: later }));
      await until(() => known(hub, me, "reddots"), (dots) => (dots as Record<string, boolean>)[channel] === true);
      await until(() => d.state!.reddots[channel], (dot) => dot === true);
      expect((await settled(d, me)).got).toEqual(await badgesOf(me));
    } finally {
      await runInDurableObject(hub, (h: BadgeHub) => void (h.freshReadMs = FRESH_READ_MS));
    }
  });

  it("a read on one device clears the badge on the others", async () => {
    const me = newId();
    const [phone, laptop] = [await device(me), await device(me)];
    await ok("POST", `/v1/users/${me}/notifications`, service, { type: "mention", count: 4 });
    await until(() => laptop.state!.notifications.total.count, (n) => n === 4);
    await ok("POST", "/v1/me/notifications/read", { userId: me });
    await until(() => laptop.state!.notifications.total.count, (n) => n === 0);
    expect(laptop.state!.notifications).toEqual({ byType: {}, total: { count: 0, capped: false } });
    expect(phone.state!.notifications).toEqual(laptop.state!.notifications);
  });
});

describe("BadgeHub.online: who has an open socket, nothing read", () => {
  /** Counts the hub's badge reads (`refresh`) from now on; returns the count so far. */
  async function countReads(hub: DurableObjectStub<BadgeHub>) {
    await runInDurableObject(hub, (h: BadgeHub) => {
      const hub = h as unknown as { refresh: (...args: unknown[]) => Promise<void>; reads?: number };
      if (hub.reads !== undefined) return;
      const refresh = hub.refresh.bind(h);
      hub.reads = 0;
      hub.refresh = (...args) => {
        hub.reads! += 1;
        return refresh(...args);
      };
    });
    return () => runInDurableObject(hub, (h: BadgeHub) => (h as unknown as { reads: number }).reads);
  }

  it("answers the online users among those asked; unlike pushChangedOnline it reads and pushes nothing", async () => {
    const [on, off] = [newId(), newId()];
    const d = await device(on);
    const hub = hubOf(liveEnv, on);
    const reads = await countReads(hub);
    const messages = d.messages.length;
    expect([...(await onlineAmong(liveEnv, [on, off, on]))]).toEqual([on]);
    expect(await runInDurableObject(hub, (h: BadgeHub) => h.online([off, on]))).toEqual([on]);
    expect(await reads(), "badge reads for a read-free question").toBe(0);
    expect(d.messages.length).toBe(messages);
    // The same answer through pushChangedOnline costs the online user a read.
    expect([...(await pushChangedOnline(liveEnv, [on, off]))]).toEqual([on]);
    expect(await reads()).toBe(1);
  });

  it("answers nobody for users without a socket, and for an empty question", async () => {
    expect([...(await onlineAmong(liveEnv, [newId(), newId()]))]).toEqual([]);
    expect([...(await onlineAmong(liveEnv, []))]).toEqual([]);
  });
});

describe("the feed badge", () => {
  it("counts a post once whatever the redeliveries, and only a first-page read resets it", async () => {
    const [author, fan] = [newId(), newId()];
    await ok("PUT", `/v1/me/following/${author}`, { userId: fan });
    await ok("GET", "/v1/me/feed", { userId: fan });
    // Let the follow's queued sync run first: a post it copies in is not one that reached the
    // timeline through the fan-out, and is not counted.
    await new Promise((r) => setTimeout(r, 1_000));
    const first = (await ok("POST", "/v1/posts", { userId: author }, { text: "one" })) as { id: string };
    await ok("POST", "/v1/posts", { userId: author }, { text: "two" });
    const feedBadge = async () => (await badgesOf(fan)).feed;
    await until(feedBadge, (f) => f.count === 2);
    const { services, close } = servicesFor();
    try {
      const add = { kind: "fanout", op: "add", postId: first.id, authorId: author, after: null } as const;
      await deliver(services, add);
      await deliver(services, add);
    } finally {
      await close();
    }
    expect(await feedBadge()).toEqual({ count: 2, capped: false });
    const page = (await ok("GET", "/v1/me/feed?limit=1", { userId: fan })) as { nextCursor: string };
    expect(await feedBadge()).toEqual({ count: 0, capped: false });
    await ok("POST", "/v1/posts", { userId: author }, { text: "three" });
    await until(feedBadge, (f) => f.count === 1);
    await ok("GET", `/v1/me/feed?limit=1&cursor=${page.nextCursor}`, { userId: fan });
    expect(await feedBadge(), "a later page is not a read of what is new").toEqual({ count: 1, capped: false });
  });

  it("a first-page read that builds the timeline leaves nothing new: what the build copied in is seen", async () => {
    const [author, fan] = [newId(), newId()];
    for (const text of ["a", "b", "c"]) await ok("POST", "/v1/posts", { userId: author }, { text });
    await ok("PUT", `/v1/me/following/${author}`, { userId: fan });
    const page = (await ok("GET", "/v1/me/feed", { userId: fan })) as { items: unknown[] };
    expect(page.items).toHaveLength(3);
    expect((await badgesOf(fan)).feed).toEqual({ count: 0, capped: false });
    await ok("POST", "/v1/posts", { userId: author }, { text: "d" });
    await until(async () => (await badgesOf(fan)).feed.count, (n) => n === 1);
  });

  it("a late delivery of a post older than the last first-page read counts neither in a poll nor on the socket", async () => {
    const [author, fan] = [newId(), newId()];
    await ok("PUT", `/v1/me/following/${author}`, { userId: fan });
    await ok("GET", "/v1/me/feed", { userId: fan });
    await new Promise((r) => setTimeout(r, 1_000)); // the follow's queued sync first
    const older = (await ok("POST", "/v1/posts", { userId: author }, { text: "older" })) as { id: string };
    await ok("POST", "/v1/posts", { userId: author }, { text: "newer" });
    await until(async () => (await badgesOf(fan)).feed.count, (n) => n === 2);
    await ok("GET", "/v1/me/feed", { userId: fan }); // read up to the newer post
    const d = await device(fan);
    // Counts move in place from now on: the hub trusts no recent read to hold the change.
    await runInDurableObject(hubOf(liveEnv, fan), (hub: BadgeHub) => {
      hub.freshReadMs = 0;
    });
    const { services, close } = servicesFor();
    try {
      // The older post had not reached this timeline yet (a slow page of its fan-out): it does now.
      await services.redis.zrem(feedKeys.timeline(fan), timelineMember(older.id, author));
      const authorsBefore = d.state!.authors.count;
      const report = await deliver(services, { kind: "fanout", op: "add", postId: older.id, authorId: author, after: null });
      expect(report).toMatchObject({ followers: 1, touched: 1 });
      // The hub moved `authors` for the page; `feed` it read, and the post is below the marker.
      await until(() => d.state!.authors.count, (n) => n === authorsBefore + 1);
      expect(d.state!.feed).toEqual({ count: 0, capped: false });
      expect((await badgesOf(fan)).feed).toEqual({ count: 0, capped: false });
    } finally {
      await close();
      await runInDurableObject(hubOf(liveEnv, fan), (hub: BadgeHub) => {
        hub.freshReadMs = 10_000;
      });
    }
  });
});

describe("a big account's post", () => {
  /** Worker calls received by every hub shard since they woke. */
  const hubCalls = async () => {
    let calls = 0;
    for (let shard = 0; shard < hubShards(liveEnv); shard++) {
      calls += await runInDurableObject(liveEnv.BADGE_HUBS.get(liveEnv.BADGE_HUBS.idFromName(`hub-${shard}`)), async (h: BadgeHub) => (await h.stats()).calls);
    }
    return calls;
  };

  it("an announcement that comes after a read already counting its post does not count it again", async () => {
    await withLateFollower({ big: true }, async ({ fan, author, d, hub, publish }) => {
      // The post is published (here only its count, so the `feed` badge has nothing new either), a
      // read of the fan ends after it, then the announcement comes out of its queue window.
      const publishedAt = Date.now();
      await publish();
      await runInDurableObject(hub, (h: BadgeHub) => h.changed([fan]));
      await until(() => d.state!.authors.count, (n) => n === 1);
      await runInDurableObject(hub, (h: BadgeHub) => h.bigPosted({ op: "add", authorId: author, postId: newId(), publishedAt }));
      expect(await known(hub, fan)).toEqual({ count: 1, capped: false });
      const { got, expected } = await settled(d, fan);
      expect(expected).toMatchObject({ authors: { count: 1, capped: false }, feed: { count: 0, capped: false } });
      expect(got).toEqual(expected);
    });
  });

  it("moves authors and feed in place on its followers' sockets: one call per hub shard, nothing read; a delete has them read", async () => {
    const [star, fan] = [newId(), newId()];
    await ok("PUT", `/v1/me/following/${star}`, { userId: fan });
    await ok("GET", "/v1/me/feed", { userId: fan }); // a timeline: the big account is pulled into it
    await makeBig([star]);
    const d = await device(fan);
    expect(d.state!.feed).toEqual({ count: 0, capped: false });
    const hub = hubOf(liveEnv, fan);
    const chaos = await createChaos();
    try {
      // The fan's hub reads through a private bridge that counts requests; no read is "fresh",
      // so a count moves in place.
      await runInDurableObject(hub, (h: BadgeHub) => {
        h.servicesEnv = chaos.bindings;
        h.freshReadMs = 0;
      });
      await settled(d, fan);
      await new Promise((r) => setTimeout(r, 300)); // pushes of the setup (follow, transition) are in
      const [callsBefore, readsBefore] = [await hubCalls(), (await chaos.stats()).requests];
      const { id } = (await ok("POST", "/v1/posts", { userId: star }, { text: "big" })) as { id: string };
      await until(() => d.state!.feed.count, (n) => n === 1);
      expect(d.state!.authors).toEqual({ count: 1, capped: false });
      expect((await chaos.stats()).requests - readsBefore, "the hub read nothing").toBe(0);
      // One call per shard, plus the author's own badges (their own post, as every post pushes).
      expect((await hubCalls()) - callsBefore, "one call per shard").toBe(hubShards(liveEnv) + 1);
      const { got, expected } = await settled(d, fan);
      expect(got).toEqual(expected);

      // A delete: the hubs read the followers (a post counted or not, seen or not).
      await ok("DELETE", `/v1/posts/${id}`, { userId: star });
      await until(() => d.state!.feed.count, (n) => n === 0);
      expect(d.state!.authors).toEqual({ count: 0, capped: false });
      expect(canonical(d.state)).toBe(canonical(await badgesOf(fan)));

      // The post's announcement had it waited in the queue past the delete: not announced, no hub
      // called, and its check bills EVALSHA + GET.
      await new Promise((r) => setTimeout(r, 300));
      const calls = await hubCalls();
      const { services, close } = servicesFor();
      try {
        const { redis: counted, billed } = countBilledCommands(services.redis);
        const report = await deliver({ ...services, redis: counted as typeof services.redis }, { kind: "big-post", op: "add", postId: id, authorId: star });
        expect(report).toEqual({ kind: "big-post", op: "add", announced: false });
        expect(billed).toEqual([2]);
      } finally {
        await close();
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(await hubCalls()).toBe(calls);
      expect(d.state!.feed).toEqual({ count: 0, capped: false });

      // A post deleted within its window (BIG_POST_WINDOW_SECONDS) is never announced: the fans'
      // sockets never show it, and the hubs get the delete's calls alone (one per shard, plus the
      // author's own badges after each of the two writes).
      const pushesBefore = d.messages.length;
      const callsBeforeQuick = await hubCalls();
      const quick = (await ok("POST", "/v1/posts", { userId: star }, { text: "oops" })) as { id: string };
      // Long after an announcement sent without the window would have run, well within the window.
      await new Promise((r) => setTimeout(r, 300));
      await ok("DELETE", `/v1/posts/${quick.id}`, { userId: star });
      await new Promise((r) => setTimeout(r, BIG_POST_WINDOW_SECONDS * 1_000 + 700));
      const shown = d.messages.slice(pushesBefore).filter((m) => m.type === "badges" && ((m.changed ?? m.badges)?.authors?.count ?? 0) > 0);
      expect(shown, "the fan's socket never showed the deleted post").toEqual([]);
      expect((await hubCalls()) - callsBeforeQuick, "the delete's calls alone").toBe(hubShards(liveEnv) + 2);
      expect(d.state!.authors).toEqual({ count: 0, capped: false });
    } finally {
      await runInDurableObject(hub, (h: BadgeHub) => {
        h.servicesEnv = {};
        h.freshReadMs = 10_000;
      });
      await chaos.close();
    }
  });

  it("counts in the feed badge of a poll, up to the cap, and a first-page read resets it", async () => {
    const [star, other, fan] = [newId(), newId(), newId()];
    for (const a of [star, other]) await ok("PUT", `/v1/me/following/${a}`, { userId: fan });
    await ok("GET", "/v1/me/feed", { userId: fan });
    await makeBig([star, other]);
    for (let i = 0; i < 3; i++) await ok("POST", "/v1/posts", { userId: star }, { text: `s${i}` });
    await ok("POST", "/v1/posts", { userId: other }, { text: "o" });
    expect((await badgesOf(fan)).feed).toEqual({ count: 4, capped: false });
    expect((await badgesOf(fan, 3)).feed).toEqual({ count: 3, capped: true });
    await ok("GET", "/v1/me/feed?limit=1", { userId: fan });
    expect((await badgesOf(fan)).feed, "the merged first page was read").toEqual({ count: 0, capped: false });
    await ok("POST", "/v1/posts", { userId: other }, { text: "o2" });
    expect((await badgesOf(fan)).feed).toEqual({ count: 1, capped: false });
    // Unfollowing the account drops its posts from the count at once.
    await ok("DELETE", `/v1/me/following/${other}`, { userId: fan });
    expect((await badgesOf(fan)).feed).toEqual({ count: 0, capped: false });
  });
});

describe("GET /v1/me/live: coalescing", () => {
  it("sends the first change at once, then at most one message a second with the latest values", async () => {
    const me = newId();
    const d = await device(me);
    await new Promise((r) => setTimeout(r, 1100)); // a quiet second after the snapshot
    const started = Date.now();
    for (let i = 0; i < 5; i++) await ok("POST", `/v1/users/${me}/notifications`, service, { type: "like", count: 1 });
    const burstMs = Date.now() - started;
    await until(() => d.state!.notifications.total.count, (n) => n === 5);
    const sent = pushes(d);
    // Five writes, at most one message per started second of the burst after the first one.
    expect(sent.length).toBeLessThanOrEqual(1 + Math.ceil(burstMs / 1000));
    expect(sent[sent.length - 1].changed.notifications.total).toEqual({ count: 5, capped: false });
  });
});

describe("GET /v1/me/live: lifecycle and limits", () => {
  it("refuses a missing, bad or expired token with a 401 JSON error before any upgrade", async () => {
    const me = newId();
    for (const query of ["", "token=nope", `token=${await tokenFor(me, "user", -10)}`]) {
      const res = await api("GET", `/v1/me/live?${query}`, { headers: { Upgrade: "websocket" } });
      expect(res.status, show(res)).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
    }
  });

  it("refuses a bad cap with a 400 naming the field", async () => {
    const me = newId();
    const res = await api("GET", `/v1/me/live?token=${await tokenFor(me)}&cap=0`, { headers: { Upgrade: "websocket" } });
    expect(res.status, show(res)).toBe(400);
    expect(JSON.stringify(res.body)).toContain("cap");
  });

  it(`closes the ${MAX_SOCKETS_PER_USER + 1}th socket of a user with a clear code and reason`, async () => {
    const me = newId();
    for (let i = 0; i < MAX_SOCKETS_PER_USER; i++) await device(me);
    const extra = await openLive(me);
    open.push(extra);
    await until(() => extra.closed, (c) => c !== null);
    expect(extra.closed).toEqual({ code: CLOSE_TOO_MANY_SOCKETS, reason: `at most ${MAX_SOCKETS_PER_USER} sockets per user` });
    expect(open.slice(0, MAX_SOCKETS_PER_USER).every((d) => d.closed === null)).toBe(true);
  });

  it("closes the socket with 4001 when the token expires; a fresh token gets a new snapshot", async () => {
    const me = newId();
    const d = await device(me, { token: await tokenFor(me, "user", 2) });
    await until(() => d.closed, (c) => c !== null, 10_000);
    expect(d.closed).toEqual({ code: CLOSE_TOKEN_EXPIRED, reason: "token expired" });
    const again = await device(me);
    expect(again.messages[0].badges).toBeDefined();
  });

  it("sets its alarm for the token's exp and closes the socket within 2 s of it", async () => {
    const me = newId();
    const exp = Math.floor(Date.now() / 1000) + 3;
    const d = await device(me, { token: await tokenFor(me, "user", 600, { exp }) });
    const closedAt = new Promise<number>((resolve) => d.ws.addEventListener("close", () => resolve(Date.now())));
    expect(await runInDurableObject(hubOf(liveEnv, me), (_hub: BadgeHub, state) => state.storage.getAlarm())).toBe(exp * 1000);
    const at = await closedAt;
    expect(d.closed).toEqual({ code: CLOSE_TOKEN_EXPIRED, reason: "token expired" });
    expect(at - exp * 1000).toBeGreaterThanOrEqual(0);
    expect(at - exp * 1000).toBeLessThan(2_000);
  });

  it("still closes at the token's exp when an earlier alarm (a push interval's) runs first", async () => {
    const me = newId();
    const exp = Math.floor(Date.now() / 1000) + 3;
    const d = await device(me, { token: await tokenFor(me, "user", 600, { exp }) });
    const closedAt = new Promise<number>((resolve) => d.ws.addEventListener("close", () => resolve(Date.now())));
    // An alarm due before exp, as a push waiting for its interval sets: it runs, finds nothing
    // due, and must leave the alarm set for exp (the running alarm is not a later one).
    const early = Date.now() + 300;
    await runInDurableObject(hubOf(liveEnv, me), (_hub: BadgeHub, state) => state.storage.setAlarm(early));
    await until(async () => runInDurableObject(hubOf(liveEnv, me), (_hub: BadgeHub, state) => state.storage.getAlarm()), (at) => at !== early, 5_000);
    expect(await runInDurableObject(hubOf(liveEnv, me), (_hub: BadgeHub, state) => state.storage.getAlarm())).toBe(exp * 1000);
    const at = await closedAt;
    expect(d.closed).toEqual({ code: CLOSE_TOKEN_EXPIRED, reason: "token expired" });
    expect(at - exp * 1000).toBeLessThan(2_000);
  });

  it("refuses client messages over 1 KB", async () => {
    const me = newId();
    const d = await device(me);
    d.ws.send("x".repeat(1025));
    await until(() => d.closed, (c) => c !== null);
    expect(d.closed!.code).toBe(CLOSE_MESSAGE_TOO_BIG);
  });

  it("answers ping with pong without waking the object", async () => {
    const me = newId();
    const d = await device(me);
    const hub = hubOf(liveEnv, me);
    const before = (await hub.stats()).handled;
    d.ws.send("ping");
    await until(() => d.messages.includes("pong"), (got) => got);
    expect(d.messages).toContain("pong");
    expect((await hub.stats()).handled).toBe(before);
  });

  it("an object that wakes without memory still knows each socket's user and cap", async () => {
    const me = newId();
    const d = await device(me, { query: "cap=3" });
    await runInDurableObject(hubOf(liveEnv, me), async (_hub: BadgeHub, state) => {
      const attachment = state.getWebSockets(me)[0]!.deserializeAttachment();
      expect(attachment).toMatchObject({ userId: me, cap: 3 });
      // A new instance over the same storage is what a woken object is: it pushes from what it finds.
      const woken = new BadgeHub(state, liveEnv);
      await ok("POST", `/v1/users/${me}/notifications`, service, { type: "reply", count: 9 });
      await woken.changed([me]);
    });
    await until(() => d.state!.notifications.total.count, (n) => n === 3);
    expect(d.state!.notifications.total).toEqual({ count: 3, capped: true });
  });

  it("with Redis down the snapshot says degraded; once it is back a fresh one comes and pushes resume", async () => {
    const me = newId();
    const chaos = await createChaos();
    const hub = hubOf(liveEnv, me);
    try {
      await runInDurableObject(hub, (h: BadgeHub) => {
        h.servicesEnv = chaos.bindings;
      });
      await ok("POST", `/v1/users/${me}/notifications`, service, { type: "reply", count: 2 });
      await chaos.setRedisDown(true);
      const d = await device(me);
      expect(d.state!.degraded).toBe(true);
      const degradedWhileDown = await runInDurableObject(hub, async (h: BadgeHub) => (await h.stats()).degraded);
      expect(degradedWhileDown, "the hub counts the socket awaiting a retry").toBeGreaterThanOrEqual(1);
      await chaos.setRedisDown(false);
      await until(() => d.state!.degraded, (degraded) => degraded === false, 15_000);
      expect(d.state!.notifications.total.count).toBe(2);
      expect((await runInDurableObject(hub, async (h: BadgeHub) => (await h.stats()).degraded)), "none awaits a retry once the fresh snapshot went out").toBe(0);
      await ok("POST", `/v1/users/${me}/notifications`, service, { type: "reply", count: 1 });
      const { got, expected } = await settled(d, me);
      expect(got).toEqual(expected);
      expect(got!.notifications.total.count).toBe(3);
    } finally {
      await runInDurableObject(hub, (h: BadgeHub) => {
        h.servicesEnv = {};
      });
      await chaos.close();
    }
  });
});
