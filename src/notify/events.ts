import type { Services } from "../lib/services";
import { resolveAlert, urgencyOf, type Alert, type NotifyKind } from "./alerts";
import { enqueuePushes, type NotifySendMessage } from "./sends";
import { openedWindow, windowSeconds } from "./windows";

/**
 * From a write to the queue: what a source (a notification, a message, a stream item) does after
 * its Redis write and its badge push, in the same `waitUntil`. Users the badge hub called online
 * get nothing (the open app has it); for the others a push is enqueued — at once, or, on a thread
 * with a batch window, once per window (delayed by it, later events only counted).
 */

export type PushEvent = {
  kind: NotifyKind;
  /** The notification type (`kind: "notification"`). */
  type?: string;
  alert?: Alert;
  /** The thread when the alert names none (a conversation, a post, a stream). */
  thread: string;
};

type EventServices = Pick<Services, "env" | "redisFor">;

/** Enqueues `event` for each of `userIds` not online. No Redis command unless a window applies (one EVALSHA each). */
export async function pushToOffline(services: EventServices, userIds: readonly string[], online: ReadonlySet<string> | boolean, event: PushEvent): Promise<void> {
  const offline = userIds.filter((u) => (typeof online === "boolean" ? !online : !online.has(u)));
  if (offline.length === 0) return;
  const alert = resolveAlert(event.kind, event.alert, event.thread);
  const base = { kind: event.kind, ...(event.type ? { type: event.type } : {}), alert, urgency: urgencyOf(event.kind, event.type) } satisfies Omit<NotifySendMessage, "userId">;
  const window = windowSeconds(event.kind, event.type);
  if (window === 0) {
    await enqueuePushes(services.env, offline.map((userId) => ({ body: { userId, ...base } })));
    return;
  }
  const opened = await Promise.all(offline.map((userId) => openedWindow(services, userId, alert.thread, window)));
  await enqueuePushes(
    services.env,
    offline.filter((_, i) => opened[i]).map((userId) => ({ body: { userId, ...base, window: alert.thread }, delaySeconds: window })),
  );
}

/** Coalescing badge-only updates after reads: one per user per this many seconds. */
export const READ_UPDATE_SECONDS = 5;
/** The window key of a user's badge-only update (not a thread: threads come from alerts and default keys with a colon). */
export const READ_WINDOW = "~read";

/**
 * The user read something: their APNs and FCM devices get a badge-only update with the new total
 * (whether or not an app is open — the icon matters for the closed ones), at most one per user per
 * READ_UPDATE_SECONDS (the first read opens a window; the delayed update reads the total then).
 * Web Push gets none (no silent pushes). One EVALSHA, one enqueue per window.
 */
export async function badgeAfterRead(services: EventServices, userId: string): Promise<void> {
  if (!(await openedWindow(services, userId, READ_WINDOW, READ_UPDATE_SECONDS))) return;
  await enqueuePushes(services.env, [{ body: { userId, kind: "read", urgency: "normal", window: READ_WINDOW }, delaySeconds: READ_UPDATE_SECONDS }]);
}
