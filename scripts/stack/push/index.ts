/**
 * The local push services of the stack, for `npm run dev`, the tests and the benchmarks:
 * `web-push-testing` (Web Push), and the FCM and APNs stand-ins, configured with the
 * deployment's push credentials so that they check what the Worker signs, plus one small control
 * and recording API for all three:
 *
 *   GET  /received?after=SEQ&service=webpush|fcm|apns&limit=N → {items: ReceivedPush[]} in arrival
 *        order (every push answered, delivered or refused; the last 10,000 kept)
 *   POST /webpush/subscriptions                 → {endpoint, keys: {p256dh, auth}, clientHash}
 *   POST /webpush/subscriptions/{clientHash}/expire → 204 (later pushes answer 410)
 *   POST /fcm/tokens/{token}   ← {unregistered?: true, throttle?: {count, retryAfterSeconds}} → 204
 *   POST /apns/tokens/{token}  ← {unregistered?: true | {timestamp}, wrongEnvironment?: true,
 *                                 throttle?: {count, retryAfterSeconds}} → 204
 *   GET  /stats                → {fcmTokenExchanges, apnsTokenUpdates}
 *   GET  /fcm/topics/{topic}   → {tokens, calls}: the FCM tokens subscribed to the topic, and the
 *                                subscription calls made for it (subscribe and unsubscribe)
 *   GET  /misbehaving          → {url}: the misbehaving endpoint (misbehaving.ts: /hang, /redirect,
 *                                /huge under an id of the caller's)
 *   GET  /misbehaving/{id}     → what it saw for that id (requests per path, huge bytes written)
 *
 * The Worker reaches them through `vars`: the credentials, the service account's `token_uri`
 * pointing at the FCM stand-in, `FCM_API_URL` and `APNS_API_URL`, and WEBPUSH_LOCAL_ORIGINS (the
 * origins of web-push-testing and the misbehaving endpoint, which Web Push devices may then
 * point at with ENVIRONMENT=development).
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { generatePushVars, type DevPushVars } from "../../dev-push-keys.js";
import { ReceivedLog, type PushServiceName } from "./received.js";
import { startWebPushService, type WebPushService } from "./web-push.js";
import { startFcmStandIn, type FcmServiceAccount, type FcmStandIn } from "./fcm-standin.js";
import { startApnsStandIn, type ApnsStandIn } from "./apns-standin.js";
import { sendAnswer, type Answer } from "./standin-http.js";
import { startMisbehavingEndpoint, type MisbehavingEndpoint } from "./misbehaving.js";

export type { ReceivedPush, PushServiceName } from "./received.js";
export { describePush } from "./received.js";

export interface PushServices {
  /** The Worker's push settings pointing at these services. */
  vars: Record<string, string>;
  /** The control and recording API (above). */
  controlUrl: string;
  received: ReceivedLog;
  webPush: WebPushService;
  fcm: FcmStandIn;
  apns: ApnsStandIn;
  misbehaving: MisbehavingEndpoint;
  stop(): Promise<void>;
}

export interface PushServicesOptions {
  /** The Worker's push credentials (dev: the generated dev keys or `.dev.vars`); generated when absent. */
  credentials?: DevPushVars;
  /**
   * Refuse APNs provider tokens replaced within 20 minutes, as Apple does (default true). Dev turns
   * it off: every reload of the Worker signs a new token, and a developer would get 429s for 20
   * minutes after each save (the updates are still counted).
   */
  enforceApnsTokenUpdates?: boolean;
  log?: (line: string) => void;
}

export async function startPushServices({ credentials, enforceApnsTokenUpdates = true, log = () => {} }: PushServicesOptions = {}): Promise<PushServices> {
  const keys = credentials ?? (await generatePushVars());
  const received = new ReceivedLog();
  const account = JSON.parse(keys.FCM_SERVICE_ACCOUNT) as FcmServiceAccount & Record<string, unknown>;
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch((error: unknown) => log(`push: stop step failed: ${String(error)}`));
    stops.length = 0;
  };
  try {
    const webPush = await startWebPushService({ vapidPublicKey: keys.VAPID_PUBLIC_KEY, received, log });
    stops.push(() => webPush.stop());
    const fcm = await startFcmStandIn({ account, received });
    stops.push(() => fcm.close());
    const apns = await startApnsStandIn({
      key: { keyId: keys.APNS_KEY_ID, teamId: keys.APNS_TEAM_ID, privateKey: keys.APNS_PRIVATE_KEY, topics: splitTopics(keys.APNS_TOPIC) },
      received,
      enforceTokenUpdates: enforceApnsTokenUpdates,
    });
    stops.push(() => apns.close());
    const misbehaving = await startMisbehavingEndpoint();
    stops.push(() => misbehaving.close());

    async function route(req: IncomingMessage): Promise<Answer> {
      const url = new URL(req.url ?? "/", "http://push");
      const method = req.method ?? "GET";
      const path = url.pathname;
      if (method === "GET" && path === "/received") {
        const service = url.searchParams.get("service") ?? undefined;
        if (service !== undefined && !["webpush", "fcm", "apns"].includes(service)) return [400, { error: "service must be webpush, fcm or apns" }];
        await webPush.sync();
        const items = received.list({ after: Number(url.searchParams.get("after") ?? 0) || 0, service: service as PushServiceName | undefined, limit: Math.min(Number(url.searchParams.get("limit") ?? 1_000) || 1_000, 10_000) });
        return [200, { items }];
      }
      if (method === "GET" && path === "/stats") return [200, { fcmTokenExchanges: fcm.exchanges, apnsTokenUpdates: apns.tokenUpdates }];
      if (method === "GET" && path === "/misbehaving") return [200, { url: misbehaving.url }];
      const misbehavingId = /^\/misbehaving\/([A-Za-z0-9_-]{1,64})$/.exec(path)?.[1];
      if (method === "GET" && misbehavingId) return [200, misbehaving.stats(misbehavingId)];
      const topic = /^\/fcm\/topics\/([^/]{1,900})$/.exec(path)?.[1];
      if (method === "GET" && topic) return [200, { tokens: fcm.subscribers(decodeURIComponent(topic)), calls: fcm.subscriptionCalls(decodeURIComponent(topic)) }];
      if (method === "POST" && path === "/webpush/subscriptions") return [200, await webPush.subscribe()];
      const expire = /^\/webpush\/subscriptions\/([0-9a-f]{64})\/expire$/.exec(path)?.[1];
      if (method === "POST" && expire) return (await webPush.expire(expire), [204]);
      const control = /^\/(fcm|apns)\/tokens\/([^/]{1,4096})$/.exec(path);
      if (method === "POST" && control) {
        const token = decodeURIComponent(control[2]!);
        const body = (await readJson(req)) as { unregistered?: unknown; wrongEnvironment?: unknown; throttle?: { count?: unknown; retryAfterSeconds?: unknown } };
        const throttle = body.throttle;
        if (throttle !== undefined && !(Number.isInteger(throttle.count) && Number.isInteger(throttle.retryAfterSeconds) && (throttle.count as number) > 0)) {
          return [400, { error: "throttle must be {count: positive integer, retryAfterSeconds: integer}" }];
        }
        if (control[1] === "fcm") {
          if (body.unregistered === true) fcm.markUnregistered(token);
          if (throttle) fcm.throttle(token, throttle.count as number, throttle.retryAfterSeconds as number);
        } else {
          const at = (body.unregistered as { timestamp?: unknown } | undefined)?.timestamp;
          if (body.unregistered === true || typeof at === "number") apns.markUnregistered(token, typeof at === "number" ? at : undefined);
          if (body.wrongEnvironment === true) apns.markWrongEnvironment(token);
          if (throttle) apns.throttle(token, throttle.count as number, throttle.retryAfterSeconds as number);
        }
        return [204];
      }
      return [404, { error: `no route ${method} ${path}` }];
    }

    const server = createServer((req, res) => {
      route(req).then(
        (answer) => sendAnswer(res, answer),
        (error: unknown) => sendAnswer(res, [500, { error: String(error) }]),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    stops.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const controlUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    log(`push: FCM stand-in ${fcm.url}, APNs stand-in ${apns.url} (HTTP/2 and HTTP/1.1), control ${controlUrl}`);

    return {
      vars: {
        ...keys,
        FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, token_uri: fcm.tokenUri }),
        FCM_API_URL: fcm.url,
        APNS_API_URL: apns.url,
        WEBPUSH_LOCAL_ORIGINS: `${webPush.url},${misbehaving.url}`,
      },
      controlUrl,
      received,
      webPush,
      fcm,
      apns,
      misbehaving,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function splitTopics(value: string | undefined): string[] {
  return (value ?? "").split(",").map((t) => t.trim()).filter(Boolean);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 64 * 1024) throw new Error("body too large");
  }
  return text ? JSON.parse(text) : {};
}
