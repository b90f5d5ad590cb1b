import type { Services } from "./services";

/**
 * Domain events: every relation change emits one after its Postgres commit. Capabilities
 * (counters, badges, feeds) subscribe here instead of being called from the routes, so the
 * routes never change when a new capability plugs in.
 */
export type DomainEvent =
  | { type: "follow.created"; followerId: string; followeeId: string; at: number }
  | { type: "follow.deleted"; followerId: string; followeeId: string; at: number }
  | { type: "post.created"; postId: string; authorId: string; at: number }
  | { type: "post.deleted"; postId: string; authorId: string; at: number }
  | { type: "like.created"; userId: string; postId: string; authorId: string; at: number }
  | { type: "like.deleted"; userId: string; postId: string; authorId: string; at: number }
  | { type: "favorite.created"; userId: string; postId: string; authorId: string; at: number }
  | { type: "favorite.deleted"; userId: string; postId: string; authorId: string; at: number };

export type DomainEventType = DomainEvent["type"];
export type EventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;

/** Handlers a capability registers, keyed by event type. */
export type Subscriber = {
  name: string;
  on: { [T in DomainEventType]?: (event: EventOf<T>, services: Services) => Promise<void> };
};

export interface EventBus {
  /**
   * Runs every subscriber of the event concurrently and waits for them, so a response is sent only
   * after its side effects are recorded. A failing subscriber is logged and does not fail the
   * request: the relation is already committed, and the daily reconcile repairs derived state.
   */
  emit(event: DomainEvent, services: Services): Promise<void>;
}

export function createEventBus(subscribers: readonly Subscriber[]): EventBus {
  return {
    async emit(event, services) {
      const runs = subscribers.flatMap((subscriber) => {
        const handler = subscriber.on[event.type] as ((e: DomainEvent, s: Services) => Promise<void>) | undefined;
        return handler ? [handler(event, services).catch((err: unknown) => logSubscriberFailure(subscriber.name, event, err))] : [];
      });
      await Promise.all(runs);
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
