/**
 * Every feed page is read-only (docs/feed.md, "Read-only pages"): with read regions on, a warm page
 * of every kind — chronological first and next, merged with a big account's outbox, ranked first
 * and next, and at N > 1 both rounds — sends no write-class command, so a read region of a Global
 * database answers it all. What a page finds to write goes out as writes of its own, only when
 * there is something: the `feed` badge's marker when the page shows something new, a TTL renewal
 * when due, a tombstoned member's removal.
 *
 * Observed where the Worker sends them: every request the isolate's Redis clients send is recorded
 * and classed by the same rule the consistency token uses (`writesData`: only reads and
 * EVAL_RO/EVALSHA_RO are answered by a read region). The Worker runs in-process with the test's
 * bindings and REDIS_READ_REGIONS = "on" (`api(..., { env })`, which also waits for its
 * `waitUntil` work: writes sent after the answer are recorded too). Shared by the file at N = 1 and
 * the one at N = 3.
 */
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import type { Env } from "../../src/env";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import { readFeedUnseenMany } from "../../src/feed/unseen";
import { writesData } from "../../src/lib/consistency";
import { redisAt } from "../../src/lib/redis";
import { databaseOf, topologyOf } from "../../src/lib/redis-topology";
import { api, newId, show } from "../support/api";
import { servicesFor } from "../counters/support";
import { eventually, follow, post } from "./support";

const HEADER = "X-Consistency-Token";
const on = { REDIS_READ_REGIONS: "on" } satisfies Partial<Env>;
const bindings = () => ({ ...(env as unknown as Env), ...on });

type Sent = { database: number; command: string; body: unknown; writes: boolean };

/**
 * Records what the Worker's Redis clients (the isolate's, with read regions on) send while `work`
 * runs, keeping the requests that name one of `ids` (the test's fresh users and posts: other files
 * share the isolate).
 */
async function recording(ids: readonly string[], work: () => Promise<void>): Promise<Sent[]> {
  const sent: Sent[] = [];
  const n = topologyOf(bindings()).n;
  const restores: (() => void)[] = [];
  for (let index = 0; index < n; index++) {
    const holder = redisAt(bindings(), index) as unknown as { client: { request(req: { body?: unknown }): Promise<unknown> } };
    const inner = holder.client;
    holder.client = new Proxy(inner, {
      get: (target, prop) =>
        prop === "request"
          ? (req: { body?: unknown }) => {
              const text = JSON.stringify(req.body);
              if (ids.some((id) => text.includes(id))) {
                const first = Array.isArray(req.body) ? (Array.isArray(req.body[0]) ? req.body.map((c: unknown[]) => c[0]).join("+") : req.body[0]) : "?";
                sent.push({ database: index, command: String(first).toLowerCase(), body: req.body, writes: writesData(req.body) });
              }
              return target.request(req);
            }
          : Reflect.get(target, prop, target),
    });
    restores.push(() => void (holder.client = inner));
  }
  try {
    await work();
  } finally {
    for (const restore of restores) restore();
  }
  return sent;
}

const page = async (userId: string, query: string) => {
  const res = await api("GET", `/v1/me/feed?${query}`, { as: { userId }, env: on });
  expect(res.status, show(res)).toBe(200);
  return res;
};
const idsOf = (res: { body: { items: { post: { id: string } }[] } }) => res.body.items.map((i) => i.post.id);
/**
 * The write-class calls among `sent`, one line each. An EVAL right after an EVALSHA on the same
 * database is the client's retry of that call with the script's source (NOSCRIPT), not a call of its own.
 */
const writesOf = (sent: Sent[]) =>
  sent
    .filter((s, i) => s.writes && !(s.command === "eval" && sent.slice(0, i).findLast((t) => t.database === s.database)?.command === "evalsha"))
    .map((s) => `${s.database}:${s.command} ${JSON.stringify(s.body).slice(0, 400)}`);

export function readOnlyPageTests() {
  it("a warm page of every kind sends no write-class command, a ranked first page included (its cursor carries the ranking)", async () => {
    const [reader, author, star] = [newId(), newId(), newId()];
    await follow(reader, author);
    await follow(reader, star);
    const posts: string[] = [];
    for (let i = 0; i < 5; i++) posts.push(await post({ userId: author }, `a${i}`));
    for (let i = 0; i < 2; i++) posts.push(await post({ userId: star }, `s${i}`));
    const ids = [reader, ...posts];
    await page(reader, "limit=3"); // cold: builds the timeline
    // The star is pulled as a big account's outbox (a finished transition's state): its outbox and
    // activity on every database, the account in the reader's pulled set.
    const n = topologyOf(bindings()).n;
    const starPosts = posts.slice(5);
    for (let i = 0; i < n; i++) {
      const redis = redisAt(env as unknown as Env, i);
      const [newest, ...older] = [...starPosts].reverse().map((id) => ({ score: Number(id), member: timelineMember(id, star) }));
      await redis.zadd(feedKeys.outbox(star), newest!, ...older);
      await redis.zadd(feedKeys.activity(), { score: Number(starPosts[1]), member: star });
    }
    await redisAt(env as unknown as Env, databaseOf(reader, n)).sadd(feedKeys.bigFollows(reader), star);
    await redisAt(env as unknown as Env, databaseOf(reader, n)).expire(feedKeys.bigFollows(reader), 7 * 24 * 3600);
    // Warm-up: every kind once (scripts loaded, caches filled, the marker at the top).
    const firstWarm = await page(reader, "limit=3");
    await page(reader, `limit=3&cursor=${firstWarm.body.nextCursor}`);
    const rankedWarm = await page(reader, "order=ranked&limit=3");
    await page(reader, `order=ranked&limit=3&cursor=${rankedWarm.body.nextCursor}`);

    const expected = [...posts].reverse();
    let first!: Awaited<ReturnType<typeof page>>;
    let next!: Awaited<ReturnType<typeof page>>;
    const warm = await recording(ids, async () => {
      first = await page(reader, "limit=3");
      next = await page(reader, `limit=3&cursor=${first.body.nextCursor}`);
    });
    expect(idsOf(first).concat(idsOf(next)), "the merged pages").toEqual(expected.slice(0, 6));
    expect(writesOf(warm), "a warm chronological page, first and next, merged with an outbox").toEqual([]);
    expect(warm.filter((s) => s.command === "evalsha_ro").length, "the page scripts ran read-only").toBeGreaterThanOrEqual(2);
    if (expected.slice(0, 6).some((id) => databaseOf(id, n) !== databaseOf(reader, n))) {
      const where = `${warm.map((s) => `${s.database}:${s.command}`).join(" ")}; reader on ${databaseOf(reader, n)}, posts on ${expected.slice(0, 6).map((id) => databaseOf(id, n))}`;
      expect(new Set(warm.map((s) => s.database)).size, `round 2 reached the other databases: ${where}`).toBeGreaterThan(1);
    }
    expect(first.headers.get(HEADER), "the request wrote nothing").toBeNull();

    let ranked!: Awaited<ReturnType<typeof page>>;
    const rankedFirst = await recording(ids, async () => {
      ranked = await page(reader, "order=ranked&limit=3");
    });
    expect(ranked.headers.get(HEADER), `the answer's path wrote nothing: ${writesOf(rankedFirst).join("\n")}`).toBeNull();
    expect(writesOf(rankedFirst), "a ranked first page, after its answer too").toEqual([]);
    expect(rankedFirst.filter((s) => s.command === "evalsha_ro").length, "the ranking ran read-only").toBeGreaterThanOrEqual(1);
    let rankedNext!: Awaited<ReturnType<typeof page>>;
    const later = await recording(ids, async () => {
      rankedNext = await page(reader, `order=ranked&limit=3&cursor=${ranked.body.nextCursor}`);
    });
    expect(writesOf(later), "a ranked next page").toEqual([]);
    expect(new Set([...idsOf(ranked), ...idsOf(rankedNext)]).size, "six distinct posts over two ranked pages").toBe(6);
  });

  it("writes only what a page found to write: the marker when there is news, a renewal when due, a tombstoned member's removal", async () => {
    const [reader, author] = [newId(), newId()];
    await follow(reader, author);
    const posts = [await post({ userId: author }, "one"), await post({ userId: author }, "two")];
    await page(reader, "limit=10"); // builds
    await page(reader, "limit=10");
    const n = topologyOf(bindings()).n;
    const own = redisAt(env as unknown as Env, databaseOf(reader, n));

    // News: the first page moves the `feed` badge's marker, one write, and its token covers it.
    const fresh = await post({ userId: author }, "three");
    await eventually(() => own.zscore(feedKeys.timeline(reader), timelineMember(fresh, author)), (s) => s !== null);
    // Its counters cached first (the counters' own warm, a write of theirs on a miss): this read is about the marker.
    expect((await api("GET", `/v1/counters/post?ids=${fresh}`)).status).toBe(200);
    let res!: Awaited<ReturnType<typeof page>>;
    const news = await recording([reader, fresh, ...posts], async () => {
      res = await page(reader, "limit=10");
    });
    expect(idsOf(res)).toEqual([fresh, ...posts].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)));
    expect(writesOf(news), `the marker's reset alone: ${writesOf(news).join("\n")}`).toEqual([expect.stringContaining(feedKeys.seen(reader))]);
    expect(res.headers.get(HEADER), "the answer carries the reset's token").not.toBeNull();
    const badges = await api("GET", "/v1/me/badges", { as: { userId: reader }, env: on, headers: { [HEADER]: res.headers.get(HEADER)! } });
    expect(badges.body.feed, show(badges)).toEqual({ count: 0, capped: false });

    // Due: a timeline with less than six days left is renewed, once.
    await own.expire(feedKeys.timeline(reader), 3_600);
    const due = await recording([reader], async () => void (await page(reader, "limit=10")));
    expect(writesOf(due), "the renewal alone").toEqual([expect.stringContaining(feedKeys.bigFollows(reader))]);
    expect(await own.ttl(feedKeys.timeline(reader))).toBeGreaterThan(6 * 24 * 3_600);
    expect(writesOf(await recording([reader], async () => void (await page(reader, "limit=10")))), "renewed: nothing more").toEqual([]);

    // A tombstone met (its delete's fan-out not here yet): not shown, and dropped by a write of its own.
    for (let i = 0; i < n; i++) await redisAt(env as unknown as Env, i).set(feedKeys.post(posts[0]!), "d", { ex: 600 });
    const tomb = await recording([reader], async () => {
      res = await page(reader, "limit=10");
    });
    expect(idsOf(res)).not.toContain(posts[0]);
    expect(writesOf(tomb), "the tombstoned member's removal").toEqual([expect.stringContaining(timelineMember(posts[0]!, author))]);
    expect(await own.zscore(feedKeys.timeline(reader), timelineMember(posts[0]!, author))).toBeNull();
  });

  it("the badge hubs' read of many users' feed badges is read-only", async () => {
    const [a, b, author] = [newId(), newId(), newId()];
    for (const reader of [a, b]) {
      await follow(reader, author);
      await page(reader, "limit=5"); // builds the timeline and sets the marker
    }
    const fresh = await post({ userId: author }, "new");
    const n = topologyOf(bindings()).n;
    for (const reader of [a, b]) {
      await eventually(() => redisAt(env as unknown as Env, databaseOf(reader, n)).zscore(feedKeys.timeline(reader), timelineMember(fresh, author)), (s) => s !== null);
    }
    const { services, close } = servicesFor(on);
    let counts: (number | null)[] = [];
    const sent = await recording([a, b], async () => {
      counts = await readFeedUnseenMany(services, [a, b], 200);
    }).finally(close);
    expect(counts).toEqual([1, 1]);
    expect(writesOf(sent)).toEqual([]);
    expect(sent.length, "the read was recorded").toBeGreaterThan(0);
  });
}
