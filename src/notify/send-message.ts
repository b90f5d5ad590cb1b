import type { NotifyKind, ResolvedAlert } from "./alerts";

/**
 * A `notify-send` queue message: one user's push (`sends.ts` enqueues, `sender.ts` sends). On its
 * own, with no imports but types, so the Worker's `Env` can name it without an import cycle.
 */
export type NotifySendMessage = {
  userId: string;
  /** The source; `read`: a badge-only update after the user read something (APNs and FCM only). */
  kind: NotifyKind | "read";
  /** The notification type, for `kind: "notification"`. */
  type?: string;
  /** What the push shows (absent for `read`). */
  alert?: ResolvedAlert;
  urgency: "high" | "normal";
  /** Only these of the user's devices: a retry of those a service asked to retry. */
  deviceIds?: string[];
  /** Attempts these devices have had (a retry's), from 1. */
  attempt?: number;
  /** Held by quiet hours longer than a queue delay allows: not sent before this (ms). */
  heldUntil?: number;
  /** A collapsed burst: the window key whose count the sender reads and clears ("… and N others"). */
  window?: string;
  /** Only the user's devices of these kinds (a broadcast whose FCM devices hear it through the topic). */
  deviceKinds?: PushDeviceKind[];
  /** The push broadcast this push is part of: its outcome counts in the broadcast's progress. */
  broadcastId?: string;
};

/** A device kind (devices.ts's DeviceKind, named here without importing it). */
export type PushDeviceKind = "webpush" | "fcm" | "apns";

/**
 * A broadcast sent with `"push": true`, one page of users with devices at a time: the consumer
 * enqueues a push for each of the page's users (offline, preferences allowing) and the next page
 * BROADCAST_PAGE_DELAY_SECONDS later, so a broadcast to every user moves at a bounded rate.
 */
export type BroadcastPageMessage = {
  kind: "broadcast-page";
  broadcastId: string;
  alert: ResolvedAlert;
  /** The last user id of the page before (keyset on user id); null: the first page. */
  after: string | null;
  /** When the broadcast's push started (ms), for its progress; absent on messages queued before it was kept. */
  startedAt?: number;
};

/** A broadcast's one send to the FCM broadcast topic (every subscribed FCM device), retried on its own. */
export type BroadcastTopicMessage = { kind: "broadcast-topic"; broadcastId: string; alert: ResolvedAlert; topic: string; attempt?: number };

/**
 * A post of an author some users chose (`authors.ts`), one page of those choosers at a time
 * (keyset on user id, `after`: the last of the previous page): the consumer enqueues a push for
 * each of the page's users (offline, preferences allowing) and then the next page.
 */
export type AuthorPageMessage = { kind: "author-page"; postId: string; authorId: string; alert: ResolvedAlert; after: string | null };

/** What the `notify-send` queue carries. */
export type NotifyQueueMessage = NotifySendMessage | BroadcastPageMessage | BroadcastTopicMessage | AuthorPageMessage;
