/**
 * One event over two databases: a like moves the post's counters (the post's database) and its
 * author's (the author's). When one part fails after the other applied, a retry of the event —
 * the event bus's own, or any later emit of the same event — completes the missing part and does
 * not apply the other twice: each database's part is keyed by the event's id (`ctr:ev:{id}`).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { events } from "../../src/app";
import { flushAll } from "../../src/counters/flush";
import { counterKeys } from "../../src/counters/keys";
import { queryRows } from "../../src/counters/store";
import type { Env } from "../../src/env";
import { newEventId, type DomainEvent } from "../../src/lib/event-types";
import { createEventBus, type Subscriber } from "../../src/lib/events";
import { redisAt } from "../../src/lib/redis";
import { createServices } from "../../src/lib/services";
import { newId } from "../support/api";
import { newIdOn, useChaosDatabases } from "../support/databases";
import { readCounts, withServices } from "./support";

/** Emits `event` through `bus` on services bound to `overrides`, and waits for what it left running (its retries). */
async function emitAndSettle(bus: typeof events, event: DomainEvent, overrides: Partial<Env> = {}) {
  const ctx = createExecutionContext();
  const { services, close } = createServices({ ...(env as unknown as Env), ...overrides }, ctx, bus);
  try {
    return await bus.emit(event, services);
  } finally {
    await waitOnExecutionContext(ctx);
    await close();
  }
}

describe("the event bus's retry", () => {
  it("runs a failed subscriber that may run again once more with the same event, and leaves the others as they failed", async () => {
    const seen: Record<string, DomainEvent[]> = { flaky: [], once: [], fine: [] };
    const failing = (name: string, times: number): Subscriber["on"] => ({
      "like.created": async (e) => {
        seen[name]!.push(e);
        if (seen[name]!.length <= times) throw new Error(`${name} failed`);
        return name;
      },
    });
    const bus = createEventBus([
      { name: "flaky", retried: true, on: failing("flaky", 1) },
      { name: "once", on: failing("once", 1) },
      { name: "fine", retried: true, on: failing("fine", 0) },
    ]);
    const event: DomainEvent = { type: "like.created", id: newEventId(), userId: newId(), postId: newId(), authorId: newId(), at: Date.now() };
    const reports = await emitAndSettle(bus, event);
    expect([...reports.keys()], "the emitter gets the first run's reports").toEqual(["fine"]);
    expect(seen.flaky).toEqual([event, event]);
    expect(seen.once, "not retried: its handlers are not keyed by the event").toEqual([event]);
    expect(seen.fine).toEqual([event]);

    // An event without an id (a post) is never retried.
    const post: DomainEvent = { type: "post.deleted", postId: newId(), authorId: newId(), at: Date.now() };
    let runs = 0;
    const postBus = createEventBus([
      {
        name: "flaky",
        retried: true,
        on: {
          "post.deleted": async () => {
            runs++;
            throw new Error("flaky failed");
          },
        },
      },
    ]);
    await emitAndSettle(postBus, post);
    expect(runs).toBe(1);
  });
});

const databases = useChaosDatabases();

describe.skipIf(!databases.enough)("a like whose author's database fails after the post's applied", () => {
  it("is completed by the retry of the event, the post's part applied once", async () => {
    const { pairs } = databases;
    // The post on database 0, its author on database 1 (two parts, two databases).
    const [postId, authorId, liker] = [newIdOn(0, 3), newIdOn(1, 3), newId()];
    const event: DomainEvent = { type: "like.created", id: newEventId(), userId: liker, postId, authorId, at: Date.now() };
    const counts = async () => {
      const [post, user] = await Promise.all([readCounts("post", [postId], { env: databases.env }), readCounts("user", [authorId], { env: databases.env })]);
      expect([post.stale, user.stale]).toEqual([false, false]);
      return { likes: post.counts[postId]!.likes, likesReceived: user.counts[authorId]!.likes_received };
    };
    expect(await counts()).toEqual({ likes: 0, likesReceived: 0 }); // both cached (warmed by the read)

    // The author's database is down and so is Postgres (where its part would go instead): that
    // part cannot be applied anywhere; the post's is. The bus retries it, in vain while both are down.
    const failing = { ...databases.env, NEON_WS_PROXY: pairs[1]!.wsProxy, NEON_HTTP_PROXY: pairs[1]!.httpProxy };
    await pairs[1]!.setRedisDown(true);
    await pairs[1]!.setPostgresDown(true);
    try {
      const reports = await emitAndSettle(events, event, failing);
      expect(reports.has("counters"), "the counters' part failed").toBe(false);
    } finally {
      await pairs[1]!.setRedisDown(false);
      await pairs[1]!.setPostgresDown(false);
    }
    expect(await counts(), "the post's part applied, the author's not").toEqual({ likes: 1, likesReceived: 0 });
    const applied = (index: number) => redisAt({ ...(env as unknown as Env), ...databases.env }, index).exists(counterKeys.eventApplied(event.id));
    expect([await applied(0), await applied(1)]).toEqual([1, 0]);

    // The event again (as the bus's retry runs it): the author's part completes, the post's is skipped.
    const again = await emitAndSettle(events, event, databases.env);
    expect(again.has("counters")).toBe(true);
    expect(await counts()).toEqual({ likes: 1, likesReceived: 1 });
    // Once more: nothing moves on either database.
    await emitAndSettle(events, event, databases.env);
    expect(await counts()).toEqual({ likes: 1, likesReceived: 1 });

    // And Postgres gets each once.
    await withServices(databases.env, (services) => flushAll(services));
    const stored = await withServices({}, (services) =>
      queryRows<{ entity: string; field: string; value: string }>(
        services.db,
        `SELECT entity, field, value::text AS value FROM counters WHERE (entity = 'post' AND entity_id = $1) OR (entity = 'user' AND entity_id = $2) ORDER BY entity`,
        [postId, authorId],
      ),
    );
    expect(stored.filter((r) => r.value !== "0")).toEqual([
      { entity: "post", field: "likes", value: "1" },
      { entity: "user", field: "likes_received", value: "1" },
    ]);
  });
});
