/**
 * `community-edge/client/service-worker`: what a page's service worker does with a push from this
 * API. Import it in the service worker only (it needs nothing of the rest of the client):
 *
 *   import { installPushHandlers } from "community-edge/client/service-worker";
 *   installPushHandlers();
 *
 * Every push shows a notification, a malformed one included (a default title then): browsers
 * penalise or revoke subscriptions whose pushes show nothing, and this API never sends silent ones.
 * The app's icon badge is set to the number the push carries (the user's unread total at sending),
 * never incremented.
 *
 * The types below are the few members used of the service worker's globals (`PushEvent`,
 * `NotificationEvent`, `ServiceWorkerGlobalScope`), so the real ones fit them without the
 * WebWorker library.
 */

/** The decrypted payload of a push (built by `webPushPayload` on the server). */
export interface WebPushPayload {
  title?: string;
  body?: string;
  /** Opened on click, relative to the service worker's origin or absolute. */
  url?: string;
  /** The thread: a later push with the same tag replaces the notification instead of stacking. */
  tag?: string;
  /** The user's unread total at sending: the app's icon badge is set to it. */
  badge?: number;
  data?: Record<string, string>;
}

/** What the notification carries in `notification.data`, for a click handler of your own. */
export interface PushNotificationData {
  url: string;
  badge?: number;
  data?: Record<string, string>;
}

export interface PushHandlerOptions {
  /** Shown when a push has no title or cannot be read. Default "New notification". */
  defaultTitle?: string;
  /** Opened on click when a push names no url. Default the service worker's scope. */
  defaultUrl?: string;
  /** `icon` of every notification (an image URL). */
  icon?: string;
  /** `badge` of every notification: the small monochrome image Android shows in the status bar (not the count). */
  badgeIcon?: string;
}

export interface PushNotificationOptions {
  body?: string;
  tag?: string;
  renotify?: boolean;
  icon?: string;
  badge?: string;
  data?: unknown;
}

export interface PushScope {
  readonly registration: { readonly scope: string; showNotification(title: string, options?: PushNotificationOptions): Promise<void> };
  readonly clients: {
    matchAll(options?: { type?: "window"; includeUncontrolled?: boolean }): Promise<ReadonlyArray<{ readonly url: string; focus?: () => Promise<unknown> }>>;
    openWindow(url: string): Promise<unknown>;
  };
  readonly navigator?: { setAppBadge?(contents?: number): Promise<void>; clearAppBadge?(): Promise<void> };
  // `any`: the scope's own overloads type each event by its name; these two are typed where used.
  addEventListener(type: "push" | "notificationclick", listener: (event: any) => void): void;
}

export interface PushEventLike {
  readonly data: { text(): string } | null;
  waitUntil(promise: Promise<unknown>): void;
}

export interface NotificationClickEventLike {
  readonly notification: { readonly data: unknown; close(): void };
  waitUntil(promise: Promise<unknown>): void;
}

const DEFAULT_TITLE = "New notification";

/** The service worker's global scope (`self`). */
const workerScope = () => globalThis as unknown as PushScope;

/** Listens for `push` and `notificationclick` on the service worker (`self` by default). */
export function installPushHandlers(scope: PushScope = workerScope(), options: PushHandlerOptions = {}): void {
  scope.addEventListener("push", (event: PushEventLike) => handlePush(event, scope, options));
  scope.addEventListener("notificationclick", (event: NotificationClickEventLike) => handleNotificationClick(event, scope));
}

/** A `push` listener's body: shows the notification and sets the badge, inside `waitUntil`. */
export function handlePush(event: PushEventLike, scope: PushScope = workerScope(), options: PushHandlerOptions = {}): void {
  event.waitUntil(showPush(event.data, scope, options));
}

/** A `notificationclick` listener's body: focuses a window already at the url, or opens one. */
export function handleNotificationClick(event: NotificationClickEventLike, scope: PushScope = workerScope()): void {
  event.notification.close();
  const data = event.notification.data as Partial<PushNotificationData> | null;
  const target = new URL(typeof data?.url === "string" ? data.url : scope.registration.scope, scope.registration.scope).href;
  event.waitUntil(focusOrOpen(target, scope));
}

/**
 * Reads a push's data as this API sends it. Anything unreadable (no data, not JSON, wrong field
 * types) yields what can be used, down to `{}`: the push is still shown, with the defaults.
 */
export function parsePushPayload(data: { text(): string } | null): WebPushPayload {
  let raw: unknown;
  try {
    raw = data ? JSON.parse(data.text()) : undefined;
  } catch {
    return {};
  }
  if (typeof raw !== "object" || raw === null) return {};
  const fields = raw as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const payload: WebPushPayload = {};
  if (text(fields.title)) payload.title = text(fields.title);
  if (text(fields.body)) payload.body = text(fields.body);
  if (text(fields.url)) payload.url = text(fields.url);
  if (text(fields.tag)) payload.tag = text(fields.tag);
  if (typeof fields.badge === "number" && Number.isInteger(fields.badge) && fields.badge >= 0) payload.badge = fields.badge;
  if (typeof fields.data === "object" && fields.data !== null) payload.data = fields.data as Record<string, string>;
  return payload;
}

async function showPush(data: { text(): string } | null, scope: PushScope, options: PushHandlerOptions): Promise<void> {
  const payload = parsePushPayload(data);
  const title = payload.title ?? options.defaultTitle ?? DEFAULT_TITLE;
  const notificationData: PushNotificationData = { url: payload.url ?? options.defaultUrl ?? scope.registration.scope };
  if (payload.badge !== undefined) notificationData.badge = payload.badge;
  if (payload.data) notificationData.data = payload.data;
  const shown: PushNotificationOptions = { data: notificationData };
  if (payload.body) shown.body = payload.body;
  // The same thread replaces its notification; `renotify` makes the replacement alert again.
  if (payload.tag) Object.assign(shown, { tag: payload.tag, renotify: true });
  if (options.icon) shown.icon = options.icon;
  if (options.badgeIcon) shown.badge = options.badgeIcon;
  await Promise.all([
    scope.registration.showNotification(title, shown).catch(() =>
      // Never silent: options a browser refuses still leave the title shown.
      scope.registration.showNotification(title, { data: notificationData }),
    ),
    setBadge(scope, payload.badge),
  ]);
}

/** The Badging API where the browser has it (Chromium, Safari for installed apps); a refusal changes nothing. */
async function setBadge(scope: PushScope, badge: number | undefined): Promise<void> {
  const navigator = scope.navigator;
  if (badge === undefined || !navigator) return;
  try {
    if (badge === 0 && navigator.clearAppBadge) await navigator.clearAppBadge();
    else await navigator.setAppBadge?.(badge);
  } catch {
    // Not installed, or not allowed: the notification is what matters.
  }
}

async function focusOrOpen(url: string, scope: PushScope): Promise<void> {
  const windows = await scope.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((w) => w.url === url && w.focus);
  if (open?.focus) await open.focus();
  else await scope.clients.openWindow(url);
}
