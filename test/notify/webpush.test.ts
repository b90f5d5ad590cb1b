import { describe, expect, it } from "vitest";
import { base64UrlDecode, base64UrlEncode } from "../../src/lib/base64url";
import { pushConfig } from "../../src/notify/config";
import type { WebPushDevice } from "../../src/notify/devices";
import { importP256PrivateKey } from "../../src/notify/jwt";
import { encryptAes128gcm, MAX_WEBPUSH_PLAINTEXT, vapidAuthorization, webPushProvider, webPushTopic } from "../../src/notify/webpush";
import { decryptPush, newSubscriptionKeys, pushTestKeys, readJwt } from "../support/push";

/** RFC 8291 Appendix A (the §5 example): every input fixed, so the body is known byte for byte. */
const RFC8291 = {
  plaintext: "When I grow up, I want to be a watermelon",
  asPublic: "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8",
  asPrivate: "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw",
  uaPublic: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
  salt: "DGv6ra1nlYgDCS1FRnbzlw",
  auth: "BTBZMqHH6r4Tts7J_aSIgg",
  body:
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml" +
    "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT" +
    "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
};

describe("RFC 8291 aes128gcm", () => {
  it("encrypts the RFC's example to its published body, byte for byte (fixed salt and sender key)", async () => {
    const senderPrivateKey = await importP256PrivateKey(RFC8291.asPublic, RFC8291.asPrivate, "deriveBits");
    const body = await encryptAes128gcm(new TextEncoder().encode(RFC8291.plaintext), base64UrlDecode(RFC8291.uaPublic), base64UrlDecode(RFC8291.auth), {
      salt: base64UrlDecode(RFC8291.salt),
      senderPrivateKey,
      senderPublicKey: base64UrlDecode(RFC8291.asPublic),
    });
    expect(base64UrlEncode(body)).toBe(RFC8291.body);
  });

  it("uses a fresh salt and sender key per message, which the subscription's private key decrypts", async () => {
    const receiver = await newSubscriptionKeys();
    const plaintext = new TextEncoder().encode('{"title":"hi"}');
    const [a, b] = await Promise.all([1, 2].map(() => encryptAes128gcm(plaintext, base64UrlDecode(receiver.p256dh), base64UrlDecode(receiver.auth))));
    expect(base64UrlEncode(a!.slice(0, 16))).not.toBe(base64UrlEncode(b!.slice(0, 16)));
    expect(base64UrlEncode(a!.slice(21, 86))).not.toBe(base64UrlEncode(b!.slice(21, 86)));
    expect(await decryptPush(a!, receiver)).toBe('{"title":"hi"}');
  });

  it("refuses a payload that would not fit the 4,096 bytes every push service takes", async () => {
    const receiver = await newSubscriptionKeys();
    const fits = await encryptAes128gcm(new Uint8Array(MAX_WEBPUSH_PLAINTEXT), base64UrlDecode(receiver.p256dh), base64UrlDecode(receiver.auth));
    expect(fits.length).toBe(4096);
    await expect(encryptAes128gcm(new Uint8Array(MAX_WEBPUSH_PLAINTEXT + 1), base64UrlDecode(receiver.p256dh), base64UrlDecode(receiver.auth))).rejects.toThrow(/over/);
  });
});

describe("RFC 8292 VAPID", () => {
  it("signs an ES256 JWT the VAPID public key verifies: aud = the endpoint's origin, exp ≤ 24 h, sub = VAPID_SUBJECT", async () => {
    const keys = await pushTestKeys();
    const config = pushConfig(keys.env).webpush!;
    const now = Date.now();
    const header = await vapidAuthorization("https://updates.push.services.mozilla.com/wpush/v2/gAAAA?x=1", config, now);
    const match = /^vapid t=([^,]+), k=(.+)$/.exec(header);
    expect(match, header).not.toBeNull();
    expect(match![2]).toBe(config.publicKey);
    const jwt = await readJwt(match![1]!, keys.vapidVerifyKey, "ES256");
    expect(jwt.valid).toBe(true);
    expect(jwt.header).toEqual({ typ: "JWT", alg: "ES256" });
    expect(jwt.claims.aud).toBe("https://updates.push.services.mozilla.com");
    expect(jwt.claims.sub).toBe("mailto:push@example.com");
    const exp = jwt.claims.exp as number;
    expect(exp).toBeGreaterThan(now / 1000);
    expect(exp).toBeLessThanOrEqual(now / 1000 + 24 * 3600);
  });

  it("reuses one token per push service origin instead of signing per push, and signs anew for another origin", async () => {
    const config = pushConfig((await pushTestKeys()).env).webpush!;
    const now = Date.now();
    const first = await vapidAuthorization("https://fcm.googleapis.com/fcm/send/a", config, now);
    expect(await vapidAuthorization("https://fcm.googleapis.com/fcm/send/b", config, now + 60_000)).toBe(first);
    expect(await vapidAuthorization("https://web.push.apple.com/b", config, now + 60_000)).not.toBe(first);
  });
});

describe("Web Push request", () => {
  const message = { type: "alert" as const, title: "New message", body: "Ada: lunch?", url: "/messages/7", thread: "dm:7", badge: 5, urgency: "high" as const };

  it("carries aes128gcm content, TTL 48 h, Urgency, Topic and VAPID, and the payload the service worker shows", async () => {
    const keys = await pushTestKeys();
    const receiver = await newSubscriptionKeys();
    const device: WebPushDevice = { kind: "webpush", deviceId: "b1", registeredAt: new Date().toISOString(), endpoint: "https://push.example.net/sub/1", keys: { p256dh: receiver.p256dh, auth: receiver.auth } };
    const request = await webPushProvider(pushConfig(keys.env).webpush!).request(device, message);
    expect(request.url).toBe(device.endpoint);
    expect(request.headers).toMatchObject({ "Content-Encoding": "aes128gcm", TTL: "172800", Urgency: "high", Topic: expect.stringMatching(/^[A-Za-z0-9_-]{1,32}$/) });
    expect(request.headers.Authorization).toMatch(/^vapid t=.+, k=/);
    const payload = JSON.parse(await decryptPush(request.body as Uint8Array, receiver));
    expect(payload).toEqual({ title: "New message", body: "Ada: lunch?", url: "/messages/7", tag: "dm:7", badge: 5 });
  });

  it("keeps a Topic within 32 base64url characters, one per thread", async () => {
    expect(await webPushTopic("likes-42")).toBe("likes-42");
    const long = await webPushTopic("post:1234567890123456789:likes:and-more-than-thirty-two");
    expect(long).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await webPushTopic("post:1234567890123456789:likes:and-more-than-thirty-two")).toBe(long);
    expect(await webPushTopic("dm:7")).toMatch(/^[A-Za-z0-9_-]{32}$/); // ':' is not base64url
  });

  it("refuses a badge-only push: browsers penalise silent pushes", async () => {
    const keys = await pushTestKeys();
    const receiver = await newSubscriptionKeys();
    const device: WebPushDevice = { kind: "webpush", deviceId: "b1", registeredAt: new Date().toISOString(), endpoint: "https://push.example.net/sub/1", keys: { p256dh: receiver.p256dh, auth: receiver.auth } };
    await expect(webPushProvider(pushConfig(keys.env).webpush!).request(device, { ...message, type: "badge" })).rejects.toThrow(/silent/);
  });
});
