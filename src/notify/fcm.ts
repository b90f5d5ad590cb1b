import type { FcmConfig } from "./config";
import type { FcmDevice } from "./devices";
import { importPkcs8Pem, ReusedToken, signJwt } from "./jwt";
import { PUSH_TTL_SECONDS, type PushMessage, type PushProvider, type PushRequest } from "./message";
import { boundedFetch } from "./provider-fetch";

/**
 * FCM HTTP v1: the service account signs an RS256 assertion (RFC 7523), exchanged at its
 * `token_uri` for an hour-long OAuth access token, reused per isolate until 5 minutes before it
 * expires; then `POST /v1/projects/{project}/messages:send`.
 */

export const FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging";
/** Google's maximum assertion lifetime. */
const ASSERTION_SECONDS = 60 * 60;
/** A token is replaced this long before its expiry, so none expires mid-send. */
const REFRESH_BEFORE_EXPIRY_MS = 5 * 60 * 1000;

export type FcmAccessToken = { token: string; expiresAt: number };

/** The signed assertion the token endpoint takes (claims per Google's service account OAuth flow). */
export async function fcmAssertion(config: FcmConfig, now: number): Promise<string> {
  const key = await importPkcs8Pem(config.privateKey, "RS256");
  const iat = Math.floor(now / 1000);
  return signJwt(
    "RS256",
    key,
    { iss: config.clientEmail, scope: FCM_SCOPE, aud: config.tokenUri, iat, exp: iat + ASSERTION_SECONDS },
    config.privateKeyId ? { kid: config.privateKeyId } : {},
  );
}

/**
 * Exchanges an assertion for an access token; a refusal (a redirect included) is an error naming
 * the status. Bounded like every provider request (provider-fetch.ts).
 */
async function exchange(config: FcmConfig, now: number, fetcher: typeof fetch): Promise<FcmAccessToken> {
  const response = await boundedFetch(fetcher)(config.tokenUri, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: await fcmAssertion(config, now) }).toString(),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`FCM token exchange answered ${response.status}: ${text.slice(0, 200)}`);
  const body = JSON.parse(text) as { access_token?: unknown; expires_in?: unknown };
  if (typeof body.access_token !== "string") throw new Error("FCM token exchange answered no access_token");
  const lifetime = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 3600;
  return { token: body.access_token, expiresAt: now + lifetime * 1000 };
}

/**
 * One access token source per service account and isolate. An exchange goes through the fetcher of
 * the call that needs it (the latest caller's), not the first caller's: sends and topic
 * subscriptions share the token but may be handed different fetchers.
 */
const accessTokens = new Map<string, { reused: ReusedToken<FcmAccessToken>; fetcher: typeof fetch }>();

/** The service account's current access token: fetched once, then reused until shortly before it expires. */
export function fcmAccessToken(config: FcmConfig, now: number = Date.now(), fetcher: typeof fetch = fetch): Promise<FcmAccessToken> {
  const cacheKey = `${config.clientEmail} ${config.tokenUri}`;
  let source = accessTokens.get(cacheKey);
  if (!source) {
    const created: { reused?: ReusedToken<FcmAccessToken>; fetcher: typeof fetch } = { fetcher };
    created.reused = new ReusedToken((issuedAt) => exchange(config, issuedAt, created.fetcher), (t, _age, at) => at < t.expiresAt - REFRESH_BEFORE_EXPIRY_MS);
    source = created as { reused: ReusedToken<FcmAccessToken>; fetcher: typeof fetch };
    accessTokens.set(cacheKey, source);
  }
  source.fetcher = fetcher;
  return source.reused.get(now);
}

/** Drops the cached access token of `config` (FCM answered 401: it was revoked or expired early). */
export function forgetFcmAccessToken(config: FcmConfig): void {
  accessTokens.get(`${config.clientEmail} ${config.tokenUri}`)?.reused.invalidate();
}

/**
 * The v1 message for one device: `notification` (title, body) for an alert, the Android block
 * (priority, ttl, collapse key, tag, `notification_count` = the unread total), an APNs block for
 * iOS apps registered through FCM (`aps.badge`), and `data` (strings only, as FCM requires).
 * A badge-only update carries no notification: a data message with the count.
 */
export function fcmMessage(token: string, message: PushMessage): Record<string, unknown> {
  const alert = message.type === "alert";
  const data: Record<string, string> = { ...message.data, badge: String(message.badge) };
  if (message.url) data.url = message.url;
  if (message.thread) data.thread = message.thread;
  const androidNotification: Record<string, unknown> = { notification_count: message.badge };
  if (message.thread) androidNotification.tag = message.thread;
  return {
    message: {
      token,
      ...(alert ? { notification: { title: message.title ?? "", body: message.body ?? "" } } : {}),
      android: {
        priority: message.urgency === "high" ? "HIGH" : "NORMAL",
        ttl: `${message.ttlSeconds ?? PUSH_TTL_SECONDS}s`,
        ...(message.thread ? { collapse_key: message.thread } : {}),
        ...(alert ? { notification: androidNotification } : {}),
      },
      apns: { payload: { aps: { badge: message.badge, ...(message.thread && alert ? { "thread-id": message.thread } : {}) } } },
      data,
    },
  };
}

/**
 * A broadcast for every device subscribed to `topic`: one send, FCM fans it out. It carries no
 * count: the icon is set to each user's own unread total, never one number for everyone, so the
 * topic message leaves it as it is (`notification_count` and `aps.badge` absent) and the next
 * per-user push, or the app opening, sets it.
 */
export function fcmTopicMessage(topic: string, message: Pick<PushMessage, "title" | "body" | "url" | "thread" | "urgency" | "ttlSeconds" | "data">): Record<string, unknown> {
  const data: Record<string, string> = { ...message.data };
  if (message.url) data.url = message.url;
  if (message.thread) data.thread = message.thread;
  return {
    message: {
      topic,
      notification: { title: message.title ?? "", body: message.body ?? "" },
      android: {
        priority: message.urgency === "high" ? "HIGH" : "NORMAL",
        ttl: `${message.ttlSeconds ?? PUSH_TTL_SECONDS}s`,
        ...(message.thread ? { collapse_key: message.thread, notification: { tag: message.thread } } : {}),
      },
      ...(message.thread ? { apns: { payload: { aps: { "thread-id": message.thread } } } } : {}),
      data,
    },
  };
}

/** `messages:send` of the project, with the current access token. */
async function sendRequest(config: FcmConfig, body: Record<string, unknown>, now: number, fetcher: typeof fetch): Promise<PushRequest> {
  const { token } = await fcmAccessToken(config, now, fetcher);
  return {
    url: `${config.apiUrl}/v1/projects/${encodeURIComponent(config.projectId)}/messages:send`,
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
}

/** The request that sends `message` to every device subscribed to `topic`. */
export function fcmTopicRequest(config: FcmConfig, topic: string, message: Parameters<typeof fcmTopicMessage>[1], now: number = Date.now(), fetcher: typeof fetch = fetch): Promise<PushRequest> {
  return sendRequest(config, fcmTopicMessage(topic, message), now, fetcher);
}

/**
 * Subscribes (`POST`) or unsubscribes (`DELETE`, missing allowed) one registration token to a topic
 * with FCM's topic subscription API (`projects.registrations.topicSubscriptions`, the same access
 * token and scope as sends). FCM answers 409 when the subscription exists: as good as 200.
 */
export async function fcmTopicSubscriptionRequest(
  config: FcmConfig,
  op: "subscribe" | "unsubscribe",
  token: string,
  topic: string,
  now: number = Date.now(),
  fetcher: typeof fetch = fetch,
): Promise<PushRequest & { method: "POST" | "DELETE" }> {
  const { token: accessToken } = await fcmAccessToken(config, now, fetcher);
  const registration = `${config.apiUrl}/v1/projects/${encodeURIComponent(config.projectId)}/registrations/${encodeURIComponent(token)}/topicSubscriptions`;
  return {
    url: op === "subscribe" ? `${registration}?topic_name=${encodeURIComponent(topic)}` : `${registration}/${encodeURIComponent(topic)}?allowMissing=true`,
    method: op === "subscribe" ? "POST" : "DELETE",
    headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json" },
    body: op === "subscribe" ? "{}" : "",
  };
}

export function fcmProvider(config: FcmConfig, fetcher: typeof fetch = fetch): PushProvider<"fcm"> {
  return {
    kind: "fcm",
    request(device: FcmDevice, message: PushMessage, now: number = Date.now()): Promise<PushRequest> {
      return sendRequest(config, fcmMessage(device.token, message), now, fetcher);
    },
  };
}
