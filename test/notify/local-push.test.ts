/**
 * The Worker's push code against the stack's local push services (scripts/stack/push): what a
 * push service receives from `sendPush`, and what its answers become (answers.ts). The services
 * check what the Worker signs and encrypts: web-push-testing verifies VAPID and decrypts
 * `aes128gcm`, the FCM stand-in verifies the service account's assertion, the APNs stand-in the
 * provider token; each refuses a bad one.
 */
import { describe, expect, it } from "vitest";
import { pushConfig, type PushConfig } from "../../src/notify/config";
import type { ApnsDevice, FcmDevice, WebPushDevice } from "../../src/notify/devices";
import type { PushMessage } from "../../src/notify/message";
import { sendPush } from "../../src/notify/providers";
import { apnsProviderToken } from "../../src/notify/apns";
import { fcmAccessToken } from "../../src/notify/fcm";
import { importPkcs8Pem, signJwt } from "../../src/notify/jwt";
import { webPushProvider, webPushTopic } from "../../src/notify/webpush";
import { controlApnsToken, controlFcmToken, expireWebPush, pushServiceStats, receivedBy, stackPushEnv, subscribeWebPush } from "../support/push-services";
import { pushTestKeys } from "../support/push";
import { api, newId, show } from "../support/api";
import { withServices } from "../counters/support";
import { removeGoneDevice } from "../../src/notify/user-devices";

const like: PushMessage = { type: "alert", title: "Ada liked your post", body: "and 49 others", url: "https://app.example/p/7", thread: "likes:post:7", badge: 3, urgency: "normal" };
const dm: PushMessage = { type: "alert", title: "New message", body: "Ada: lunch?", thread: "dm:7", badge: 5, urgency: "high" };

const config = (): PushConfig => pushConfig({ ...stackPushEnv(), ENVIRONMENT: "development" });
const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
const now = () => new Date().toISOString();

async function webPushDevice(): Promise<{ device: WebPushDevice; clientHash: string }> {
  const sub = await subscribeWebPush();
  return { device: { kind: "webpush", deviceId: `browser-${hex(4)}`, registeredAt: now(), endpoint: sub.endpoint, keys: sub.keys }, clientHash: sub.clientHash };
}
const fcmDevice = (): FcmDevice => ({ kind: "fcm", deviceId: `android-${hex(4)}`, registeredAt: now(), token: `fcm-${hex(16)}:APA91b${hex(20)}` });
const apnsDevice = (registeredAt = now()): ApnsDevice => ({ kind: "apns", deviceId: `iphone-${hex(4)}`, registeredAt, token: hex(32), environment: "sandbox", topic: "com.example.community" });

describe("Web Push through web-push-testing", () => {
  it("delivers: the service verified VAPID and decrypted the payload, title, tag and badge intact", async () => {
    const { device, clientHash } = await webPushDevice();
    expect(await sendPush(config(), device, dm)).toEqual({ action: "delivered" });
    const [push, ...more] = await receivedBy("webpush", clientHash);
    expect(more).toEqual([]);
    expect(push).toMatchObject({ status: 201, title: "New message", body: "Ada: lunch?", badge: 5, payload: { tag: "dm:7" } });
    // `Topic` (the collapse key) is at most 32 base64url characters: "dm:7" goes as its digest.
    expect(push!.headers).toMatchObject({ ttl: "172800", urgency: "high", topic: await webPushTopic("dm:7"), contentEncoding: "aes128gcm" });
    expect(push!.headers!.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
  });

  it("a subscription registered through the API in development is pushed to as listed; once expired, 410 deletes it", async () => {
    const { device, clientHash } = await webPushDevice();
    const devEnv = { ...stackPushEnv(), ENVIRONMENT: "development" };
    const me = newId();
    const put = await api("PUT", "/v1/me/devices/browser-1", { as: { userId: me }, body: { kind: "webpush", endpoint: device.endpoint, keys: device.keys }, env: devEnv });
    expect(put.status, show(put)).toBe(200);
    const key = await api("GET", "/v1/devices/webpush-key", { env: devEnv });
    expect(key.body).toEqual({ publicKey: stackPushEnv().VAPID_PUBLIC_KEY });
    const devices = async () => (await api("GET", "/v1/me/devices", { as: { userId: me }, env: devEnv })).body.items as WebPushDevice[];
    const [registered] = await devices();
    expect(await sendPush(config(), registered!, like)).toEqual({ action: "delivered" });

    await expireWebPush(clientHash);
    expect(await sendPush(config(), registered!, like)).toEqual({ action: "delete", reason: "410 subscription gone" });
    // The verdict carried out as the sender does: the device is gone from the user's list.
    expect(await withServices(devEnv, (services) => removeGoneDevice(services, registered!))).toBe(true);
    expect(await devices()).toEqual([]);
    expect((await receivedBy("webpush", clientHash)).map((p) => [p.status, p.title, p.badge])).toEqual([
      [201, "Ada liked your post", 3],
      [410, undefined, undefined],
    ]);
  });

  it("refuses a VAPID token not signed by the subscription's applicationServerKey (nothing delivered)", async () => {
    const { device, clientHash } = await webPushDevice();
    const stack = config().webpush!;
    // Signed with another key pair, presented as the stack's key (`k`): only the signature is wrong.
    const other = pushConfig({ ...(await pushTestKeys()).env }).webpush!;
    const request = await webPushProvider(other).request(device, like);
    const authorization = request.headers.Authorization!.replace(/k=\S+$/, `k=${stack.publicKey}`);
    const res = await fetch(request.url, { method: "POST", headers: { ...request.headers, Authorization: authorization }, body: request.body });
    expect(res.status).toBe(400);
    const [refused] = await receivedBy("webpush", clientHash);
    expect(refused).toMatchObject({ status: 400, error: "Invalid authentication token supplied" });
    expect(refused!.title).toBeUndefined();
  });

  it("refuses a VAPID token for another audience", async () => {
    const { device, clientHash } = await webPushDevice();
    const elsewhere = { ...device, endpoint: device.endpoint.replace("localhost", "127.0.0.1") };
    // `aud` is the endpoint's origin: 127.0.0.1 is not the origin this service hands out (allowed
    // here as a local push service too, so that the request is sent at all).
    const origins = `${stackPushEnv().WEBPUSH_LOCAL_ORIGINS},${new URL(elsewhere.endpoint).origin}`;
    expect(await sendPush(pushConfig({ ...stackPushEnv(), ENVIRONMENT: "development", WEBPUSH_LOCAL_ORIGINS: origins }), elsewhere, like)).toMatchObject({ action: "dead" });
    expect((await receivedBy("webpush", clientHash))[0]!.error).toMatch(/VAPID aud must be this push service's origin/);
  });
});

describe("FCM through the stand-in", () => {
  it("delivers: the assertion was verified, exchanged once, and the message recorded with its badge", async () => {
    const device = fcmDevice();
    const before = await pushServiceStats();
    expect(await sendPush(config(), device, dm)).toEqual({ action: "delivered" });
    expect(await sendPush(config(), device, like)).toEqual({ action: "delivered" });
    const pushes = await receivedBy("fcm", device.token);
    expect(pushes.map((p) => [p.status, p.title, p.badge])).toEqual([
      [200, "New message", 5],
      [200, "Ada liked your post", 3],
    ]);
    expect(pushes[0]!.payload).toMatchObject({ android: { priority: "HIGH", collapse_key: "dm:7", notification: { tag: "dm:7", notification_count: 5 } } });
    // The access token is reused: at most one exchange for both (none when an earlier test made it).
    expect((await pushServiceStats()).fcmTokenExchanges - before.fcmTokenExchanges).toBeLessThanOrEqual(1);
  });

  it("UNREGISTERED (404, FCM's error body) deletes the device", async () => {
    const device = fcmDevice();
    await controlFcmToken(device.token, { unregistered: true });
    expect(await sendPush(config(), device, like)).toEqual({ action: "delete", reason: "404 UNREGISTERED" });
    expect(await receivedBy("fcm", device.token)).toMatchObject([{ status: 404, error: "UNREGISTERED" }]);
  });

  it("429 with Retry-After is a retry after that long; the next send delivers", async () => {
    const device = fcmDevice();
    await controlFcmToken(device.token, { throttle: { count: 1, retryAfterSeconds: 120 } });
    expect(await sendPush(config(), device, like)).toEqual({ action: "retry", reason: "429 QUOTA_EXCEEDED", retryAfterSeconds: 120 });
    expect(await sendPush(config(), device, like)).toEqual({ action: "delivered" });
  });

  it("refuses an assertion not signed by the service account's key: no access token, nothing sent", async () => {
    const stack = config().fcm!;
    const other = pushConfig((await pushTestKeys()).env).fcm!;
    // The stack's account and token endpoint, another private key (a fresh email: tokens are cached per account).
    const forged: PushConfig = { fcm: { ...stack, privateKey: other.privateKey, clientEmail: `forged-${hex(4)}@community-edge-dev.iam.gserviceaccount.com` } };
    await expect(sendPush(forged, fcmDevice(), like)).rejects.toThrow(/answered 400: .*invalid_grant.*Invalid JWT Signature/);
  });

  it("refuses an unknown access token (401) and a message FCM would refuse (400 INVALID_ARGUMENT naming the field)", async () => {
    const stack = config().fcm!;
    const send = (bearer: string, message: unknown) =>
      fetch(`${stack.apiUrl}/v1/projects/${stack.projectId}/messages:send`, { method: "POST", headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" }, body: JSON.stringify({ message }) });
    const unknown = await send("ya29.forged", { token: "t" });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: { status: "UNAUTHENTICATED" } });
    const { token } = await fcmAccessToken(stack);
    const invalid = await send(token, { token: "t", data: { badge: 3 } });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT", message: expect.stringContaining("message.data"), details: [{ errorCode: "INVALID_ARGUMENT" }] } });
  });
});

describe("APNs through the stand-in", () => {
  it("delivers: provider token and headers checked, the payload recorded with its badge", async () => {
    const device = apnsDevice();
    expect(await sendPush(config(), device, dm)).toEqual({ action: "delivered" });
    const [push] = await receivedBy("apns", device.token);
    expect(push).toMatchObject({ status: 200, title: "New message", body: "Ada: lunch?", badge: 5, payload: { aps: { "thread-id": "dm:7" } } });
    expect(push!.headers).toMatchObject({ "apns-topic": "com.example.community", "apns-push-type": "alert", "apns-priority": "10", "apns-collapse-id": "dm:7" });
    expect(push!.headers!.authorization).toBeUndefined();
    // Local workerd's fetch speaks HTTP/1.1 only; Apple takes HTTP/2 only (docs/push-delivery.md).
    expect(push!.httpVersion).toBe("1.1");
  });

  it("410 Unregistered with a timestamp deletes the device, unless it registered again after it", async () => {
    const gone = apnsDevice(new Date(Date.now() - 3_600_000).toISOString());
    await controlApnsToken(gone.token, { unregistered: { timestamp: Date.now() - 60_000 } });
    expect(await sendPush(config(), gone, like)).toEqual({ action: "delete", reason: "410 Unregistered" });
    const back = apnsDevice(now());
    await controlApnsToken(back.token, { unregistered: { timestamp: Date.now() - 60_000 } });
    expect(await sendPush(config(), back, like)).toEqual({ action: "dead", reason: "410 Unregistered before the device registered again" });
  });

  it("BadDeviceToken: a token of the other environment, and a token that is not 64 hex", async () => {
    const wrong = apnsDevice();
    await controlApnsToken(wrong.token, { wrongEnvironment: true });
    expect(await sendPush(config(), wrong, like)).toEqual({ action: "delete", reason: "400 BadDeviceToken (sandbox)" });
    expect(await sendPush(config(), { ...apnsDevice(), token: "abc" }, like)).toEqual({ action: "delete", reason: "400 BadDeviceToken (sandbox)" });
  });

  it("429 with Retry-After is a retry after that long", async () => {
    const device = apnsDevice();
    await controlApnsToken(device.token, { throttle: { count: 1, retryAfterSeconds: 30 } });
    expect(await sendPush(config(), device, like)).toEqual({ action: "retry", reason: "429 TooManyRequests", retryAfterSeconds: 30 });
    expect(await sendPush(config(), device, like)).toEqual({ action: "delivered" });
  });

  it("refuses a provider token signed by another key, and a new token within 20 minutes of the last", async () => {
    const apns = config().apns!;
    const device = apnsDevice();
    const url = `${apns.apiUrl}/3/device/${device.token}`;
    const send = (token: string) => fetch(url, { method: "POST", headers: { authorization: `bearer ${token}`, "apns-topic": device.topic, "apns-push-type": "alert" }, body: JSON.stringify({ aps: { badge: 1 } }) });
    const otherKey = await importPkcs8Pem((await pushTestKeys()).env.APNS_PRIVATE_KEY!, "ES256");
    const iat = Math.floor(Date.now() / 1000);
    const forged = await send(await signJwt("ES256", otherKey, { iss: apns.teamId, iat }, { kid: apns.keyId, typ: undefined }));
    expect([forged.status, await forged.json()]).toEqual([403, { reason: "InvalidProviderToken" }]);

    // The token in use (signed once, reused), then one signed a second later: a refresh too soon.
    expect(await sendPush(config(), device, like)).toEqual({ action: "delivered" });
    const inUse = JSON.parse(atob((await apnsProviderToken(apns)).split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))) as { iat: number };
    const key = await importPkcs8Pem(apns.privateKey, "ES256");
    const tooSoon = await send(await signJwt("ES256", key, { iss: apns.teamId, iat: inUse.iat + 1 }, { kid: apns.keyId, typ: undefined }));
    expect([tooSoon.status, await tooSoon.json()]).toEqual([429, { reason: "TooManyProviderTokenUpdates" }]);
    const expired = await send(await signJwt("ES256", key, { iss: apns.teamId, iat: iat - 3601 }, { kid: apns.keyId, typ: undefined }));
    expect([expired.status, await expired.json()]).toEqual([403, { reason: "ExpiredProviderToken" }]);
    // The token in use still works.
    expect(await sendPush(config(), device, like)).toEqual({ action: "delivered" });
  });
});
