import type { ApnsConfig } from "./config";
import type { ApnsDevice } from "./devices";
import { importPkcs8Pem, ReusedToken, signJwt } from "./jwt";
import { PUSH_TTL_SECONDS, type PushMessage, type PushProvider, type PushRequest } from "./message";

/**
 * APNs with token authentication: one ES256 provider token (`kid` = APNS_KEY_ID, `iss` =
 * APNS_TEAM_ID, `iat`) per isolate, reused for 50 minutes. Apple refuses tokens older than an hour
 * (403 ExpiredProviderToken) and new ones more often than every 20 minutes (429
 * TooManyProviderTokenUpdates), so a token is never replaced before it is 20 minutes old, even
 * when APNs calls it expired.
 */

export const APNS_HOSTS = { production: "https://api.push.apple.com", sandbox: "https://api.sandbox.push.apple.com" } as const;
export type ApnsEnvironment = keyof typeof APNS_HOSTS;

/** Reuse window: replaced at 50 minutes of age (inside Apple's 20–60). */
export const APNS_TOKEN_REUSE_MS = 50 * 60 * 1000;
/** Apple's floor between two provider tokens. */
export const APNS_TOKEN_MIN_AGE_MS = 20 * 60 * 1000;
/** apns-collapse-id is at most 64 bytes. */
const MAX_COLLAPSE_ID_BYTES = 64;

const providerTokens = new Map<string, ReusedToken<{ token: string }>>();

function tokenSource(config: ApnsConfig): ReusedToken<{ token: string }> {
  const cacheKey = `${config.teamId} ${config.keyId}`;
  let reused = providerTokens.get(cacheKey);
  if (!reused) {
    reused = new ReusedToken(async (issuedAt) => {
      const key = await importPkcs8Pem(config.privateKey, "ES256");
      return { token: await signJwt("ES256", key, { iss: config.teamId, iat: Math.floor(issuedAt / 1000) }, { kid: config.keyId, typ: undefined }) };
    }, (_token, ageMs) => ageMs < APNS_TOKEN_REUSE_MS);
    providerTokens.set(cacheKey, reused);
  }
  return reused;
}

/** The provider token to send with, reused across pushes for its window. */
export async function apnsProviderToken(config: ApnsConfig, now: number = Date.now()): Promise<string> {
  return (await tokenSource(config).get(now)).token;
}

/**
 * APNs answered 403 ExpiredProviderToken: the token is dropped only if it is at least 20 minutes
 * old (a younger one is kept and the push retried later). Returns whether it was dropped.
 */
export function expireApnsProviderToken(config: ApnsConfig, now: number = Date.now()): boolean {
  return tokenSource(config).invalidate(now, APNS_TOKEN_MIN_AGE_MS);
}

/** Where a device's pushes go: Apple's host for its environment, or the configured stand-in. */
export function apnsOrigin(config: ApnsConfig, environment: ApnsEnvironment): string {
  return config.apiUrl ?? APNS_HOSTS[environment];
}

/** The `aps` payload: alert, badge (the unread total, set not added), thread; a badge-only update has just the badge. */
export function apnsPayload(message: PushMessage): Record<string, unknown> {
  const aps: Record<string, unknown> = { badge: message.badge };
  if (message.type === "alert") {
    aps.alert = { title: message.title ?? "", body: message.body ?? "" };
    aps.sound = "default";
    if (message.thread) aps["thread-id"] = message.thread;
  }
  return { aps, ...(message.url ? { url: message.url } : {}), ...message.data };
}

/** A collapse id ≤ 64 bytes: the thread itself, or its SHA-256 (hex, 64 bytes) when longer. */
export async function apnsCollapseId(thread: string): Promise<string> {
  const bytes = new TextEncoder().encode(thread);
  if (bytes.length <= MAX_COLLAPSE_ID_BYTES) return thread;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Headers per Apple's "Sending notification requests to APNs": `apns-push-type` alert (a badge-only
 * update is an alert push too: Apple's background type may not carry a badge), `apns-priority`
 * 10 for a high-urgency alert and 5 otherwise (Apple's rule for anything not shown at once),
 * `apns-expiration` 48 h ahead, `apns-collapse-id` from the thread.
 */
export function apnsProvider(config: ApnsConfig): PushProvider<"apns"> {
  return {
    kind: "apns",
    async request(device: ApnsDevice, message: PushMessage, now: number = Date.now()): Promise<PushRequest> {
      const headers: Record<string, string> = {
        authorization: `bearer ${await apnsProviderToken(config, now)}`,
        "apns-topic": device.topic,
        "apns-push-type": "alert",
        "apns-priority": message.type === "alert" && message.urgency === "high" ? "10" : "5",
        "apns-expiration": String(Math.floor(now / 1000) + (message.ttlSeconds ?? PUSH_TTL_SECONDS)),
        "content-type": "application/json",
      };
      if (message.thread) headers["apns-collapse-id"] = await apnsCollapseId(message.thread);
      return {
        url: `${apnsOrigin(config, device.environment)}/3/device/${encodeURIComponent(device.token)}`,
        method: "POST",
        headers,
        body: JSON.stringify(apnsPayload(message)),
      };
    },
  };
}
