import { Hono } from "hono";
import type { Env } from "../../src/env";
import { base64UrlEncode } from "../../src/lib/base64url";
import { resolveAlert, urgencyOf } from "../../src/notify/alerts";
import { pushConfig } from "../../src/notify/config";
import type { WebPushDevice } from "../../src/notify/devices";
import { importP256PrivateKey, signJwt } from "../../src/notify/jwt";
import type { PushMessage } from "../../src/notify/message";
import { enqueuePushes } from "../../src/notify/sends";
import { webPushProvider } from "../../src/notify/webpush";

/**
 * Bench-only routes of `npm run bench:notify` (never in the deployed Worker):
 *  - `GET /v1/bench/notify/webpush-requests?n=&vapid=fresh|reused` builds `n` Web Push requests for
 *    one subscription inside the Worker and answers nothing but how many, so the benchmark can
 *    divide the workerd process' CPU time by `n`. `vapid=fresh` also signs a new VAPID JWT for every
 *    push (its key imported each time, as a first push to a push service does); `reused` is the
 *    production path alone, `webPushProvider`, whose token is signed once per push service and
 *    isolate and reused for 6 h.
 *  - `POST /v1/bench/notify/enqueue {userIds, title}` enqueues at once the `notify-send` message a
 *    DM to each user enqueues, so the consumer's own pace is measured, not the writes'.
 */

/** A browser's subscription keys, made once per isolate (the receiving side is not measured). */
let subscription: Promise<{ p256dh: string; auth: string }> | undefined;
function receiverKeys() {
  return (subscription ??= (async () => {
    const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
    const raw = (await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer;
    return { p256dh: base64UrlEncode(raw), auth: base64UrlEncode(crypto.getRandomValues(new Uint8Array(16))) };
  })());
}

const message: PushMessage = {
  type: "alert",
  title: "Ada liked your post",
  body: "… and 12 others",
  url: "https://app.example/p/7",
  thread: "likes:post:7",
  badge: 14,
  urgency: "normal",
  data: { kind: "notification", type: "like" },
};

export const notifyBenchRoutes = new Hono<{ Bindings: Env }>()
  .get("/v1/bench/notify/webpush-requests", async (c) => {
    const n = Math.min(5_000, Math.max(0, Number(c.req.query("n") ?? 100)));
    const fresh = c.req.query("vapid") === "fresh";
    const webpush = pushConfig(c.env).webpush;
    if (!webpush) return c.json({ error: "Web Push is not configured" }, 400);
    const device: WebPushDevice = { kind: "webpush", deviceId: "bench", registeredAt: new Date().toISOString(), endpoint: "https://push.example/wpush/bench", keys: await receiverKeys() };
    const provider = webPushProvider(webpush);
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const request = await provider.request(device, message);
      bytes += typeof request.body === "string" ? request.body.length : request.body.byteLength;
      if (fresh) {
        const key = await importP256PrivateKey(webpush.publicKey, webpush.privateKey, "sign");
        const token = await signJwt("ES256", key, { aud: new URL(device.endpoint).origin, exp: Math.floor(Date.now() / 1000) + 12 * 3600, sub: webpush.subject });
        bytes += token.length;
      }
    }
    return c.json({ n, bytes });
  })
  .post("/v1/bench/notify/enqueue", async (c) => {
    const { userIds, title } = await c.req.json<{ userIds: string[]; title: string }>();
    const alert = resolveAlert("dm", { title }, "dm:bench");
    await enqueuePushes(c.env, userIds.map((userId) => ({ body: { userId, kind: "dm", alert, urgency: urgencyOf("dm") } })));
    return c.json({ enqueued: userIds.length });
  });
