/**
 * Big accounts (push–pull hybrid) and the ranked page, end to end through the real queue.
 *
 * The threshold scan reads flushed followers counters; other test files share the database, so
 * these tests give their authors a counter far above anything else here (10⁹) and run the scan
 * with a threshold of 9·10⁸, instead of following an author ten thousand times.
 */
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/counters/store";
import { feedKeys, RANKING_TTL_MS, timelineMember } from "../../src/feed/keys";
import { encodeRankedCursor } from "../../src/feed/ranked-cursor";
import { encodeCursor } from "../../src/lib/pagination";
import { feedBigAccountsTask } from "../../src/feed/tasks";
import { servicesFor } from "../counters/support";
import { api, type ApiResponse, newId, show } from "../support/api";
import { eventually, feed, follow, newestFirst, post, redis, walk, fileServices, insertAgedPosts } from "./support";

const THRESHOLD = "900000000";
const services = fileServices();

/** Sets an author's flushed followers counter and runs the per-minute scan; waits for the transition's end. */
async function setFollowersAndScan(authors: string[], followers: number, expected: "big" | null) {
  await queryRows(
    services.db,
    `INSERT INTO counters (entity, entity_id, field, value) SELECT 'user', unnest($1::bigint[]), 'followers', $2
     ON CONFLICT (entity, entity_id, field) DO UPDATE SET value = excluded.value`,
    [authors, followers],
  );
  const { services: scan, close } = servicesFor({ BIG_ACCOUNT_FOLLOWERS: THRESHOLD });
  try {
    // A scan starts at most 100 transitions: scan again until every author has one.
    for (let runs = 0; runs < 10; runs++) if (((await feedBigAccountsTask.run(scan)) as { transitions: number }).transitions === 0) break;
  } finally {
    await close();
  }
  await eventually(
    async () => {
      const states = await redis.hmget<Record<string, string | null>>(feedKeys.bigStates(), ...authors);
      return authors.map((a) => states?.[a] ?? null);
    },
    (states) => states.every((s) => s === expected),
    30_000,
  );
}

/** The client parses numeric strings; ids are compared as strings. */
const pulled = (userId: string) => redis.smembers(feedKeys.bigFollows(userId)).then((m) => m.map(String));
const members = (userId: string) => redis.zrange<string[]>(feedKeys.timeline(userId), 0, -1).then((m) => m.map(String));

describe("big accounts", () => {
  it("stop being pushed once big; followers pull their posts; readers built later load only normal followees", async () => {
    const [star, normal, active, late] = [newId(), newId(), newId(), newId()];
    for (const f of [active, late]) {
      await follow(f, star);
      await follow(f, normal);
    }
    const before = await post({ userId: star }, "before");
    await feed(active);
    await eventually(() => members(active), (m) => m.includes(timelineMember(before, star)));

    await setFollowersAndScan([star], 1_000_000_000, "big");
    expect(await pulled(active)).toContain(star);

    const after = await post({ userId: star }, "after");
    const fromNormal = await post({ userId: normal }, "normal");
    await eventually(() => members(active), (m) => m.includes(timelineMember(fromNormal, normal)));
    expect(await members(active), "a big account's post is not pushed").not.toContain(timelineMember(after, star));
    expect((await feed(active)).items.map((i) => i.post.id)).toEqual(newestFirst([before, after, fromNormal]));

    // A timeline built now loads the normal followee from Postgres and pulls the big one.
    const page = await feed(late);
    expect(page.items.map((i) => i.post.id)).toEqual(newestFirst([before, after, fromNormal]));
    expect(await members(late)).toEqual(["0", timelineMember(fromNormal, normal)]);
    expect(await pulled(late)).toEqual([star]);

    // Unfollowing a big account takes its posts off the page at once.
    await follow(late, star, "DELETE");
    expect((await feed(late)).items.map((i) => i.post.id)).toEqual([fromNormal]);
    // A new follower of a big account pulls it (through the follow's queued sync).
    await follow(late, star);
    await eventually(() => feed(late), (p) => p.items.length === 3);

    // Back below 90% of the threshold: normal again, its outbox copied into the timelines.
    await setFollowersAndScan([star], 100, null);
    expect(await pulled(active)).not.toContain(star);
    expect(await members(active)).toContain(timelineMember(after, star));
    const again = await post({ userId: star }, "pushed again");
    await eventually(() => members(active), (m) => m.includes(timelineMember(again, star)));
    expect((await feed(active)).items.map((i) => i.post.id)).toEqual(newestFirst([before, after, fromNormal, again]));
  });

  it("merges big accounts' outboxes with the timeline across pages, without duplicates or gaps", async () => {
    const reader = newId();
    const stars = [newId(), newId(), newId()];
    const normal = newId();
    for (const a of [...stars, normal]) await follow(reader, a);
    await setFollowersAndScan(stars, 1_000_000_000, "big");
    await feed(reader);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await post({ userId: [...stars, normal][i % 4]! }, `m${i}`));
    await eventually(() => feed(reader), (p) => p.items.length === 12 || p.items.length === 20);
    for (const limit of [1, 3, 5, 20]) expect(await walk(reader, limit), `limit ${limit}`).toEqual(newestFirst(ids));
  });

  it("merges at most MAX_PULLED_ACCOUNTS accounts, the most recently active first (readers following 0, 1 and 300)", async () => {
    const reader = newId();
    const stars = Array.from({ length: 300 }, () => newId());
    await queryRows(services.db, `INSERT INTO follows (follower_id, followee_id) SELECT $1, unnest($2::bigint[])`, [reader, stars]);
    const rows = await queryRows<{ id: string; author_id: string }>(
      services.db,
      `INSERT INTO posts (author_id, text) SELECT unnest($1::bigint[]), 'hello' RETURNING id::text AS id, author_id::text AS author_id`,
      [stars],
    );
    const byStar = new Map(rows.map((r) => [r.author_id, r.id]));
    await setFollowersAndScan(stars, 1_000_000_000, "big");
    expect(await feed(newId())).toEqual({ items: [], nextCursor: null, degraded: false }); // follows none
    const all = await walk(reader, 100);
    // The 200 most recently active (here: whose newest post is newest) are merged; the oldest 100 are not.
    expect(all).toEqual(newestFirst([...byStar.values()]).slice(0, 200));
    const one = newId();
    await follow(one, stars[0]!);
    expect((await feed(one)).items.map((i) => i.post.id)).toEqual([byStar.get(stars[0]!)]);
    // A bound of 1 merges only the most recently active account.
    const narrow = await api("GET", "/v1/me/feed?limit=100", { as: { userId: reader }, env: { MAX_PULLED_ACCOUNTS: "1" } });
    expect(narrow.status, show(narrow)).toBe(200);
    expect(narrow.body.items.map((i: { post: { id: string } }) => i.post.id)).toEqual([newestFirst([...byStar.values()])[0]]);
  });
});

describe("the per-minute repair of feed:big", () => {
  it("restores settled big accounts, drops unknown ones, and leaves transitions to their consumer", async () => {
    const [settled, moving, gone] = [newId(), newId(), newId()];
    await queryRows(services.db, `INSERT INTO feed_big_accounts (author_id, state) VALUES ($1, 'big'), ($2, 'to-big')`, [settled, moving]);
    // Followed far above the threshold, so the scan's hysteresis keeps both big.
    await queryRows(
      services.db,
      `INSERT INTO counters (entity, entity_id, field, value) SELECT 'user', unnest($1::bigint[]), 'followers', 1000000000
       ON CONFLICT (entity, entity_id, field) DO UPDATE SET value = excluded.value`,
      [[settled, moving]],
    );
    try {
      // The hash lost `settled`; `moving`'s transition ended in Redis after the snapshot the repair
      // reads was taken (Postgres still says to-big there); `gone` is no big account at all.
      await redis.hdel(feedKeys.bigStates(), settled);
      await redis.hset(feedKeys.bigStates(), { [moving]: "big", [gone]: "big" });
      const { services: scan, close } = servicesFor({ BIG_ACCOUNT_FOLLOWERS: THRESHOLD });
      try {
        await feedBigAccountsTask.run(scan);
      } finally {
        await close();
      }
      const states = await redis.hmget<Record<string, string | null>>(feedKeys.bigStates(), settled, moving, gone);
      expect(states).toEqual({ [settled]: "big", [moving]: "big", [gone]: null });
    } finally {
      await queryRows(services.db, `DELETE FROM feed_big_accounts WHERE author_id = ANY($1::bigint[])`, [[settled, moving]]);
      await queryRows(services.db, `DELETE FROM counters WHERE entity = 'user' AND entity_id = ANY($1::bigint[])`, [[settled, moving]]);
    }
  });
});

describe("GET /v1/me/feed?order=ranked", () => {
  it("orders by engagement and age, and pages over one snapshot while counts move", async () => {
    const [reader, author] = [newId(), newId()];
    await follow(reader, author);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await post({ userId: author }, `r${i}`));
    await feed(reader);
    const service = { userId: newId(), role: "service" as const };
    const bump = async (id: string, deltas: Record<string, number>) =>
      expect((await api("POST", `/v1/counters/post/${id}`, { as: service, body: { deltas } })).status).toBe(200);
    await bump(ids[0]!, { likes: 50 });
    await bump(ids[2]!, { forwards: 10 });
    const first = await api("GET", "/v1/me/feed?order=ranked&limit=2", { as: { userId: reader } });
    expect(first.status, show(first)).toBe(200);
    expect(first.body.items.map((i: { post: { id: string } }) => i.post.id)).toEqual([ids[0], ids[2]]);
    // The newest post overtakes everything now, but the snapshot being paged does not move.
    await bump(ids[5]!, { likes: 1000 });
    const seen = [...first.body.items.map((i: { post: { id: string } }) => i.post.id)];
    let cursor = first.body.nextCursor as string | null;
    while (cursor) {
      const next = await api("GET", `/v1/me/feed?order=ranked&limit=2&cursor=${cursor}`, { as: { userId: reader } });
      expect(next.status, show(next)).toBe(200);
      seen.push(...next.body.items.map((i: { post: { id: string } }) => i.post.id));
      cursor = next.body.nextCursor;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    expect(seen.indexOf(ids[5]!)).toBeGreaterThan(1);
    // Dropping the cursor starts a new snapshot.
    const fresh = await api("GET", "/v1/me/feed?order=ranked&limit=1", { as: { userId: reader } });
    expect(fresh.body.items[0].post.id).toBe(ids[5]);
  });

  it("ranks exactly by (1 + likes + 2·comments + 3·forwards) / (age_hours + 2)^1.5, ties newest first, over every page", async () => {
    const [reader, author] = [newId(), newId()];
    await follow(reader, author);
    // 40 posts in 5 age groups (same created_at within a group, hours apart between groups) with
    // engagement from few values, so many scores tie exactly and the tie-break is exercised.
    const ids = await insertAgedPosts(services.db, author, 40);
    const service = { userId: newId(), role: "service" as const };
    for (const [k, id] of ids.entries()) {
      // views and favourites do not rank; negative totals are not needed here (counts show ≥ 0).
      const deltas = { likes: (k * 7) % 4, comments: k % 3 === 0 ? 1 : 0, forwards: k % 4 === 0 ? 1 : 0, views: k, favorites: k % 2 };
      const res = await api("POST", `/v1/counters/post/${id}`, { as: service, body: { deltas } });
      expect(res.status, show(res)).toBe(200);
    }
    const items: { post: { id: string; createdAt: string }; counts: { likes: number; comments: number; forwards: number } }[] = [];
    let cursor: string | null = null;
    let t0 = 0;
    do {
      if (!cursor) t0 = Date.now();
      const res: ApiResponse = await api("GET", `/v1/me/feed?order=ranked&limit=7${cursor ? `&cursor=${cursor}` : ""}`, { as: { userId: reader } });
      expect(res.status, show(res)).toBe(200);
      items.push(...res.body.items);
      cursor = res.body.nextCursor;
    } while (cursor);
    // The reference: the formula and the tie-break, computed here from what the pages show. Ages
    // are whole groups of 3 hours apart, so the milliseconds between the test's clock and the
    // Worker's move no score past another.
    const score = (i: (typeof items)[number]) => {
      const ageHours = Math.max(0, t0 - Date.parse(i.post.createdAt)) / 3_600_000;
      return (1 + i.counts.likes + 2 * i.counts.comments + 3 * i.counts.forwards) / (ageHours + 2) ** 1.5;
    };
    const reference = [...items].sort((a, b) => score(b) - score(a) || (BigInt(b.post.id) > BigInt(a.post.id) ? 1 : -1));
    expect(items.map((i) => i.post.id)).toEqual(reference.map((i) => i.post.id));
    expect(new Set(items.map((i) => i.post.id))).toEqual(new Set(ids));
    const ties = new Set(items.map((i) => `${i.post.createdAt}|${score(i)}`));
    expect(ties.size).toBeLessThan(items.length - 10); // many exact ties: the tie-break decides
  });

  it("refuses an expired ranking, a cursor of the stored rankings before, and a malformed one, with 400 on cursor", async () => {
    const reader = newId();
    const posts = [await post({ userId: reader }), await post({ userId: reader })];
    const first = await api("GET", "/v1/me/feed?order=ranked&limit=1", { as: { userId: reader } });
    expect(first.status, show(first)).toBe(200);
    const shown = first.body.items[0].post.id as string;
    const rest = posts.filter((id) => id !== shown);
    const old = Date.now() - RANKING_TTL_MS - 1_000;
    const expired = [encodeRankedCursor({ at: old, shown: 1, ids: rest }), encodeCursor([crypto.randomUUID(), 1])];
    for (const cursor of expired) {
      const res = await api("GET", `/v1/me/feed?order=ranked&cursor=${cursor}`, { as: { userId: reader } });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.message).toBe("This ranking has expired");
      expect(res.body.error.details[0].field).toBe("cursor");
    }
    for (const cursor of ["WyJ4IiwiOTk5OTkiXQ", "garbage", "r1.!!", `${first.body.nextCursor}AA`, "r1." + "A".repeat(5000)]) {
      const res = await api("GET", `/v1/me/feed?order=ranked&cursor=${cursor}`, { as: { userId: reader } });
      expect(res.status, show(res)).toBe(400);
      expect(JSON.stringify(res.body.error.details), show(res)).toContain("cursor");
    }
    // The ranking's own cursor, just under its 15 minutes, still serves.
    const fresh = await api("GET", `/v1/me/feed?order=ranked&cursor=${encodeRankedCursor({ at: Date.now() - RANKING_TTL_MS + 5_000, shown: 1, ids: rest })}`, { as: { userId: reader } });
    expect(fresh.status, show(fresh)).toBe(200);
    expect(fresh.body.items.map((i: { post: { id: string } }) => i.post.id)).toEqual(rest);
    expect((await api("GET", "/v1/me/feed?order=popular", { as: { userId: reader } })).status).toBe(400);
  });
});
