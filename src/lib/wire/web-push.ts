/**
 * What a Web Push carries, as the server encrypts it (`webPushPayload` in `src/notify/webpush.ts`)
 * and the app's service worker reads it (`community-edge/client/service-worker`). Types only: the
 * service worker imports it as a type, so nothing of the server reaches its bundle.
 */

/** The decrypted payload of a push. */
export interface WebPushPayload {
  title?: string;
  body?: string;
  /** Opened on click, relative to the service worker's origin or absolute on it; a url of another origin opens the scope instead. */
  url?: string;
  /** The thread: a later push with the same tag replaces the notification instead of stacking. */
  tag?: string;
  /** The user's unread total at sending: the app's icon badge is set to it. */
  badge?: number;
  data?: Record<string, string>;
}
