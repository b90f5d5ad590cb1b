import type { BadgesEvent } from "../lib/event-types";
import { afterResponse, type Services } from "../lib/services";

/** A badges event as announced: `announce` stamps its time. */
export type Announcement = BadgesEvent extends infer E ? (E extends BadgesEvent ? Omit<E, "at"> : never) : never;

/**
 * Announces on the event bus what the badges did that others react to (notify's pushes to closed
 * apps: `BadgesEvent`), so the badges import nothing of theirs. It runs in the write's `waitUntil`,
 * after the response, on services of its own (the request's Postgres pool is closed as the
 * response leaves). It never fails the caller: the bus logs a subscriber that did.
 */
export async function announce(services: Pick<Services, "env" | "events" | "waitUntil">, event: Announcement): Promise<void> {
  await afterResponse(services, (own) => own.events.emit({ ...event, at: Date.now() } as BadgesEvent, own));
}
