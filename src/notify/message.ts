import type { Device, DeviceKind } from "./devices";

/**
 * What every provider sends, whatever the platform: the one shape the sending side builds (from a
 * notification, a message, a read elsewhere) and each provider turns into its own request.
 */
export type PushMessage = {
  /**
   * `alert`: a notification the user sees. `badge`: only the icon's number changes (APNs, FCM);
   * Web Push has no such push (browsers penalise or revoke silent pushes), so its provider refuses it.
   */
  type: "alert" | "badge";
  title?: string;
  body?: string;
  /** Opened when the notification is clicked. */
  url?: string;
  /**
   * The thread a notification belongs to (a post's likes, a conversation): its tag on the device and
   * the platforms' collapse key, so an undelivered one is replaced by the next, not stacked.
   */
  thread?: string;
  /** The user's unread total at the time of sending: the icon is set to it, never incremented. */
  badge: number;
  /** `high` for direct messages and mentions, `normal` for the rest. */
  urgency: "high" | "normal";
  /** How long the platform keeps an undelivered push (default PUSH_TTL_SECONDS). */
  ttlSeconds?: number;
  /** Extra string fields for the app (the kind of notification, ids). */
  data?: Record<string, string>;
};

/** 48 h: a push older than that tells the user nothing the open app would not. */
export const PUSH_TTL_SECONDS = 48 * 60 * 60;

/** One HTTP request to a push service, built but not sent (the sender sends and classifies). */
export type PushRequest = {
  url: string;
  method: "POST" | "DELETE";
  headers: Record<string, string>;
  body: Uint8Array | string;
};

/** A platform: turns a message for one of its devices into the request that delivers it. */
export interface PushProvider<K extends DeviceKind = DeviceKind> {
  readonly kind: K;
  request(device: Extract<Device, { kind: K }>, message: PushMessage, now?: number): Promise<PushRequest>;
}
