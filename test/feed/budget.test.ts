/**
 * The feed's queue consumer against a database past its command budget: the Worker's own `queue()`
 * handler, fed by a queue kept in the test that behaves as Cloudflare's does (`attempts` counted
 * per delivery, a message retried more than `max_retries` times moved to the dead letters), so a
 * budget overrun can last as many deliveries as the test wants without waiting out the delays.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { events } from "../../src/app";
import { queryRows } from "../../src/counters/store";
import type { Env } from "../../src/env";
import { feedKeys, timelineMember } from "../../src/feed/keys";
import { FEED_QUEUES, type QueuedFeedMessage } from "../../src/feed/messages";
import { createQueueHandler } from "../../src/feed/queue";
import { newId } from "../support/api";
import { createChaos } from "../support/stack";
import { fileServices, redis } from "./support";

const services = fileServices();
const base = env as unknown as Env;
const handler = createQueueHandler(events);

/** wrangler.toml's `max_retries` of `feed-follow-sync`. */
const MAX_RETRIES = 5;

/** The queue's side: what is waiting, what it was sent with, and what it gave up on. */
class TestQueue {
  waiting: { body: QueuedFeedMessage; attempts: number }[] = [];
  delays: number[][] = [];
  dead: QueuedFeedMessage[] = [];

  /** The producer binding the consumer sends deferred messages through. */
  readonly binding = {
    send: async (body: QueuedFeedMessage, options?: { delaySeconds?: number }) => this.enqueue([{ body, ...options }]),
    sendBatch: async (messages: Iterable<{ body: QueuedFeedMessage; delaySeconds?: number }>) => this.enqueue([...messages]),
  };

  private enqueue(messages: { body: QueuedFeedMessage; delaySeconds?: number }[]) {
    for (const m of messages) {
      this.waiting.push({ body: structuredClone(m.body), attempts: 1 });
      if (m.delaySeconds !== undefined) this.delays.push([m.delaySeconds]);
    }
  }

  /** One batch of everything waiting (delays elapsed), through the Worker's handler with `bindings`. */
  async deliver(bindings: Partial<Env>): Promise<void> {
    const batch = this.waiting.splice(0, 100);
    const messages = batch.map((m, i) => {
      let settled = false;
      const settle = (retry: boolean) => {
        if (settled) return;
        settled = true;
        if (!retry) return;
        if (m.attempts > MAX_RETRIES) this.dead.push(m.body);
        else this.waiting.push({ body: m.body, attempts: m.attempts + 1 });
      };
      return { id: String(i), timestamp: new Date(), body: m.body, attempts: m.attempts, ack: () => settle(false), retry: () => settle(true) };
    });
    const ctx = createExecutionContext();
    const queueEnv = { ...base, ...bindings, FEED_SYNC_QUEUE: this.binding } as unknown as Env;
    await handler({ queue: FEED_QUEUES.followSync, messages, ackAll: () => messages.forEach((m) => m.ack()), retryAll: () => messages.forEach((m) => m.retry()) } as unknown as MessageBatch<QueuedFeedMessage>, queueEnv, ctx);
    await waitOnExecutionContext(ctx);
    // A message neither acked nor retried is retried, as the queue does.
    messages.forEach((m) => m.retry());
  }
}

/** A followee with posts in Postgres, and followers whose timelines and follow intents exist (as a follow leaves them) but lack its posts. */
async function followersAwaitingSync(count: number) {
  const followee = newId();
  const posts = await queryRows<{ id: string }>(services.db, `INSERT INTO posts (author_id, text) SELECT $1, 'p' || g FROM generate_series(1, 3) g RETURNING id::text AS id`, [followee]);
  const followers = Array.from({ length: count }, () => newId());
  await queryRows(services.db, `INSERT INTO follows (follower_id, followee_id) SELECT unnest($1::bigint[]), $2`, [followers, followee]);
  for (const f of followers) {
    await redis.zadd(feedKeys.timeline(f), { score: 0, member: "0" });
    await redis.expire(feedKeys.timeline(f), 600);
    await redis.set(feedKeys.intent(f, followee), "1", { ex: 600 });
  }
  const queue = new TestQueue();
  queue.waiting = followers.map((followerId) => ({ body: { kind: "sync", followerId, followeeId: followee }, attempts: 1 }));
  /** How many of the followee's posts each follower's timeline holds. */
  const synced = async () =>
    Promise.all(followers.map(async (f) => (await Promise.all(posts.map((p) => redis.zscore(feedKeys.timeline(f), timelineMember(p.id, followee))))).filter((s) => s !== null).length));
  return { queue, synced, posts };
}

describe("follow syncs while their database is past its command budget", () => {
  it("are deferred with a growing delay, never dead-lettered however long it lasts, and all delivered once it recovers", async () => {
    const { queue, synced } = await followersAwaitingSync(12);
    // A budget under one command a second: every call is refused (`ERR max requests limit exceeded`).
    const limited = await createChaos(0, { maxCommandsPerSecond: 0.5 });
    try {
      const overBudget = { UPSTASH_REDIS_REST_URL: limited.restUrl, UPSTASH_REDIS_REST_TOKEN: limited.restToken };
      // Twice as many deliveries as the queue's retries last (1 + max_retries).
      for (let round = 0; round < 2 * (MAX_RETRIES + 1); round++) await queue.deliver(overBudget);
      expect((await limited.stats()).requests, "every delivery asked the database").toBeGreaterThanOrEqual(12 * 2 * (MAX_RETRIES + 1));
    } finally {
      await limited.close();
    }
    expect(queue.dead, "dead letters from a budget").toEqual([]);
    expect(queue.waiting).toHaveLength(12);
    expect(queue.waiting.every((m) => m.attempts === 1 && m.body.deferred?.times === 2 * (MAX_RETRIES + 1))).toBe(true);
    expect(await synced()).toEqual(Array(12).fill(0));
    // Each round deferred all 12 again, with the next delay: 2, 4, 8 … s, at most 5 minutes.
    const perRound = Array.from({ length: 2 * (MAX_RETRIES + 1) }, (_, r) => queue.delays.slice(r * 12, r * 12 + 12).flat());
    expect(perRound.map((d) => new Set(d).size)).toEqual(Array(perRound.length).fill(1));
    expect(perRound.map((d) => d[0])).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300, 300]);

    // The budget recovers: one delivery each, every follower synced, nothing dead.
    await queue.deliver({});
    expect(queue.waiting).toEqual([]);
    expect(queue.dead).toEqual([]);
    expect(await synced()).toEqual(Array(12).fill(3));
  });

  it("an outage is still a failure: retried max_retries times, then dead-lettered", async () => {
    const { queue, synced } = await followersAwaitingSync(3);
    const down = await createChaos();
    try {
      await down.setRedisDown(true);
      for (let round = 0; round <= MAX_RETRIES; round++) await queue.deliver({ UPSTASH_REDIS_REST_URL: down.restUrl, UPSTASH_REDIS_REST_TOKEN: down.restToken });
    } finally {
      await down.setRedisDown(false);
      await down.close();
    }
    expect(queue.waiting).toEqual([]);
    expect(queue.dead.map((m) => m.kind)).toEqual(["sync", "sync", "sync"]);
    expect(queue.delays).toEqual([]);
    expect(await synced()).toEqual([0, 0, 0]);
  });
});
