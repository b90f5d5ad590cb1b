import { describe, expect, it } from "vitest";
import { classifyAnswer, MAX_PUSH_ATTEMPTS, parseRetryAfter, retryDelaySeconds, type PushAnswer } from "../../src/notify/answers";
import type { ApnsDevice, FcmDevice, WebPushDevice } from "../../src/notify/devices";

const registeredAt = "2026-01-01T12:00:00.000Z";
const webpush: WebPushDevice = { kind: "webpush", deviceId: "b", registeredAt, endpoint: "https://push.example.net/s/1", keys: { p256dh: "x", auth: "y" } };
const fcm: FcmDevice = { kind: "fcm", deviceId: "a", registeredAt, token: "t" };
const apns: ApnsDevice = { kind: "apns", deviceId: "i", registeredAt, token: "ab".repeat(32), environment: "production", topic: "com.example.app" };

function answer(status: number, body: unknown = "", headers: Record<string, string> = {}, sentTo?: "production" | "sandbox"): PushAnswer {
  return { status, body: typeof body === "string" ? body : JSON.stringify(body), headers: new Headers(headers), ...(sentTo ? { sentTo } : {}) };
}
const fcmError = (status: number, code: string, errorCode?: string) => ({ error: { code: status, status: code, message: "…", details: errorCode ? [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode }] : [] } });

describe("what a push service's answer does", () => {
  it("2xx: delivered, on every platform", () => {
    for (const device of [webpush, fcm, apns]) expect(classifyAnswer(device, answer(device.kind === "webpush" ? 201 : 200)).action).toBe("delivered");
  });

  it("Web Push 404 and 410 delete the device", () => {
    expect(classifyAnswer(webpush, answer(404)).action).toBe("delete");
    expect(classifyAnswer(webpush, answer(410, "push subscription has unsubscribed or expired")).action).toBe("delete");
  });

  it("FCM 404 UNREGISTERED deletes the device", () => {
    expect(classifyAnswer(fcm, answer(404, fcmError(404, "NOT_FOUND", "UNREGISTERED")))).toEqual({ action: "delete", reason: "404 UNREGISTERED" });
  });

  it("FCM 401: our access token is refused; retried with a new one, the device kept", () => {
    expect(classifyAnswer(fcm, answer(401, fcmError(401, "UNAUTHENTICATED")))).toMatchObject({ action: "retry", refreshCredentials: true });
  });

  it("APNs 410 Unregistered deletes the device, unless it registered again after Apple's timestamp", () => {
    const before = Date.parse(registeredAt) - 60_000;
    const after = Date.parse(registeredAt) + 60_000;
    expect(classifyAnswer(apns, answer(410, { reason: "Unregistered", timestamp: before })).action).toBe("dead");
    expect(classifyAnswer(apns, answer(410, { reason: "Unregistered", timestamp: after }))).toEqual({ action: "delete", reason: "410 Unregistered" });
    expect(classifyAnswer(apns, answer(410, { reason: "Unregistered" })).action).toBe("delete");
  });

  it("APNs 400 BadDeviceToken deletes only when the device's own environment refused it", () => {
    expect(classifyAnswer(apns, answer(400, { reason: "BadDeviceToken" }, {}, "production")).action).toBe("delete");
    expect(classifyAnswer({ ...apns, environment: "sandbox" }, answer(400, { reason: "BadDeviceToken" }, {}, "sandbox")).action).toBe("delete");
    const elsewhere = classifyAnswer(apns, answer(400, { reason: "BadDeviceToken" }, {}, "sandbox"));
    expect(elsewhere.action).toBe("dead");
    expect(classifyAnswer(apns, answer(400, { reason: "BadDeviceToken" })).action).toBe("dead"); // where it went is unknown
  });

  it("APNs 403 ExpiredProviderToken is retried with a new provider token (within Apple's 20-minute floor)", () => {
    expect(classifyAnswer(apns, answer(403, { reason: "ExpiredProviderToken" }))).toMatchObject({ action: "retry", refreshCredentials: true });
  });

  it("429 and 5xx are retried, honouring Retry-After (seconds or a date)", () => {
    expect(classifyAnswer(webpush, answer(429, "slow down", { "Retry-After": "120" }))).toMatchObject({ action: "retry", retryAfterSeconds: 120 });
    expect(classifyAnswer(fcm, answer(429, fcmError(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"), { "Retry-After": "30" }))).toMatchObject({ action: "retry", retryAfterSeconds: 30, reason: "429 QUOTA_EXCEEDED" });
    expect(classifyAnswer(apns, answer(429, { reason: "TooManyRequests" }))).toMatchObject({ action: "retry", reason: "429 TooManyRequests" });
    for (const status of [500, 502, 503]) expect(classifyAnswer(apns, answer(status, { reason: "ServiceUnavailable" })).action).toBe("retry");
    const at = Date.now() + 90_000;
    expect(parseRetryAfter(new Date(at).toUTCString(), at - 90_000)).toBeGreaterThanOrEqual(89);
    expect(parseRetryAfter("soon")).toBeUndefined();
  });

  it("400, 403, 413 and redirects are dead letters counted against the device; our credentials' refusals and other 4xx are not counted", () => {
    expect(classifyAnswer(webpush, answer(413, "payload too large"))).toEqual({ action: "dead", reason: "413 payload too large", refusedDevice: true });
    expect(classifyAnswer(apns, answer(413, { reason: "PayloadTooLarge" }))).toEqual({ action: "dead", reason: "413 PayloadTooLarge", refusedDevice: true });
    expect(classifyAnswer(apns, answer(400, { reason: "BadTopic" }))).toEqual({ action: "dead", reason: "400 BadTopic", refusedDevice: true });
    expect(classifyAnswer(fcm, answer(400, fcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT")))).toEqual({ action: "dead", reason: "400 INVALID_ARGUMENT", refusedDevice: true });
    expect(classifyAnswer(webpush, answer(403, ""))).toMatchObject({ action: "dead", refusedDevice: true });
    expect(classifyAnswer(webpush, answer(307, "", { Location: "https://elsewhere.example/x" }))).toEqual({ action: "dead", reason: "307 redirect to https://elsewhere.example/x (not followed)", refusedDevice: true });
    // A broken key of ours would otherwise count against every device.
    expect(classifyAnswer(apns, answer(403, { reason: "InvalidProviderToken" }))).toEqual({ action: "dead", reason: "403 InvalidProviderToken" });
    expect(classifyAnswer(fcm, answer(403, fcmError(403, "PERMISSION_DENIED", "PERMISSION_DENIED")))).toEqual({ action: "dead", reason: "403 PERMISSION_DENIED" });
    expect(classifyAnswer(webpush, answer(418, "teapot"))).toEqual({ action: "dead", reason: "418 teapot" });
  });

  it("nothing is retried forever: backoff grows, Retry-After lengthens it, the last attempt gives up", () => {
    const delays = Array.from({ length: MAX_PUSH_ATTEMPTS - 1 }, (_, i) => retryDelaySeconds(i + 1)!);
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
    expect(retryDelaySeconds(1, 300)).toBe(300);
    expect(retryDelaySeconds(1, 10 ** 6)).toBe(3600);
    expect(retryDelaySeconds(MAX_PUSH_ATTEMPTS)).toBeUndefined();
  });
});
