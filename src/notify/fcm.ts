import type { FcmConfig } from "./config";
import type { FcmDevice } from "./devices";
import { importPkcs8Pem, ReusedToken, signJwt } from "./jwt";
import { PUSH_TTL_SECONDS, type PushMessage, type PushProvider, type PushRequest } from "./message";

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

/** Exchanges an assertion for an access token; a refusal is an error naming the status. */
async function exchange(config: FcmConfig, now: number, fetcher: typeof fetch): Promise<FcmAccessToken> {
  const response = await fetcher(config.tokenUri, {
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

/** One access token source per service account and isolate. */
const accessTokens = new Map<string, ReusedToken<FcmAccessToken>>();

/** The service account's current access token: fetched once, then reused until shortly before it expires. */
export function fcmAccessToken(config: FcmConfig, now: number = Date.now(), fetcher: typeof fetch = fetch): Promise<FcmAccessToken> {
  const cacheKey = `${config.clientEmail} ${config.tokenUri}`;
  let reused = accessTokens.get(cacheKey);
  if (!reused) {
    reused = new ReusedToken((issuedAt) => exchange(config, issuedAt, fetcher), (t, _age, at) => at < t.expiresAt - REFRESH_BEFORE_EXPIRY_MS);
    accessTokens.set(cacheKey, reused);
  }
  return reused.get(now);
}

/** Drops the cached access token of `config` (FCM answered 401: it was revoked or expired early). */
export function forgetFcmAccessToken(config: FcmConfig): void {
  accessTokens.get(`${config.clientEmail} ${config.tokenUri}`)?.invalidate();
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

export function fcmProvider(config: FcmConfig, fetcher: typeof fetch = fetch): PushProvider<"fcm"> {
  return {
    kind: "fcm",
    async request(device: FcmDevice, message: PushMessage, now: number = Date.now()): Promise<PushRequest> {
      const { token } = await fcmAccessToken(config, now, fetcher);
      return {
        url: `${config.apiUrl}/v1/projects/${encodeURIComponent(config.projectId)}/messages:send`,
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(fcmMessage(device.token, message)),
      };
    },
  };
}
