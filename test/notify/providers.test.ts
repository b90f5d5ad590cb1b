import { describe, expect, it } from "vitest";
import { apnsProvider, apnsProviderToken, APNS_TOKEN_MIN_AGE_MS, APNS_TOKEN_REUSE_MS, expireApnsProviderToken } from "../../src/notify/apns";
import { pushConfig, PushConfigError, type ApnsConfig, type FcmConfig } from "../../src/notify/config";
import type { ApnsDevice, FcmDevice } from "../../src/notify/devices";
import { fcmAccessToken, fcmProvider, FCM_SCOPE } from "../../src/notify/fcm";
import type { PushMessage } from "../../src/notify/message";
import { pushTestKeys, readJwt } from "../support/push";

const alert: PushMessage = { type: "alert", title: "New like", body: "Ada and 49 others liked your post", url: "/posts/42", thread: "post:42:likes", badge: 7, urgency: "normal" };
const now0 = Date.UTC(2026, 0, 1, 12);

/** A stand-in token endpoint: answers a fresh access token per call and keeps each request's form. */
function tokenEndpoint(expiresIn = 3600) {
  const forms: URLSearchParams[] = [];
  const fetcher = (async (_url: string, init?: RequestInit) => {
    forms.push(new URLSearchParams(String(init?.body)));
    return new Response(JSON.stringify({ access_token: `ya29.token-${forms.length}`, expires_in: expiresIn, token_type: "Bearer" }), { status: 200 });
  }) as unknown as typeof fetch;
  return { forms, fetcher };
}

/** The test service account under a fresh client_email: token caches are per account and isolate. */
async function freshFcm(): Promise<FcmConfig> {
  const base = pushConfig((await pushTestKeys()).env).fcm!;
  return { ...base, clientEmail: `fresh-${crypto.randomUUID()}@community-test.iam.gserviceaccount.com`, tokenUri: "https://oauth2.example.test/token" };
}

async function freshApns(): Promise<ApnsConfig> {
  return { ...pushConfig((await pushTestKeys()).env).apns!, keyId: crypto.randomUUID().slice(0, 10) };
}

describe("FCM HTTP v1", () => {
  it("exchanges an RS256 assertion the service account's key verifies, with Google's claims", async () => {
    const keys = await pushTestKeys();
    const config = await freshFcm();
    const endpoint = tokenEndpoint();
    const token = await fcmAccessToken(config, now0, endpoint.fetcher);
    expect(token.token).toBe("ya29.token-1");
    const form = endpoint.forms[0]!;
    expect(form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    const jwt = await readJwt(form.get("assertion")!, keys.fcmVerifyKey, "RS256");
    expect(jwt.valid).toBe(true);
    expect(jwt.header).toEqual({ typ: "JWT", alg: "RS256", kid: "test-key-1" });
    expect(jwt.claims).toEqual({ iss: config.clientEmail, scope: FCM_SCOPE, aud: "https://oauth2.example.test/token", iat: now0 / 1000, exp: now0 / 1000 + 3600 });
  });

  it("reuses the access token until 5 minutes before it expires (not one exchange per send), then fetches a new one", async () => {
    const config = await freshFcm();
    const endpoint = tokenEndpoint(3600);
    const sends = await Promise.all(Array.from({ length: 10 }, (_, i) => fcmAccessToken(config, now0 + i, endpoint.fetcher)));
    expect(new Set(sends.map((t) => t.token))).toEqual(new Set(["ya29.token-1"]));
    expect((await fcmAccessToken(config, now0 + 54 * 60_000, endpoint.fetcher)).token).toBe("ya29.token-1");
    expect((await fcmAccessToken(config, now0 + 56 * 60_000, endpoint.fetcher)).token).toBe("ya29.token-2");
    expect(endpoint.forms).toHaveLength(2);
  });

  it("keeps no failed exchange: the next send tries again", async () => {
    const config = await freshFcm();
    let calls = 0;
    const flaky = (async () => (++calls === 1 ? new Response("busy", { status: 503 }) : new Response(JSON.stringify({ access_token: "ok", expires_in: 3600 })))) as unknown as typeof fetch;
    await expect(fcmAccessToken(config, now0, flaky)).rejects.toThrow(/503/);
    expect((await fcmAccessToken(config, now0 + 1, flaky)).token).toBe("ok");
  });

  it("builds the v1 message: token, notification, Android priority/ttl/collapse key/tag/notification_count, iOS badge, string data", async () => {
    const config = await freshFcm();
    const device: FcmDevice = { kind: "fcm", deviceId: "p1", registeredAt: new Date(now0).toISOString(), token: "fcm-token-1" };
    const request = await fcmProvider(config, tokenEndpoint().fetcher).request(device, { ...alert, urgency: "high", data: { type: "like" } }, now0);
    expect(request.url).toBe("https://fcm.googleapis.com/v1/projects/community-test/messages:send");
    expect(request.headers.Authorization).toBe("Bearer ya29.token-1");
    expect(JSON.parse(request.body as string)).toEqual({
      message: {
        token: "fcm-token-1",
        notification: { title: "New like", body: "Ada and 49 others liked your post" },
        android: { priority: "HIGH", ttl: "172800s", collapse_key: "post:42:likes", notification: { tag: "post:42:likes", notification_count: 7 } },
        apns: { payload: { aps: { badge: 7, "thread-id": "post:42:likes" } } },
        data: { type: "like", badge: "7", url: "/posts/42", thread: "post:42:likes" },
      },
    });
  });

  it("sends a badge-only update as a data message without a notification", async () => {
    const config = await freshFcm();
    const device: FcmDevice = { kind: "fcm", deviceId: "p1", registeredAt: new Date(now0).toISOString(), token: "fcm-token-1" };
    const request = await fcmProvider(config, tokenEndpoint().fetcher).request(device, { type: "badge", badge: 0, urgency: "normal" }, now0);
    const body = JSON.parse(request.body as string);
    expect(body.message.notification).toBeUndefined();
    expect(body.message.android).toEqual({ priority: "NORMAL", ttl: "172800s" });
    expect(body.message.data).toEqual({ badge: "0" });
    expect(body.message.apns.payload.aps).toEqual({ badge: 0 });
  });

  it("uses FCM_API_URL and the service account's token_uri in place of Google's (a local stand-in)", () => {
    const base = JSON.parse(JSON.stringify({ project_id: "p", client_email: "a@b", private_key: "k", token_uri: "http://127.0.0.1:9999/token" }));
    const config = pushConfig({ FCM_SERVICE_ACCOUNT: JSON.stringify(base), FCM_API_URL: "http://127.0.0.1:9998/" }).fcm!;
    expect(config.tokenUri).toBe("http://127.0.0.1:9999/token");
    expect(config.apiUrl).toBe("http://127.0.0.1:9998");
  });
});

describe("APNs", () => {
  it("signs an ES256 provider token with kid = APNS_KEY_ID, iss = APNS_TEAM_ID, iat", async () => {
    const keys = await pushTestKeys();
    const config = await freshApns();
    const jwt = await readJwt(await apnsProviderToken(config, now0), keys.apnsVerifyKey, "ES256");
    expect(jwt.valid).toBe(true);
    expect(jwt.header).toEqual({ alg: "ES256", kid: config.keyId });
    expect(jwt.claims).toEqual({ iss: "TEAM123456", iat: now0 / 1000 });
  });

  it("reuses one provider token for 50 minutes, then signs a new one", async () => {
    const config = await freshApns();
    const first = await apnsProviderToken(config, now0);
    expect(await apnsProviderToken(config, now0 + APNS_TOKEN_REUSE_MS - 1)).toBe(first);
    const second = await apnsProviderToken(config, now0 + APNS_TOKEN_REUSE_MS);
    expect(second).not.toBe(first);
    expect(APNS_TOKEN_REUSE_MS).toBeGreaterThanOrEqual(20 * 60_000);
    expect(APNS_TOKEN_REUSE_MS).toBeLessThan(60 * 60_000);
  });

  it("never replaces a token younger than 20 minutes, even when APNs calls it expired", async () => {
    const config = await freshApns();
    const first = await apnsProviderToken(config, now0);
    expect(expireApnsProviderToken(config, now0 + APNS_TOKEN_MIN_AGE_MS - 1)).toBe(false);
    expect(await apnsProviderToken(config, now0 + APNS_TOKEN_MIN_AGE_MS - 1)).toBe(first);
    expect(expireApnsProviderToken(config, now0 + APNS_TOKEN_MIN_AGE_MS)).toBe(true);
    expect(await apnsProviderToken(config, now0 + APNS_TOKEN_MIN_AGE_MS)).not.toBe(first);
  });

  it("builds the request: host by environment, topic, push type, priority, collapse id, 48 h expiration, aps payload", async () => {
    const config = await freshApns();
    const device: ApnsDevice = { kind: "apns", deviceId: "i1", registeredAt: new Date(now0).toISOString(), token: "ab".repeat(32), environment: "sandbox", topic: "com.example.community" };
    const request = await apnsProvider(config).request(device, { ...alert, urgency: "high" }, now0);
    expect(request.url).toBe(`https://api.sandbox.push.apple.com/3/device/${"ab".repeat(32)}`);
    expect(request.headers).toMatchObject({
      "apns-topic": "com.example.community",
      "apns-push-type": "alert",
      "apns-priority": "10",
      "apns-collapse-id": "post:42:likes",
      "apns-expiration": String(now0 / 1000 + 48 * 3600),
    });
    expect(request.headers.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.parse(request.body as string)).toEqual({
      aps: { alert: { title: "New like", body: "Ada and 49 others liked your post" }, badge: 7, sound: "default", "thread-id": "post:42:likes" },
      url: "/posts/42",
    });
    const production = await apnsProvider(config).request({ ...device, environment: "production" }, { type: "badge", badge: 3, urgency: "normal" }, now0);
    expect(production.url).toMatch(/^https:\/\/api\.push\.apple\.com\/3\/device\//);
    expect(production.headers["apns-priority"]).toBe("5");
    expect(JSON.parse(production.body as string)).toEqual({ aps: { badge: 3 } });
  });

  it("keeps a collapse id within 64 bytes and goes to APNS_API_URL when set (a local stand-in)", async () => {
    const config = { ...(await freshApns()), apiUrl: "http://127.0.0.1:9997" };
    const device: ApnsDevice = { kind: "apns", deviceId: "i1", registeredAt: new Date(now0).toISOString(), token: "cd".repeat(32), environment: "production", topic: "com.example.community" };
    const request = await apnsProvider(config).request(device, { ...alert, thread: "x".repeat(100) }, now0);
    expect(new TextEncoder().encode(request.headers["apns-collapse-id"]).length).toBeLessThanOrEqual(64);
    expect(request.url.startsWith("http://127.0.0.1:9997/3/device/")).toBe(true);
  });
});

describe("provider settings", () => {
  it("treats a provider without settings as unconfigured and a half-configured one as a mistake", () => {
    expect(pushConfig({})).toEqual({});
    expect(() => pushConfig({ VAPID_PUBLIC_KEY: "x" })).toThrow(PushConfigError);
    expect(() => pushConfig({ VAPID_PUBLIC_KEY: "x", VAPID_PRIVATE_KEY: "y", VAPID_SUBJECT: "push@example.com" })).toThrow(/VAPID_SUBJECT/);
    expect(() => pushConfig({ FCM_SERVICE_ACCOUNT: "{not json" })).toThrow(/FCM_SERVICE_ACCOUNT/);
    expect(() => pushConfig({ APNS_KEY_ID: "k" })).toThrow(/APNS/);
  });
});
