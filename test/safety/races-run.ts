/**
 * A block racing the deliveries that put an author's posts on a follower's timeline, at the
 * Worker's N (races.test.ts at N = 1, races-databases.test.ts at N = 3): a follow sync of A → B
 * and a big-account transition of B (to big and back to normal), each forced into the window
 * between its Postgres read and its Redis write, each the other way round (B blocks A), and raced
 * over HTTP. None leaves B's post on A's timeline, in A's pulled set, or on A's pages; no follow
 * survives the block. (A block racing a fan-out page: reads-run.ts.)
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../src/counters/store";
import type { Env } from "../../src/env";
import { deliver } from "../../src/feed/fanout";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import type { FeedMessage } from "../../src/feed/messages";
import { redisAt } from "../../src/lib/redis";
import { databaseOf, topologyOf } from "../../src/lib/redis-topology";
import { servicesFor } from "../counters/support";
import { eventually, feed, follow, post, servicesPausingAfter } from "../feed/support";
import { api, newId } from "../support/api";
import { BIG_FOLLOWERS, bigStates, makeBig, setFollowers } from "./big-accounts";
import { followCounts, ok } from "./support";

const as = (userId: string) => ({ as: { userId } });
const n = () => topologyOf(env as unknown as Env).n;
const dbOf = (userId: string) => redisAt(env as unknown as Env, databaseOf(userId, n()));
const members = async (userId: string) => (await dbOf(userId).zrange<unknown[]>(feedKeys.timeline(userId), 0, -1)).map(String).filter((m) => m.includes(":"));
const pulled = async (userId: string) => (await dbOf(userId).smembers(feedKeys.bigFollows(userId))).map(String);

/** Delivers `message` as the queue's consumer does, with `between` run after its read of `read`. */
async function deliverAround(message: FeedMessage, read: RegExp, between: () => Promise<unknown>) {
  const racing = servicesPausingAfter(read, between);
  try {
    await deliver(racing.services, message);
    expect(racing.paused(), "the delivery read Postgres before the block").toBe(true);
  } finally {
    await racing.close();
  }
}

/** Delivers `message` once more, as a late or repeated queue delivery would. */
async function deliverLate(message: FeedMessage) {
  const { services, close } = servicesFor();
  try {
    await deliver(services, message);
  } finally {
    await close();
  }
}

/** One statement on the stack's Postgres, through a pool closed after it. */
async function sql(text: string, params: unknown[]) {
  const { services, close } = servicesFor();
  try {
    return await queryRows(services.db, text, params);
  } finally {
    await close();
  }
}

const SYNC_READ = /FROM posts WHERE author_id = \$1 AND deleted_at IS NULL AND held_at IS NULL ORDER BY id DESC/;
/** Statements waiting on a lock to insert a follow: the follow under test, behind the held row. */
const WAITING_FOLLOW_INSERTS = `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO follows%' AND datname = current_database() AND pid <> pg_backend_pid()`;
/** Block writes waiting on an advisory lock (the pair's, which a follow's batch holds). */
const WAITING_PAIR_LOCKS = `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE '%block_pair%' AND datname = current_database() AND pid <> pg_backend_pid()`;
type PoolClient = { query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>; release(): void };

const FOLLOWER_PAGE_READ = /FROM follows\s+WHERE followee_id = \$1 AND/;

/** A's block of B or B's of A, over HTTP. */
const blockBetween = (a: string, b: string, who: "a" | "b") => (who === "a" ? api("PUT", `/v1/me/blocks/${b}`, as(a)) : api("PUT", `/v1/me/blocks/${a}`, as(b))).then(ok);

/** Nothing of `b` reaches `a`'s timeline, pulled set or pages, and no follow is left either way. */
async function expectNothingOf(a: string, b: string, ids: string[]) {
  const timeline = await members(a);
  for (const id of ids) expect(timeline, "the post is not on the timeline").not.toContain(timelineMember(id, b));
  expect(await pulled(a), "the account is not pulled").not.toContain(b);
  const page = await feed(a, "limit=100");
  expect(page.items.filter((i) => i.post.authorId === b)).toEqual([]);
  const ranked = await feed(a, "order=ranked&limit=100");
  expect(ranked.items.filter((i) => i.post.authorId === b)).toEqual([]);
  for (const [user, list] of [[a, "following"], [b, "followers"]] as const) {
    const res = await ok(api("GET", `/v1/users/${user}/${list}?limit=100`));
    expect(res.body.items.map((i: { userId: string }) => i.userId)).not.toContain(user === a ? b : a);
  }
}

export function raceTests() {
  describe(`a block racing a follow sync and a big-account transition (N = ${n()})`, () => {
    it("race: a follow sync of A → B that read B's posts before the block (either way) writes nothing of B", async () => {
      for (const who of ["a", "b"] as const) {
        const [a, b] = [newId(), newId()];
        const ids = [await post({ userId: b }, "one"), await post({ userId: b }, "two")];
        await feed(a); // A's timeline exists: a sync writes into it
        await follow(a, b);
        const sync = { kind: "sync", followerId: a, followeeId: b } as const;
        await deliverAround(sync, SYNC_READ, () => blockBetween(a, b, who));
        await expectNothingOf(a, b, ids);
        await deliverLate(sync); // the follow's own sync, delivered by the queue after the block
        await expectNothingOf(a, b, ids);
      }
    });

    it("race: A's follow of B and the block (either way) sent at once leave no follow and nothing of B on A's timeline, whatever the sync does after", async () => {
      for (let run = 0; run < 4; run++) {
        const who = run % 2 === 0 ? "a" : "b";
        const [a, b] = [newId(), newId()];
        const ids = [await post({ userId: b }, "one"), await post({ userId: b }, "two")];
        await feed(a);
        const [followed] = await Promise.all([api("PUT", `/v1/me/following/${b}`, as(a)), blockBetween(a, b, who)]);
        expect([200, 403]).toContain(followed.status);
        await deliverLate({ kind: "sync", followerId: a, followeeId: b });
        await expectNothingOf(a, b, ids);
      }
    });

    it("race: a follow whose insert is still uncommitted when the block (either way) comes holds the pair's lock: the block waits for its commit, then its unfollow removes it", async () => {
      for (const who of ["a", "b"] as const) {
        const [a, b] = [newId(), newId()];
        const ids = [await post({ userId: b }, "one")];
        await feed(a);
        // The follow's insert waits on this transaction's uncommitted row for the same pair, with
        // its batch holding the pair's lock (taken before the insert's snapshot).
        const { services, close } = servicesFor();
        const pool = (services.pooledDb as unknown as { $client: { connect(): Promise<PoolClient> } }).$client;
        const holder = await pool.connect();
        try {
          await holder.query("BEGIN");
          await holder.query("INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2)", [a, b]);
          const following = api("PUT", `/v1/me/following/${b}`, as(a));
          // Watched from a pool of its own: the holder's connection stays idle in its transaction.
          await eventually(
            async () => (await sql(WAITING_FOLLOW_INSERTS, []) as { n: string }[])[0]!.n,
            (waiting) => Number(waiting) > 0,
          );
          const blocking = blockBetween(a, b, who);
          // The block cannot commit before the follow does: it waits on the pair's lock.
          await eventually(
            async () => (await sql(WAITING_PAIR_LOCKS, []) as { n: string }[])[0]!.n,
            (waiting) => Number(waiting) > 0,
          );
          await holder.query("ROLLBACK");
          const followed = await following;
          expect(followed.status, JSON.stringify(followed.body)).toBe(200);
          await blocking;
        } finally {
          holder.release();
          await close();
        }
        await expectNothingOf(a, b, ids);
        await eventually(() => followCounts(a, b), (c) => c[a]!.following === 0 && c[b]!.followers === 0);
      }
    });

    it("race: a to-big transition page that read A as a follower before the block (either way) does not pull B for A", async () => {
      for (const who of ["a", "b"] as const) {
        const [a, b] = [newId(), newId()];
        await follow(a, b);
        const pushed = await post({ userId: b }, "pushed");
        await feed(a);
        await eventually(() => members(a), (m) => m.includes(timelineMember(pushed, b)));
        // The scan's claim, with a followers count that keeps other files' scans on it.
        await setFollowers([b], BIG_FOLLOWERS);
        await sql(`INSERT INTO feed_big_accounts (author_id, state) VALUES ($1, 'to-big') ON CONFLICT DO NOTHING`, [b]);
        await deliverAround({ kind: "transition", authorId: b, to: "big", after: null }, FOLLOWER_PAGE_READ, () => blockBetween(a, b, who));
        await eventually(() => bigStates([b]), (perDatabase) => perDatabase.every(([s]) => s === "big"));
        const whileBig = await post({ userId: b }, "while big"); // the outbox only
        await expectNothingOf(a, b, [pushed, whileBig]);
      }
    });

    it("race: a to-normal transition page that read A as a follower before the block (either way) copies nothing of B's outbox to A", async () => {
      for (const who of ["a", "b"] as const) {
        const [a, b] = [newId(), newId()];
        await follow(a, b);
        await makeBig([b], "big");
        await feed(a); // built: pulls B
        expect(await pulled(a)).toContain(b);
        const ids = [await post({ userId: b }, "outbox one"), await post({ userId: b }, "outbox two")];
        // The scan's release, with a followers count that keeps other files' scans off it.
        await setFollowers([b], 100);
        await sql(`UPDATE feed_big_accounts SET state = 'to-normal', changed_at = now() WHERE author_id = $1`, [b]);
        await deliverAround({ kind: "transition", authorId: b, to: "normal", after: null }, FOLLOWER_PAGE_READ, () => blockBetween(a, b, who));
        await eventually(() => bigStates([b]), (perDatabase) => perDatabase.every(([s]) => s === null));
        const afterwards = await post({ userId: b }, "pushed again");
        await expectNothingOf(a, b, [...ids, afterwards]);
      }
    });

    it("race: the block and B's crossing of the threshold (the per-minute scan, to big and back to normal) at once leave nothing of B on A's timeline", async () => {
      for (const to of ["big", "normal"] as const) {
        const [a, b] = [newId(), newId()];
        await follow(a, b);
        if (to === "normal") await makeBig([b], "big");
        const before = await post({ userId: b }, "before");
        await feed(a);
        await Promise.all([makeBig([b], to), blockBetween(a, b, "a")]);
        const after = await post({ userId: b }, "after");
        await expectNothingOf(a, b, [before, after]);
      }
    });
  });
}
