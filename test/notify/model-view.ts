/**
 * What a device is shown by a push, for the notifications model (model-run.ts): the model's
 * expected push written out as each platform carries it, and a local push service's record read
 * back into the same shape, every field a device or its platform acts on — the Web Push payload
 * the service decrypted and its TTL, Urgency and Topic; the whole FCM v1 message; the APNs payload
 * and its apns-* headers. Written from docs/push-delivery.md, not from the providers' code.
 */
import { base64UrlEncode } from "../../src/lib/base64url";
import type { ReceivedPush } from "../support/push-services";

export type DeviceKind = "webpush" | "fcm" | "apns";

/** A push as the model expects a device to get it. */
export type ExpectedPush =
  | { type: "alert"; title: string; body?: string; url?: string; thread: string; badge: number; urgency: "high" | "normal"; data: { kind: string; type?: string } }
  | { type: "badge"; badge: number };

/** A device the model knows: its kind and its address at the service (client hash or token). */
export type ModelDevice = { kind: DeviceKind; address: string; topic?: string };

const TTL = "172800";
const BASE64URL_32 = /^[A-Za-z0-9_-]{1,32}$/;

/** RFC 8030 `Topic`: the thread when it is ≤ 32 base64url characters, else the first 32 of its SHA-256 (base64url). */
async function topicOf(thread: string): Promise<string> {
  if (BASE64URL_32.test(thread)) return thread;
  return base64UrlEncode(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(thread))).slice(0, 32);
}

/** Drops undefined fields, as JSON does on the wire. */
const clean = <T extends Record<string, unknown>>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

/** What the service records for `push` delivered to `device`. */
export async function expectedSeen(device: ModelDevice, push: ExpectedPush): Promise<unknown> {
  if (device.kind === "webpush") {
    if (push.type !== "alert") throw new Error("the model never expects a badge-only Web Push");
    return {
      service: "webpush",
      status: 201,
      payload: clean({ title: push.title, body: push.body, url: push.url, tag: push.thread, badge: push.badge, data: push.data }),
      ttl: TTL,
      urgency: push.urgency,
      topic: await topicOf(push.thread),
      encoding: "aes128gcm",
    };
  }
  if (device.kind === "fcm") {
    const alert = push.type === "alert";
    return {
      service: "fcm",
      status: 200,
      message: clean({
        token: device.address,
        notification: alert ? { title: push.title, body: push.body ?? "" } : undefined,
        android: {
          priority: alert && push.urgency === "high" ? "HIGH" : "NORMAL",
          ttl: `${TTL}s`,
          collapse_key: alert ? push.thread : undefined,
          notification: alert ? { notification_count: push.badge, tag: push.thread } : undefined,
        },
        apns: { payload: { aps: { badge: push.badge, "thread-id": alert ? push.thread : undefined } } },
        data: alert ? { ...push.data, badge: String(push.badge), url: push.url, thread: push.thread } : { badge: String(push.badge) },
      }),
    };
  }
  const alert = push.type === "alert";
  return {
    service: "apns",
    status: 200,
    payload: clean({
      aps: alert ? { badge: push.badge, alert: { title: push.title, body: push.body ?? "" }, sound: "default", "thread-id": push.thread } : { badge: push.badge },
      url: alert ? push.url : undefined,
      ...(alert ? push.data : {}),
    }),
    pushType: "alert",
    priority: alert && push.urgency === "high" ? "10" : "5",
    collapseId: alert ? push.thread : undefined,
    topic: device.topic,
  };
}

/** What the service records when a device is gone: Web Push 410, FCM 404 UNREGISTERED, APNs 410 Unregistered. */
export function expectedGone(device: ModelDevice): unknown {
  if (device.kind === "webpush") return { service: "webpush", status: 410 };
  if (device.kind === "fcm") return { service: "fcm", status: 404, error: "UNREGISTERED" };
  return { service: "apns", status: 410, error: "Unregistered" };
}

/** What the service records when it throttles a device: 429 with its reason (FCM's errorCode, APNs' reason). */
export function expectedThrottled(device: ModelDevice): unknown {
  if (device.kind === "fcm") return { service: "fcm", status: 429, error: "QUOTA_EXCEEDED" };
  if (device.kind === "apns") return { service: "apns", status: 429, error: "TooManyRequests" };
  throw new Error("the model throttles only FCM and APNs devices");
}

/** A service's record in the shape `expectedSeen`/`expectedGone` write. */
export function seen(record: ReceivedPush): unknown {
  const h = record.headers ?? {};
  if (record.status >= 300) return clean({ service: record.service, status: record.status, error: record.service === "webpush" ? undefined : record.error });
  if (record.service === "webpush") return clean({ service: "webpush", status: record.status, payload: record.payload, ttl: h.ttl, urgency: h.urgency, topic: h.topic, encoding: h.contentEncoding });
  if (record.service === "fcm") return { service: "fcm", status: record.status, message: record.payload };
  return clean({ service: "apns", status: record.status, payload: record.payload, pushType: h["apns-push-type"], priority: h["apns-priority"], collapseId: h["apns-collapse-id"], topic: h["apns-topic"] });
}
