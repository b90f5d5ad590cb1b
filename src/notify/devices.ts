import { z } from "@hono/zod-openapi";
import { base64UrlDecode } from "../lib/base64url";
import { ApiError } from "../lib/errors";
import { isConfigured, type PushConfig } from "./config";
import { endpointProblem } from "./push-hosts";
import { APNS_TOPIC_RULE, FCM_TOKEN_PATTERN, FCM_TOKEN_RULE, isApnsTopic } from "./token-format";

/**
 * Devices: the places a user's notifications go. One row per endpoint/token (registering it again,
 * by anyone, moves it), at most MAX_DEVICES_PER_USER per user (the oldest registration goes).
 */

export const DEVICE_KINDS = ["webpush", "fcm", "apns"] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

/** Past this many devices a user's oldest registration is dropped: one person's phones, tablets and browsers. */
export const MAX_DEVICES_PER_USER = 20;

/** A device id is the app's own name for an install: 1–64 of A-Z a-z 0-9 . _ : - (the Idempotency-Key alphabet). */
export const DEVICE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

/** Longest endpoint or token accepted (Web Push endpoints run to ~500 characters, FCM tokens ~160, APNs 64 hex). */
const MAX_ADDRESS_LENGTH = 1024;

type Registered = { deviceId: string; registeredAt: string };
export type WebPushDevice = Registered & { kind: "webpush"; endpoint: string; keys: { p256dh: string; auth: string } };
export type FcmDevice = Registered & { kind: "fcm"; token: string };
export type ApnsDevice = Registered & { kind: "apns"; token: string; environment: "production" | "sandbox"; topic: string };
export type Device = WebPushDevice | FcmDevice | ApnsDevice;
export type DeviceRegistration = DistributedOmit<Device, keyof Registered>;
type DistributedOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The endpoint or token: what makes two registrations the same device. */
export function addressOf(device: DeviceRegistration): string {
  return device.kind === "webpush" ? device.endpoint : device.token;
}

function base64UrlBytes(length: number, what: string, check: (bytes: Uint8Array) => boolean = () => true) {
  return z.string().superRefine((value, ctx) => {
    let bytes: Uint8Array | undefined;
    try {
      bytes = base64UrlDecode(value.replace(/=+$/, ""));
    } catch {
      // reported below
    }
    if (!bytes || bytes.length !== length || !check(bytes)) ctx.addIssue({ code: "custom", message: `must be ${what}, base64url` });
  });
}

export const DeviceIdParam = z
  .string()
  .regex(DEVICE_ID_PATTERN, "must be 1–64 characters of A-Z a-z 0-9 . _ : -")
  .openapi({ param: { name: "deviceId", in: "path" }, example: "iphone-7f3a" });

const WebPushRegistration = z
  .object({
    kind: z.literal("webpush"),
    endpoint: z
      .string()
      .max(MAX_ADDRESS_LENGTH)
      .refine(isUrl, "must be a URL")
      .openapi({ description: "The PushSubscription's endpoint: https on a browser push service's host (WEBPUSH_ALLOWED_HOSTS; the local push services too where ENVIRONMENT=development)", example: "https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH…" }),
    keys: z.object({
      p256dh: base64UrlBytes(65, "a 65-byte uncompressed P-256 point", (b) => b[0] === 4).openapi({ example: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4" }),
      auth: base64UrlBytes(16, "16 bytes").openapi({ example: "BTBZMqHH6r4Tts7J_aSIgg" }),
    }),
  })
  .openapi("WebPushDeviceRegistration", { description: "A browser's PushSubscription (`subscription.toJSON()` plus `kind`)" });

const FcmRegistration = z
  .object({
    kind: z.literal("fcm"),
    token: z
      .string()
      .regex(FCM_TOKEN_PATTERN, FCM_TOKEN_RULE)
      .openapi({ example: "fMz3Jq0wR6yQhQq8Wb4xcT:APA91bE7kqkWlX7mZc0yq3nS5cG2mJ8vK1dR4tY6uI9oP0aS3dF5gH7jK9lZ1xC3vB5nM7qW9eR1tY3uI5oP7aS9dF1gH3jK5lZ7xC9vB1nM3qW5eR7tY9uI1oP3aS5dF7gH9jK" }),
  })
  .openapi("FcmDeviceRegistration");

const ApnsRegistration = z
  .object({
    kind: z.literal("apns"),
    token: z.string().regex(/^[0-9a-fA-F]{64,200}$/, "must be the device token in hex").openapi({ example: "5f0c8a3b4e6d7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081" }),
    environment: z.enum(["production", "sandbox"]).openapi({ description: "Which APNs the token belongs to: sandbox for development builds" }),
    // The topic becomes the `apns-topic` header of every push: a bundle id, even where APNS_TOPIC is empty (any app).
    topic: z.string().refine(isApnsTopic, APNS_TOPIC_RULE).openapi({ description: "The app's bundle id (apns-topic)", example: "com.example.community" }),
  })
  .openapi("ApnsDeviceRegistration");

export const DeviceRegistrationSchema = z.discriminatedUnion("kind", [WebPushRegistration, FcmRegistration, ApnsRegistration]).openapi("DeviceRegistration");

export const DeviceSchema = z
  .discriminatedUnion("kind", [
    WebPushRegistration.extend({ deviceId: z.string(), registeredAt: z.string() }),
    FcmRegistration.extend({ deviceId: z.string(), registeredAt: z.string() }),
    ApnsRegistration.extend({ deviceId: z.string(), registeredAt: z.string() }),
  ])
  .openapi("Device");

function isUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * What the schema cannot know: whether this deployment can send to the kind, and which endpoints
 * its environment allows. A 400 naming the field otherwise.
 */
export function checkRegistration(input: DeviceRegistration, config: PushConfig): DeviceRegistration {
  if (!isConfigured(config, input.kind)) {
    throw new ApiError("bad_request", `${input.kind} is not configured on this deployment`, [{ field: "kind", message: `${input.kind} is not configured on this deployment` }]);
  }
  if (input.kind === "webpush") {
    // The sender POSTs to this URL from inside our network: only a push service's host (push-hosts.ts).
    const problem = endpointProblem(input.endpoint, config.webpush!.endpoints);
    if (problem) throw new ApiError("bad_request", "Invalid endpoint", [{ field: "endpoint", message: problem }]);
    // Keys are stored without padding, so one subscription is one address whatever the browser sent.
    return { ...input, keys: { p256dh: input.keys.p256dh.replace(/=+$/, ""), auth: input.keys.auth.replace(/=+$/, "") } };
  }
  if (input.kind === "apns" && config.apns!.topics.length > 0 && !config.apns!.topics.includes(input.topic)) {
    throw new ApiError("bad_request", "Invalid topic", [{ field: "topic", message: `must be one of APNS_TOPIC: ${config.apns!.topics.join(", ")}` }]);
  }
  // APNs tokens are hex: one case, so the same token is one device.
  return input.kind === "apns" ? { ...input, token: input.token.toLowerCase() } : input;
}
