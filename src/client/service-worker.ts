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
import type { WebPushPayload } from "../lib/wire/web-push";

export type { WebPushPayload };

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
  const target = sameOriginUrl(typeof data?.url === "string" ? data.url : undefined, scope.registration.scope) ?? new URL(scope.registration.scope).href;
  event.waitUntil(focusOrOpen(target, scope));
}

/** Backslash, control characters and whitespace: browsers read a backslash as a slash and drop tabs and newlines, so a path starting with a slash and a backslash names another host. */
const UNSAFE_IN_URL = /[\\\s\x00-\x1f\x7f-\x9f]/;
/** The same once percent-decoded, but for spaces (`?q=a%20b`): a router that decodes before navigating reads these as a way out too. */
const UNSAFE_DECODED = /[\\\x00-\x1f\x7f-\x9f]/;

/**
 * `url` resolved against the scope when it stays on the scope's origin and holds nothing a
 * browser reads as a way out (checked before and after percent-decoding); undefined otherwise.
 * What a push names is opened only then: whoever wrote the alert, a click never leaves the app.
 */
export function sameOriginUrl(url: string | undefined, scopeUrl: string): string | undefined {
  if (url === undefined || UNSAFE_IN_URL.test(url)) return undefined;
  try {
    if (UNSAFE_DECODED.test(decodeURIComponent(url))) return undefined;
    const resolved = new URL(url, scopeUrl);
    return resolved.origin === new URL(scopeUrl).origin ? resolved.href : undefined;
  } catch {
    return undefined;
  }
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
  // A url that would leave the app is not kept: a click handler of the page's own reads this too.
  const url = payload.url !== undefined && sameOriginUrl(payload.url, scope.registration.scope) ? payload.url : undefined;
  const notificationData: PushNotificationData = { url: url ?? options.defaultUrl ?? scope.registration.scope };
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
