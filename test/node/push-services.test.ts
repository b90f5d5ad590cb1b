/**
 * The local push services as a process of their own (scripts/stack/push): the APNs stand-in
 * speaks HTTP/2 as Apple does (the Worker's local fetch reaches it over HTTP/1.1 on the same
 * port), web-push-testing is supervised, and the dev runner's line says what arrived.
 */
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPushServices, describePush, type PushServices } from "../../scripts/stack/push/index.js";
import { pushConfig } from "../../src/notify/config.js";
import { apnsProvider } from "../../src/notify/apns.js";
import { sendPush } from "../../src/notify/providers.js";
import type { ApnsDevice, WebPushDevice } from "../../src/notify/devices.js";
import { HUGE_BYTES } from "../../scripts/stack/push/misbehaving.js";
import type { PushMessage } from "../../src/notify/message.js";
import { eventually } from "../support/eventually.js";

const message: PushMessage = { type: "alert", title: "New message", body: "Ada: lunch?", thread: "dm:7", badge: 4, urgency: "high" };
const device: ApnsDevice = { kind: "apns", deviceId: "iphone", registeredAt: new Date().toISOString(), token: "5f".repeat(32), environment: "production", topic: "com.example.community" };

let push: PushServices;
beforeAll(async () => {
  push = await startPushServices(); // private services and keys: no token shared with other files
});
afterAll(() => push?.stop());

/** One request over HTTP/2 (prior knowledge, as to api.push.apple.com after ALPN). */
function overHttp2(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string; version: string }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.once("error", reject);
    const target = new URL(url);
    const stream = session.request({ ":method": "POST", ":path": target.pathname, ...headers });
    let status = 0;
    let text = "";
    stream.on("response", (h) => (status = Number(h[":status"])));
    stream.on("data", (chunk: Buffer) => (text += chunk));
    stream.on("end", () => (session.close(), resolve({ status, body: text, version: "2" })));
    stream.once("error", reject);
    stream.end(body);
  });
}

describe("APNs stand-in", () => {
  it("answers HTTP/2 requests as APNs does: delivered with the provider token, 403 without", async () => {
    const config = pushConfig(push.vars).apns!;
    const request = await apnsProvider(config).request(device, message);
    const delivered = await overHttp2(request.url, request.headers, request.body as string);
    expect(delivered).toMatchObject({ status: 200, body: "" });
    const { authorization: _token, ...unsigned } = request.headers;
    const refused = await overHttp2(request.url, unsigned, request.body as string);
    expect([refused.status, JSON.parse(refused.body)]).toEqual([403, { reason: "MissingProviderToken" }]);
    // The same port over HTTP/1.1, as the Worker's fetch reaches it locally.
    expect(await sendPush(pushConfig(push.vars), device, message)).toEqual({ action: "delivered" });
    expect(push.received.list({ service: "apns" }).map((p) => [p.status, p.error, p.httpVersion])).toEqual([
      [200, undefined, "2.0"],
      [403, "MissingProviderToken", "2.0"],
      [200, undefined, "1.1"],
    ]);
  });
});

describe("web-push-testing", () => {
  it("is started again when it dies (its subscriptions are gone with it)", async () => {
    const before = await push.webPush.subscribe();
    const pid = push.webPush.pid!;
    process.kill(pid, "SIGKILL");
    const after = await eventually(() => push.webPush.subscribe().catch(() => undefined), (sub) => sub !== undefined, 15_000);
    expect(push.webPush.pid).not.toBe(pid);
    expect(after!.clientHash).not.toBe(before.clientHash);
  });
});

describe("the misbehaving endpoint, through the sender's limits (Node's fetch)", () => {
  const subscription = { p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", auth: "BTBZMqHH6r4Tts7J_aSIgg" };
  const at = (path: string): WebPushDevice => ({ kind: "webpush", deviceId: "b", registeredAt: new Date().toISOString(), endpoint: `${push.misbehaving.url}${path}`, keys: subscription });
  const config = () => pushConfig({ ...push.vars, ENVIRONMENT: "development", PUSH_REQUEST_TIMEOUT_MS: "300" });

  it("is a local push service: its endpoints are allowed in development only", async () => {
    expect(push.vars.WEBPUSH_LOCAL_ORIGINS!.split(",")).toContain(push.misbehaving.url);
    expect(await sendPush(pushConfig({ ...push.vars, ENVIRONMENT: "production" }), at("/target/prod"), message)).toMatchObject({ action: "delete", reason: "endpoint not allowed: must be https" });
    expect(push.misbehaving.stats("prod").target).toBe(0);
  });

  it("a hang is given up after the timeout, a redirect is not followed, 50 MB are not read", async () => {
    await expect(sendPush(config(), at("/hang/n1"), message)).rejects.toThrow(/no answer within 300 ms/);
    expect(await sendPush(config(), at("/redirect/n1"), message)).toMatchObject({ action: "dead", refusedDevice: true, reason: "307 redirect to /target/n1 (not followed)" });
    expect(await sendPush(config(), at("/huge/n1"), message)).toEqual({ action: "delivered" });
    const stats = push.misbehaving.stats("n1");
    expect(stats).toMatchObject({ hang: 1, redirect: 1, target: 0, huge: 1, hugeFinished: false });
    expect(stats.hugeBytesWritten).toBeLessThan(HUGE_BYTES / 2);
  });
});

describe("the dev runner's line", () => {
  it("says kind, device, title and badge of what arrived, and why a push was refused", () => {
    expect(describePush({ seq: 1, service: "webpush", at: 0, status: 201, device: "3f2a9c0d1e2b3c4d5e6f", title: "New message", badge: 3 })).toBe('[push] webpush device 3f2a9c0d1e2b… "New message" badge 3');
    expect(describePush({ seq: 2, service: "apns", at: 0, status: 410, device: "5f5f", error: "Unregistered" })).toBe("[push] apns device 5f5f refused 410 Unregistered");
  });
});
