import { databaseOf } from "./redis-topology";
import { createScriptBatch, type ScriptRunner } from "./script-batch";
import type { DomainEvent, DomainEventType, EventOf } from "./event-types";
import { createServices, type EventBus, type Services } from "./services";
import { errorText, log } from "./log";

// The event types live in a module of their own and the bus's interface with the services it is
// handed, so neither of those imports this one (no import cycle).
export type { BadgesEvent, DomainEvent, DomainEventType, EventOf, FeedEvent, FeedReach, RelationEvent } from "./event-types";
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
  /**
   * The services the event was emitted with, whole: for a handler that starts a change of its own
   * which emits its own events (a block's unfollows), so those run their subscribers as any
   * emitter's would, with pipelines of their own.
   */
  readonly emitter: Services;
};

/**
 * Handlers a capability registers, keyed by event type. What a handler resolves to is its report,
 * handed back to the emitter by subscriber name (the counters' report is the counts after the
 * change, which a like answers with at no extra round trip).
 *
 * `retried`: the subscriber's handlers may run again for the same event, even late — each
 * database's part is keyed by the event's id and what they apply commutes with later changes (the
 * counters' deltas, `ctr:ev:{id}`) — so one that fails is retried by the bus. Others fail once,
 * logged: a state set late (the feed's flags and follow intents) could undo a later change.
 */
export type Subscriber = {
  name: string;
  retried?: true;
  on: { [T in DomainEventType]?: (event: EventOf<T>, services: EventServices) => Promise<unknown> };
};

/**
 * When a `retried` subscriber failed on an event with an id (a follow, like or favourite), the bus
 * runs it again after these delays, in the background (`waitUntil`; the emitter answers with the
 * reports of the first run). The event is the same, id included, so each retry completes only the
 * databases whose part did not apply.
 */
export const EVENT_RETRY_DELAYS_MS = [250, 1_000] as const;

type Failure = { subscriber: Subscriber; error: unknown };

export function createEventBus(subscribers: readonly Subscriber[]): EventBus {
  const bus: EventBus = {
    async emit(event, services) {
      const reports = new Map<string, unknown>();
      const failed = await run(subscribers, event, services, reports);
      const again = "id" in event ? failed.filter((f) => f.subscriber.retried) : [];
      for (const f of failed) if (!again.includes(f)) logSubscriberFailure(f.subscriber.name, event, f.error, false);
      if (again.length > 0) services.waitUntil(retry(bus, again, event, services));
      return reports;
    },
    async emitOrFail(event, services) {
      const reports = new Map<string, unknown>();
      const failed = await run(subscribers, event, services, reports);
      for (const f of failed) logSubscriberFailure(f.subscriber.name, event, f.error, false);
      if (failed.length > 0) throw failed[0]!.error;
      return reports;
    },
  };
  return bus;
}

/**
 * Runs the failed subscribers again, after each delay, until none fails or the delays run out. On
 * services of their own: the emitter's are closed when it answers (a Neon pool may not outlive it).
 */
async function retry(bus: EventBus, failed: Failure[], event: DomainEvent, emitter: Services): Promise<void> {
  for (const delay of EVENT_RETRY_DELAYS_MS) {
    for (const f of failed) logSubscriberFailure(f.subscriber.name, event, f.error, true);
    await new Promise((resolve) => setTimeout(resolve, delay));
    const { services, close } = createServices(emitter.env, { waitUntil: (p) => emitter.waitUntil(p) }, bus);
    try {
      failed = await run(
        failed.map((f) => f.subscriber),
        event,
        services,
        new Map(),
      );
    } finally {
      await close();
    }
    if (failed.length === 0) return;
  }
  for (const f of failed) logSubscriberFailure(f.subscriber.name, event, f.error, false);
}

/** One run of `subscribers`' handlers of the event, their reports into `reports`; the failures. */
async function run(subscribers: readonly Subscriber[], event: DomainEvent, services: Services, reports: Map<string, unknown>): Promise<Failure[]> {
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
    emitter: { value: services },
  }) as EventServices;
  const failed: Failure[] = [];
  const runs = subscribers.flatMap((subscriber) => {
    const handler = subscriber.on[event.type] as ((e: DomainEvent, s: EventServices) => Promise<unknown>) | undefined;
    return handler
      ? [handler(event, scoped).then((report) => void reports.set(subscriber.name, report), (error: unknown) => void failed.push({ subscriber, error }))]
      : [];
  });
  await Promise.all(runs);
  return failed;
}

function logSubscriberFailure(subscriber: string, event: DomainEvent, err: unknown, retrying: boolean) {
  if (retrying) log.warn({ message: "event subscriber failed; retrying", subscriber, event, error: errorText(err) });
  else log.error({ message: "event subscriber failed", subscriber, event, error: errorText(err) });
}
