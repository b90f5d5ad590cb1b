import { afterResponse, type Services } from "../lib/services";
import { isSuspended, moderationCopy } from "../safety/copy";
import { notifyNow } from "./clock";
import type { Alert } from "../lib/wire/alert";
import { resolveAlert, urgencyOf, type NotifyKind } from "./alerts";
import { prefetchRowsOfUsers } from "./cached-row";
import { notifyKeys } from "./keys";
import { decide, related, userPreferences } from "./preferences";
import type { PushDeviceKind } from "./send-message";
import { enqueuePushes, MAX_DELAY_SECONDS, type NotifySendMessage } from "./sends";
import { userDevices } from "./user-devices";
import { openedAuthorWindow, openedWindow, windowSeconds } from "./windows";

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
  /** Who caused it (a DM's sender, a mention's author), for the DM and mention policies. */
  from?: string;
  /** Only devices of these kinds: a user with none of them gets nothing (a broadcast's FCM devices hear it through the topic). */
  deviceKinds?: PushDeviceKind[];
  /** A push broadcast's id: its pushes count in its progress. */
  broadcastId?: string;
  /** The chosen author whose post this is (`kind: "author"`): their posts share the author's windows, whatever thread they name. */
  authorId?: string;
};

/**
 * A notification of `type` for a user, as a push event: its thread is the type's
 * (`notification:{type}`) unless the alert names one. The same for a service's
 * `POST /v1/users/{id}/notifications` and for what the backend counts itself (a follow).
 */
export function notificationEvent(type: string, alert?: Alert, from?: string): PushEvent {
  return { kind: "notification", type, alert, thread: `notification:${type}`, ...(from ? { from } : {}) };
}

/** What `enqueueFor` queued: users, and their devices (of the event's kinds) then. */
export type Enqueued = { users: number; devices: number };

type EventServices = Pick<Services, "env" | "events" | "waitUntil">;

/**
 * Enqueues `event` for each of `userIds` not online who has a device, as their preferences allow:
 * one MGET per database of the cached device lists and preferences, plus per user one SET NX (and an EVALSHA) when a batch window applies (and a Postgres lookup
 * only when a DM or mention policy asks who follows whom).
 */
export async function pushToOffline(request: EventServices, userIds: readonly string[], online: ReadonlySet<string> | boolean, event: PushEvent): Promise<void> {
  const offline = userIds.filter((u) => (typeof online === "boolean" ? !online : !online.has(u)));
  if (offline.length === 0) return;
  await afterResponse(request, (services) => enqueueFor(services, offline, event));
}

/** `pushToOffline`'s work for the offline users, on services the caller owns. */
export async function enqueueFor(services: Services, offline: readonly string[], event: PushEvent): Promise<Enqueued> {
  // Nothing a suspended user caused is pushed (the isolate's copy: no round trip).
  const cause = event.from ?? event.authorId;
  if (cause !== undefined && isSuspended(await moderationCopy(services), cause)) return { users: 0, devices: 0 };
  const alert = resolveAlert(event.kind, event.alert, event.thread);
  const base = {
    kind: event.kind,
    ...(event.type ? { type: event.type } : {}),
    alert,
    urgency: urgencyOf(event.kind, event.type),
    ...(event.deviceKinds ? { deviceKinds: event.deviceKinds } : {}),
    ...(event.broadcastId ? { broadcastId: event.broadcastId } : {}),
  } satisfies Omit<NotifySendMessage, "userId">;
  const window = windowSeconds(event.kind, event.type);
  const now = notifyNow(services.env);
  const kinds = event.deviceKinds ? new Set<string>(event.deviceKinds) : undefined;
  let devices = 0;
  // Every user's cached list and preferences in one MGET per database (not one per user). Most
  // users have no device: their list (`[]` cached too) stops here, before preferences are loaded on a miss.
  const cached = await prefetchRowsOfUsers(services, offline, (userId) => [notifyKeys.devices(userId), notifyKeys.preferences(userId)]);
  const queued = await Promise.all(
    offline.map(async (userId): Promise<{ body: NotifySendMessage; delaySeconds?: number } | undefined> => {
      const [cachedDevices, cachedPreferences] = cached.get(userId)!;
      const reached = (await userDevices(services, userId, cachedDevices)).filter((d) => !kinds || kinds.has(d.kind)).length;
      if (reached === 0) return undefined;
      const decision = await decide(await userPreferences(services, userId, cachedPreferences), event, (question) => related(services.db, userId, event.from!, question), now);
      if (!decision.send) return undefined;
      const wait = Math.max(window, decision.holdSeconds);
      // Held past what a queue delay allows: the sender sees `heldUntil` and waits again.
      const held = decision.holdSeconds > MAX_DELAY_SECONDS ? { heldUntil: now + decision.holdSeconds * 1000 } : {};
      let windowThread = alert.thread;
      if (window > 0) {
        const opened = event.authorId !== undefined ? await openedAuthorWindow(services, userId, event.authorId, alert.thread, wait) : (await openedWindow(services, userId, alert.thread, wait)) ? alert.thread : undefined;
        if (opened === undefined) return undefined;
        windowThread = opened;
      }
      devices += reached;
      // A post collapsed into its author's window shows the author's thread, the window's.
      const shown = windowThread === alert.thread ? {} : { alert: { ...alert, thread: windowThread } };
      return { body: { userId, ...base, ...shown, ...held, ...(window > 0 ? { window: windowThread } : {}) }, ...(wait > 0 ? { delaySeconds: Math.min(wait, MAX_DELAY_SECONDS) } : {}) };
    }),
  );
  const messages = queued.filter((q) => q !== undefined);
  await enqueuePushes(services.env, messages);
  return { users: messages.length, devices };
}

/** Coalescing badge-only updates after reads: one per user per this many seconds. */
export const READ_UPDATE_SECONDS = 5;
/** The window key of a user's badge-only update: never a thread (default threads have a colon and start with a letter; an alert's may not start with "~"). */
export const READ_WINDOW = "~read";

/**
 * The user read something: their APNs and FCM devices get a badge-only update with the new total
 * (whether or not an app is open — the icon matters for the closed ones), at most one per user per
 * READ_UPDATE_SECONDS (the first read opens a window; the delayed update reads the total then).
 * Web Push gets none (no silent pushes). The cached device list (one GET), then one SET NX EX, and
 * one enqueue per window.
 */
export async function badgeAfterRead(request: EventServices, userId: string): Promise<void> {
  await afterResponse(request, async (services) => {
    if (!(await userDevices(services, userId)).some((d) => d.kind !== "webpush")) return;
    if (!(await openedWindow(services, userId, READ_WINDOW, READ_UPDATE_SECONDS))) return;
    await enqueuePushes(services.env, [{ body: { userId, kind: "read", urgency: "normal", window: READ_WINDOW }, delaySeconds: READ_UPDATE_SECONDS }]);
  });
}
