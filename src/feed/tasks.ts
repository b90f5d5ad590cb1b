import { databaseOf } from "../lib/redis-topology";
import { createScriptBatch, type ScriptRunner } from "../lib/script-batch";
import type { CronTask } from "../scheduled";
import { BIG_ACCOUNT_EXIT_RATIO, DEFAULT_BIG_ACCOUNT_FOLLOWERS, feedKeys, timelineMember, TOMBSTONE, TOMBSTONE_TTL_SECONDS } from "./keys";
import { UNPUBLISH_POST } from "./publish.lua";
import { onEveryDatabase, tombstoneElsewhere } from "./everywhere";
import { dropTrendingPosts, refreshTrending } from "./trending";
import { claimTransitions, readBigAccounts, readRecentlyDeleted } from "./store";
import { SYNC_BIG_STATES } from "./transition.lua";

/** Deletes looked back on each minute: three runs see each delete, so one failed run loses nothing. */
const TOMBSTONE_LOOKBACK_SECONDS = 180;
const TOMBSTONES_PER_RUN = 1000;

/**
 * Every minute: tombstones the posts deleted in the last three minutes again, in ONE Redis round
 * trip (one per database, in parallel, at N > 1). A delete whose request-path tombstone failed (Redis unreachable) is hidden from pages and
 * taken out of the stored trending lists within a minute of Redis coming back; others just get
 * their tombstone rewritten.
 */
export const feedTombstoneTask: CronTask = {
  name: "feed.tombstones",
  async run(services) {
    const deleted = await readRecentlyDeleted(services.db, TOMBSTONE_LOOKBACK_SECONDS, TOMBSTONES_PER_RUN);
    // One pipeline per database: the author's database runs UNPUBLISH_POST, every other one (N > 1)
    // gets the tombstone copy; trending's stored lists are on database 0.
    const batches = new Map<number, ScriptRunner>();
    const batched = {
      databases: services.databases,
      redisAt(index: number) {
        let batch = batches.get(index);
        if (!batch) batches.set(index, (batch = createScriptBatch(() => services.redisAt(index))));
        return batch;
      },
    };
    await Promise.all([
      ...deleted.flatMap((p) => {
        const authorDb = databaseOf(p.author_id, services.databases);
        return [
          batched
            .redisAt(authorDb)
            .createScript(UNPUBLISH_POST)
            .exec(
              [feedKeys.post(p.id), feedKeys.timeline(p.author_id), feedKeys.bigStates(), feedKeys.outbox(p.author_id)],
              [TOMBSTONE, String(TOMBSTONE_TTL_SECONDS), timelineMember(p.id, p.author_id), p.author_id],
            ),
          ...(services.databases > 1 ? [tombstoneElsewhere(batched, p.id, p.author_id, authorDb)] : []),
        ];
      }),
      ...(deleted.length > 0 ? [dropTrendingPosts(batched.redisAt(0), deleted.map((p) => p.id))] : []),
    ]);
    return { tombstoned: deleted.length };
  },
};

/**
 * Every minute, with read regions on: every trending window's list recomputed and stored on the
 * primary (three turns, each one lock and one recompute at most), so that readers, answered by their
 * nearest region, never need to send one. Off: nothing (readers recompute, one per window per 5 s).
 */
export const feedTrendingTask: CronTask = { name: "feed.trending-refresh", run: (services) => refreshTrending(services) };

/** Threshold crossings started per cron run (each is one queue message, then its own pages). */
const TRANSITIONS_PER_RUN = 100;
/** Big accounts re-synced into `feed:big` per run: far above any real number of big accounts. */
const BIG_ACCOUNTS_SYNCED = 10_000;

/**
 * Every minute: accounts whose flushed followers counter crossed the threshold start a transition
 * (to big at ≥ BIG_ACCOUNT_FOLLOWERS, back to normal below 90% of it: an account hovering at the
 * threshold does not flap), and `feed:big` is re-synced from Postgres (one round trip).
 */
export const feedBigAccountsTask: CronTask = {
  name: "feed.big-accounts",
  async run(services) {
    const enter = bigAccountThreshold(services.env);
    const claimed = await claimTransitions(services.db, enter, Math.floor(enter * BIG_ACCOUNT_EXIT_RATIO), TRANSITIONS_PER_RUN);
    for (const c of claimed) await services.env.FEED_QUEUE.send({ kind: "transition", authorId: c.author_id, to: c.to, after: null });
    const states = await readBigAccounts(services.db, BIG_ACCOUNTS_SYNCED);
    const big = states.filter((r) => r.state === "big").map((r) => r.author_id);
    const moving = states.filter((r) => r.state !== "big").map((r) => r.author_id);
    // `feed:big` is on every database (each publish and follow sync reads its own database's copy).
    await onEveryDatabase(services, (redis) => redis.createScript(SYNC_BIG_STATES).exec([feedKeys.bigStates()], [String(big.length), ...big, ...moving]));
    return { transitions: claimed.length, bigAccounts: states.length };
  },
};

/** The big-account threshold in force (`BIG_ACCOUNT_FOLLOWERS`, default 10,000). */
export function bigAccountThreshold(env: { BIG_ACCOUNT_FOLLOWERS?: string }): number {
  const n = Number(env.BIG_ACCOUNT_FOLLOWERS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_BIG_ACCOUNT_FOLLOWERS;
}
