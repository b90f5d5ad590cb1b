import { databaseOf } from "./redis-topology";
import { createScriptBatch, type ScriptRunner } from "./script-batch";
import type { Services } from "./services";

/**
 * Domain events: every relation change emits one after its Postgres commit. Capabilities
 * (counters, badges, feeds) subscribe here instead of being called from the routes, so the
 * routes never change when a new capability plugs in.
 */
export type DomainEvent =
  | { type: "follow.created"; followerId: string; followeeId: string; at: number }
  | { type: "follow.deleted"; followerId: string; followeeId: string; at: number }
  | { type: "post.created"; postId: string; authorId: string; text: string; createdAt: string; at: number }
  | { type: "post.deleted"; postId: string; authorId: string; at: number }
  | { type: "like.created"; userId: string; postId: string; authorId: string; at: number }
  | { type: "like.deleted"; userId: string; postId: string; authorId: string; at: number }
  | { type: "favorite.created"; userId: string; postId: string; authorId: string; at: number }
  | { type: "favorite.deleted"; userId: string; postId: string; authorId: string; at: number };

export type DomainEventType = DomainEvent["type"];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;

/**
 * What a subscriber may use while reacting to an event: the invocation's services, except that
 * Redis is scripts only — every subscriber's scripts for one event go out as one pipeline per
 * database they touch (one in all at N = 1; at N > 1 the pipelines go out in parallel).
 */
export type EventServices = Omit<Services, "redis" | "redisAt" | "redisFor"> & {
  readonly redis: ScriptRunner;
  redisAt(index: number): ScriptRunner;
  redisFor(ownerId: string): ScriptRunner;
};

/**
 * Handlers a capability registers, keyed by event type. What a handler resolves to is its report,
 * handed back to the emitter by subscriber name (the counters' report is the counts after the
 * change, which a like answers with at no extra round trip).
 */
export type Subscriber = {
  name: string;
  on: { [T in DomainEventType]?: (event: EventOf<T>, services: EventServices) => Promise<unknown> };
};

/** Each subscriber's report for one event, by subscriber name; absent when it failed or has no handler. */
export type EventReports = ReadonlyMap<string, unknown>;

export interface EventBus {
  /**
   * Runs every subscriber of the event concurrently and waits for them, so a response is sent only
   * after its side effects are recorded. The scripts the subscribers start before their first
   * other I/O share ONE Redis round trip (one Upstash pipeline): a follow moves counters, badges
   * and the feed for the price of one request. A failing subscriber is logged and does not fail the
   * request: the relation is already committed, and the daily reconcile repairs derived state.
   */
  emit(event: DomainEvent, services: Services): Promise<EventReports>;
}

export function createEventBus(subscribers: readonly Subscriber[]): EventBus {
  return {
    async emit(event, services) {
      // One batch per database, made on first use; each sends its scripts as one pipeline.
      const batches = new Map<number, ScriptRunner>();
      const redisAt = (index: number) => {
        let batch = batches.get(index);
        if (!batch) batches.set(index, (batch = createScriptBatch(() => services.redisAt(index))));
        return batch;
      };
      // The invocation's services with Redis narrowed to the batches; `db` and the rest stay lazy.
      const scoped = Object.create(services, {
        redis: { get: () => redisAt(0) },
        redisAt: { value: redisAt },
        redisFor: { value: (ownerId: string) => redisAt(databaseOf(ownerId, services.databases)) },
      }) as EventServices;
      const reports = new Map<string, unknown>();
      const runs = subscribers.flatMap((subscriber) => {
        const handler = subscriber.on[event.type] as ((e: DomainEvent, s: EventServices) => Promise<unknown>) | undefined;
        return handler
          ? [handler(event, scoped).then((report) => void reports.set(subscriber.name, report), (err: unknown) => logSubscriberFailure(subscriber.name, event, err))]
          : [];
      });
      await Promise.all(runs);
      return reports;
    },
  };
}

function logSubscriberFailure(subscriber: string, event: DomainEvent, err: unknown) {
  console.error(
    JSON.stringify({
      level: "error",
      message: "event subscriber failed",
      subscriber,
      event,
      error: err instanceof Error ? err.message : String(err),
    }),
  );
}
