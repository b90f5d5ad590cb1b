import { cachedFollowStates, type FollowState } from "../badges/authors";
import type { Redis } from "../lib/redis";
import { isRedisOutage } from "../lib/redis-failures";

/** Most lookups in one round trip: bounds the request body and how long the last of them waits. */
export const MAX_FAN_LOOKUPS_PER_TRIP = 200;

/**
 * A viewer's fan status from the follow cache, or why the cache could not say: `redis_down` (the
 * caller asks Postgres), `failed` (any other error: the caller's full lookup surfaces it).
 */
export type FanLookup = FollowState | "redis_down" | "failed";

type Waiting = { userId: string; authorId: string; answer: (state: FanLookup) => void };

/**
 * The follow-cache lookups of one room object, sent to Redis together. A lookup leaves at once
 * when none is in flight, so a lone join waits for nothing; lookups that arrive during a round
 * trip go out together in the next one (one pipeline). Under a burst of joins the object thus
 * pays one round trip per batch instead of one per join, while billed commands stay one HMGET
 * per lookup. Never rejects: errors become answers, per lookup.
 */
export class FanLookups {
  private waiting: Waiting[] = [];
  private sending = false;

  constructor(private readonly redis: () => Pick<Redis, "hmget" | "pipeline">) {}

  lookup(userId: string, authorId: string): Promise<FanLookup> {
    return new Promise((answer) => {
      this.waiting.push({ userId, authorId, answer });
      if (!this.sending) void this.send();
    });
  }

  private async send() {
    this.sending = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_FAN_LOOKUPS_PER_TRIP);
        let states: FanLookup[];
        try {
          states = await cachedFollowStates(this.redis(), batch);
        } catch (err) {
          const outage = isRedisOutage(err);
          // Lookups that queued behind a round trip that found Redis unreachable are answered so
          // too, instead of each batch waiting out its own timeout: a join waits for at most one
          // timeout before the Worker asks Postgres.
          if (outage) batch.push(...this.waiting.splice(0));
          states = batch.map((): FanLookup => (outage ? "redis_down" : "failed"));
        }
        batch.forEach((waiting, i) => waiting.answer(states[i]!));
      }
    } finally {
      this.sending = false;
    }
  }
}
