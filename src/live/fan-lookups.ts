import { cachedFollowStates, type FollowState } from "../badges/authors";
import type { Redis } from "../lib/redis";
import { isRedisOutage } from "../lib/redis-failures";
import { databaseOf, MAX_PARALLEL_DATABASES } from "../lib/redis-topology";

/** Most lookups in one round trip: bounds the request body and how long the last of them waits. */
export const MAX_FAN_LOOKUPS_PER_TRIP = 200;

/**
 * A viewer's fan status from the follow cache, or why the cache could not say: `redis_down` (the
 * caller asks Postgres), `failed` (any other error: the caller's full lookup surfaces it).
 */
export type FanLookup = FollowState | "redis_down" | "failed";

/** What a lookup needs of one database's client. */
export type FanRedis = Pick<Redis, "hmget" | "pipeline">;

/**
 * Where the follow caches are: N, and the client of database `index`. A follow cache lives on
 * its owner's database, the viewer's (`databaseOf(viewerId, n)`), never the host's.
 */
export type FanDatabases = { readonly n: number; redisAt(index: number): FanRedis };

type Waiting = { userId: string; authorId: string; answer: (state: FanLookup) => void };

/**
 * The follow-cache lookups of one room object, sent to Redis together, one queue per database of
 * the viewers. A lookup leaves at once when none is in flight to its viewer's database, so a lone
 * join waits for nothing; lookups that arrive during a round trip to that database go out together
 * in its next one (one pipeline). Under a burst of joins the object thus pays one round trip per
 * batch and database instead of one per join, while billed commands stay one HMGET per lookup,
 * and a join is still one round (its viewer's database). The databases' queues are independent:
 * one database that is slow or down never holds up the lookups of another's viewers, and at most
 * MAX_PARALLEL_DATABASES trips are in flight at once (a queue whose turn is past the limit leaves
 * when one of them ends). At N = 1 this is exactly the single queue it always was. Never rejects:
 * errors become answers, per lookup.
 *
 * A trip is plain reads (one HMGET, or a pipeline of them), never a script: a Global database's
 * read region nearest the room answers it, so a join never waits for the primary region. A cache
 * found missing is rebuilt by the Worker, after the join's answer when read regions are on
 * (`resolveFan` in rooms.ts).
 */
export class FanLookups {
  private readonly waiting = new Map<number, Waiting[]>();
  private readonly sending = new Set<number>();

  /**
   * `databases` is asked on every lookup (the room's bindings may change, in tests); a plain
   * function is the one database of N = 1.
   */
  constructor(databases: (() => FanDatabases) | (() => FanRedis)) {
    this.databases = () => {
      const got = databases();
      return "redisAt" in got ? got : { n: 1, redisAt: () => got };
    };
  }

  private readonly databases: () => FanDatabases;

  lookup(userId: string, authorId: string): Promise<FanLookup> {
    return new Promise((answer) => {
      let index: number;
      try {
        index = databaseOf(userId, this.databases().n);
      } catch {
        // A Redis setting that cannot be right: the Worker's own lookup surfaces it.
        return answer("failed");
      }
      let queue = this.waiting.get(index);
      if (!queue) this.waiting.set(index, (queue = []));
      queue.push({ userId, authorId, answer });
      this.pump();
    });
  }

  /** Starts a trip for every database with lookups waiting and none in flight, within the limit. */
  private pump() {
    for (const [index, queue] of this.waiting) {
      if (this.sending.size >= MAX_PARALLEL_DATABASES) return;
      if (queue.length > 0 && !this.sending.has(index)) void this.send(index, queue);
    }
  }

  private async send(index: number, queue: Waiting[]) {
    this.sending.add(index);
    try {
      const batch = queue.splice(0, MAX_FAN_LOOKUPS_PER_TRIP);
      let states: FanLookup[];
      try {
        states = await cachedFollowStates(this.databases().redisAt(index), batch);
      } catch (err) {
        const outage = isRedisOutage(err);
        // Lookups that queued behind a round trip that found this database unreachable are answered
        // so too, instead of each batch waiting out its own timeout: a join waits for at most one
        // timeout before the Worker asks Postgres. Other databases' lookups are not concerned.
        if (outage) batch.push(...queue.splice(0));
        states = batch.map((): FanLookup => (outage ? "redis_down" : "failed"));
      }
      batch.forEach((waiting, i) => waiting.answer(states[i]!));
    } finally {
      this.sending.delete(index);
      if (queue.length === 0 && this.waiting.get(index) === queue) this.waiting.delete(index);
      this.pump();
    }
  }
}
