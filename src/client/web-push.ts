import type { Client } from "openapi-fetch";
import { base64UrlDecode, base64UrlEncode } from "../lib/base64url";
import { createClient, type ApiError, type ClientOptions } from "./http";
import type { components, paths } from "./schema";

/**
 * A page's side of Web Push: subscribe the browser with the deployment's VAPID key and register the
 * subscription as one of the user's devices (`PUT /v1/me/devices/{deviceId}`). The service worker's
 * side (showing what arrives) is `community-edge/client/service-worker`.
 *
 * The types below are the few members used of the DOM's `ServiceWorkerRegistration`,
 * `PushManager` and `PushSubscription`, so a browser's objects fit them and the client still
 * compiles without the DOM library (Workers, React Native).
 */
export interface WebPushSubscriptionLike {
  readonly endpoint: string;
  /** The key it was made with (`null` when none); absent in old browsers, which then resubscribe. */
  readonly options?: { readonly applicationServerKey: ArrayBuffer | null };
  toJSON(): { endpoint?: string; keys?: Record<string, string> };
  unsubscribe(): Promise<boolean>;
}

export interface WebPushManagerLike {
  getSubscription(): Promise<WebPushSubscriptionLike | null>;
  subscribe(options: { userVisibleOnly: boolean; applicationServerKey: ArrayBuffer }): Promise<WebPushSubscriptionLike>;
}

/** A `ServiceWorkerRegistration` (`await navigator.serviceWorker.ready`). */
export interface WebPushRegistrationLike {
  readonly pushManager: WebPushManagerLike;
}

export type Device = components["schemas"]["Device"];

/** Which API to register with: a client of yours, or what `createClient` takes. */
export type WebPushApi = { client: Client<paths> } | ClientOptions;

export type WebPushOptions = WebPushApi & {
  /**
   * The app's own id for this install (1–64 of `A-Za-z0-9._:-`). Default: `webpush-` and a hash of
   * the subscription's endpoint, the same for as long as the subscription lives.
   */
  deviceId?: string;
};

/** A refused registration: the API's error envelope and the answer's status. */
export class WebPushRegistrationError extends Error {
  constructor(
    readonly status: number,
    readonly error: ApiError | undefined,
  ) {
    super(`push device registration answered ${status}${error ? ` ${error.code}: ${error.message}` : ""}`);
    this.name = "WebPushRegistrationError";
  }
}

/**
 * Subscribes this browser to push with the deployment's VAPID key (`vapidKey`: the base64url
 * `publicKey` of `GET /v1/devices/webpush-key`, or its bytes) and registers the subscription with
 * `PUT /v1/me/devices/{deviceId}`; resolves to the registered device. A subscription the browser
 * already holds is reused when it was made with the same key; one made with another key (the
 * deployment changed its keys) is dropped and replaced, and its device deleted, since a browser
 * holds one subscription per service worker. Run it after every start of the app: registering
 * again is idempotent and keeps the device the newest of the user's 20. Subscribing asks for the
 * notification permission when the page has none (call it from a user gesture) and rejects when
 * the user refuses; a refused registration rejects with a `WebPushRegistrationError`.
 *
 * @example
 * const api = createClient({ baseUrl, token });
 * const { data } = await api.GET("/v1/devices/webpush-key");
 * const registration = await navigator.serviceWorker.register("/sw.js");
 * await registerWebPush(registration, data!.publicKey, { client: api });
 */
export async function registerWebPush(registration: WebPushRegistrationLike, vapidKey: string | ArrayBuffer | Uint8Array, options: WebPushOptions): Promise<Device> {
  const client = apiClient(options);
  const key = vapidKey instanceof Uint8Array ? vapidKey : typeof vapidKey === "string" ? base64UrlDecode(vapidKey.replace(/=+$/, "")) : new Uint8Array(vapidKey);
  const pushManager = registration.pushManager;
  let subscription = await pushManager.getSubscription();
  if (subscription && !sameBytes(subscription.options?.applicationServerKey, key)) {
    // Subscribing with another key while one exists fails (InvalidStateError): drop it first, and
    // its device, whose endpoint is dead from now on.
    const stale = subscription;
    subscription = null;
    await stale.unsubscribe();
    if (!options.deviceId) await client.DELETE("/v1/me/devices/{deviceId}", { params: { path: { deviceId: await webPushDeviceId(stale.endpoint) } } });
  }
  // A copy in its own ArrayBuffer: the DOM's BufferSource takes no views of shared buffers.
  subscription ??= await pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key.slice().buffer });
  const { endpoint = subscription.endpoint, keys = {} } = subscription.toJSON();
  const deviceId = options.deviceId ?? (await webPushDeviceId(endpoint));
  const { data, error, response } = await client.PUT("/v1/me/devices/{deviceId}", {
    params: { path: { deviceId } },
    body: { kind: "webpush", endpoint, keys: { p256dh: keys.p256dh ?? "", auth: keys.auth ?? "" } },
  });
  if (!data) throw new WebPushRegistrationError(response.status, error?.error);
  return data.device;
}

/**
 * Undoes `registerWebPush`: unsubscribes this browser and deletes its device. Resolves to the
 * device id and whether the API had it (`false` also when there was no subscription and no
 * `deviceId` to delete).
 */
export async function unregisterWebPush(registration: WebPushRegistrationLike, options: WebPushOptions): Promise<{ deviceId: string | null; deleted: boolean }> {
  const subscription = await registration.pushManager.getSubscription();
  const deviceId = options.deviceId ?? (subscription ? await webPushDeviceId(subscription.endpoint) : null);
  await subscription?.unsubscribe();
  if (deviceId === null) return { deviceId, deleted: false };
  const { data, error, response } = await apiClient(options).DELETE("/v1/me/devices/{deviceId}", { params: { path: { deviceId } } });
  if (!data) throw new WebPushRegistrationError(response.status, error?.error);
  return { deviceId, deleted: data.deleted };
}

/** `webpush-` and the first 32 base64url characters of the endpoint's SHA-256: one id per subscription. */
export async function webPushDeviceId(endpoint: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(endpoint));
  return `webpush-${base64UrlEncode(digest).slice(0, 32)}`;
}

function apiClient(options: WebPushApi): Client<paths> {
  return "client" in options ? options.client : createClient(options);
}

function sameBytes(held: ArrayBuffer | null | undefined, key: Uint8Array): boolean {
  if (!held || held.byteLength !== key.length) return false;
  const bytes = new Uint8Array(held);
  return bytes.every((b, i) => b === key[i]);
}
