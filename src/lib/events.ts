import { databaseOf } from "./redis-topology";
import { createScriptBatch, type ScriptRunner } from "./script-batch";
import type { DomainEvent, DomainEventType, EventOf } from "./event-types";
import type { EventBus, Services } from "./services";
import { errorText, log } from "./log";

// The event types live in a module of their own and the bus's interface with the services it is
// handed, so neither of those imports this one (no import cycle).
export type { DomainEvent, DomainEventType, EventOf, FeedEvent, FeedReach, RelationEvent } from "./event-types";
export type { EventBus, EventReports } from "./services";

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
  log.error({ message: "event subscriber failed", subscriber, event, error: errorText(err) });
}
