import { describe, expect, it } from "vitest";
import { pushConfig, type PushConfig } from "../../src/notify/config";
import type { ApnsDevice, FcmDevice, WebPushDevice } from "../../src/notify/devices";
import type { PushMessage } from "../../src/notify/message";
import { sendPush } from "../../src/notify/providers";
import { boundedFetch, limiter, MAX_ANSWER_BYTES } from "../../src/notify/provider-fetch";
import { decryptPush, newSubscriptionKeys, pushTestKeys } from "../support/push";

const message: PushMessage = { type: "alert", title: "New message", body: "Ada: lunch?", thread: "dm:7", badge: 2, urgency: "high" };
const registeredAt = new Date().toISOString();

/** A fake network: the token endpoint answers tokens; every other request gets the next queued answer. */
function network(answers: Response[]) {
  const sent: { url: string; init: RequestInit }[] = [];
  let exchanges = 0;
  const fetcher = (async (url: string, init: RequestInit) => {
    if (url.endsWith("/token")) return new Response(JSON.stringify({ access_token: `at-${++exchanges}`, expires_in: 3600 }));
    sent.push({ url, init });
    return answers.shift() ?? new Response("", { status: 201 });
  }) as unknown as typeof fetch;
  return { fetcher, sent, exchanges: () => exchanges };
}

async function config(): Promise<PushConfig> {
  const base = pushConfig((await pushTestKeys()).env);
  // Fresh credentials per test: tokens are cached per account/key and isolate.
  return { ...base, fcm: { ...base.fcm!, clientEmail: `${crypto.randomUUID()}@test`, tokenUri: "https://oauth.test/token" }, apns: { ...base.apns!, keyId: crypto.randomUUID().slice(0, 10) } };
}

describe("sendPush: build, send, classify", () => {
  it("delivers an encrypted Web Push the subscription decrypts, and deletes on 410", async () => {
    const receiver = await newSubscriptionKeys();
    const device: WebPushDevice = { kind: "webpush", deviceId: "b", registeredAt, endpoint: "https://fcm.googleapis.com/wp/s1", keys: { p256dh: receiver.p256dh, auth: receiver.auth } };
    const net = network([new Response("", { status: 201 }), new Response("gone", { status: 410 })]);
    const cfg = await config();
    expect(await sendPush(cfg, device, message, net.fetcher)).toEqual({ action: "delivered" });
    expect(JSON.parse(await decryptPush(new Uint8Array(net.sent[0]!.init.body as Uint8Array), receiver))).toMatchObject({ title: "New message", badge: 2, tag: "dm:7" });
    expect(await sendPush(cfg, device, message, net.fetcher)).toEqual({ action: "delete", reason: "410 subscription gone" });
  });

  it("FCM 401 drops the access token, so the retry exchanges a new one; UNREGISTERED deletes", async () => {
    const device: FcmDevice = { kind: "fcm", deviceId: "p", registeredAt, token: "tok" };
    const unauthenticated = JSON.stringify({ error: { code: 401, status: "UNAUTHENTICATED" } });
    const unregistered = JSON.stringify({ error: { code: 404, status: "NOT_FOUND", details: [{ errorCode: "UNREGISTERED" }] } });
    const net = network([new Response(unauthenticated, { status: 401 }), new Response(unregistered, { status: 404 })]);
    const cfg = await config();
    expect(await sendPush(cfg, device, message, net.fetcher)).toMatchObject({ action: "retry", refreshCredentials: true });
    expect(await sendPush(cfg, device, message, net.fetcher)).toEqual({ action: "delete", reason: "404 UNREGISTERED" });
    expect(net.exchanges()).toBe(2);
    expect((net.sent[1]!.init.headers as Record<string, string>).Authorization).toBe("Bearer at-2");
  });

  it("APNs: sends to the device's environment; BadDeviceToken from there deletes it", async () => {
    const device: ApnsDevice = { kind: "apns", deviceId: "i", registeredAt, token: "ef".repeat(32), environment: "sandbox", topic: "com.example.app" };
    const net = network([new Response(JSON.stringify({ reason: "BadDeviceToken" }), { status: 400 })]);
    expect(await sendPush(await config(), device, message, net.fetcher)).toEqual({ action: "delete", reason: "400 BadDeviceToken (sandbox)" });
    expect(net.sent[0]!.url).toBe(`https://api.sandbox.push.apple.com/3/device/${"ef".repeat(32)}`);
  });

  it("a device whose provider is no longer configured is a dead letter, nothing sent", async () => {
    const net = network([]);
    const device: FcmDevice = { kind: "fcm", deviceId: "p", registeredAt, token: "tok" };
    expect(await sendPush({}, device, message, net.fetcher)).toEqual({ action: "dead", reason: "fcm is not configured on this deployment" });
    expect(net.sent).toEqual([]);
  });
});

describe("boundedFetch: every provider request", () => {
  it("is sent with redirect: manual and a signal; a 3xx comes back as it is, a big answer read only up to the cap", async () => {
    const inits: RequestInit[] = [];
    const answers = [new Response(null, { status: 301, headers: { Location: "https://elsewhere.example/" } }), new Response("x".repeat(1024 * 1024), { status: 201 })];
    const fetcher = (async (_url: string, init: RequestInit) => (inits.push(init), answers.shift()!)) as unknown as typeof fetch;
    const bounded = boundedFetch(fetcher, 1_000);
    const moved = await bounded("https://fcm.googleapis.com/wp/1", { method: "POST" });
    expect([moved.status, moved.headers.get("Location")]).toEqual([301, "https://elsewhere.example/"]);
    const big = await bounded("https://fcm.googleapis.com/wp/1", { method: "POST" });
    expect([big.status, (await big.text()).length, big.headers.get("X-Answer-Truncated")]).toEqual([201, MAX_ANSWER_BYTES, "1"]);
    expect(inits.map((i) => [i.redirect, i.signal instanceof AbortSignal])).toEqual([["manual", true], ["manual", true]]);
    expect(boundedFetch(bounded)).toBe(bounded); // wrapping twice changes nothing
  });

  it("gives up on an answer that never comes: a TimeoutError naming the time", async () => {
    const never = ((_url: string, init: RequestInit) => new Promise((_resolve, reject) => init.signal!.addEventListener("abort", () => reject(init.signal!.reason)))) as unknown as typeof fetch;
    await expect(boundedFetch(never, 200)("https://fcm.googleapis.com/wp/1")).rejects.toThrow("push service gave no answer within 200 ms");
  });

  it("a pool never runs more than its size at once, and runs every task", async () => {
    const run = limiter(2);
    let open = 0;
    let most = 0;
    const task = async (i: number) => {
      most = Math.max(most, ++open);
      await new Promise((resolve) => setTimeout(resolve, 5));
      open--;
      return i;
    };
    expect(await Promise.all([1, 2, 3, 4, 5].map((i) => run(() => task(i))))).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });
});
