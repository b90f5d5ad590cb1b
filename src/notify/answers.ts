import type { Device } from "./devices";

/**
 * What a push service's answer does to the device and the push: decided here and nowhere else
 * (the sender only carries the verdict out). As Mastodon's and Discourse's workers do, a device is
 * deleted only on the answers that say it is gone for good; our own credential problems and the
 * service's overload are retried; anything else is a dead letter with the reason, never retried
 * forever.
 */
export type Verdict =
  | { action: "delivered" }
  | { action: "delete"; reason: string }
  | { action: "retry"; reason: string; retryAfterSeconds?: number; refreshCredentials?: boolean }
  | { action: "dead"; reason: string; refusedDevice?: true };

/** The answer as the sender saw it, plus where the request went (APNs: which environment's host). */
export type PushAnswer = { status: number; body: string; headers: Headers; sentTo?: "production" | "sandbox" };

/**
 * The statuses by which a push service refuses this device's pushes for good (a malformed or
 * foreign token, a subscription of another key, a payload it will never take): each is counted
 * against the device (`refusedDevice`), and MAX_DEVICE_REFUSALS of them remove it, as a 410 does
 * at once, instead of a dead letter per push forever. A redirect is one too: push services do
 * not redirect, and it is never followed.
 */
const REFUSING_STATUSES = new Set([400, 403, 413]);
/** Refusals of our own credentials, not of the device: never counted against it. */
const CREDENTIAL_REASONS = new Set(["MissingProviderToken", "InvalidProviderToken", "ExpiredProviderToken", "TooManyProviderTokenUpdates", "PERMISSION_DENIED", "THIRD_PARTY_AUTH_ERROR", "UNAUTHENTICATED"]);

export function classifyAnswer(device: Device, answer: PushAnswer): Verdict {
  const verdict = classifyStatus(device, answer);
  if (verdict.action !== "dead") return verdict;
  const reason = reasonOf(device, answer);
  const refused = (answer.status >= 300 && answer.status < 400) || (REFUSING_STATUSES.has(answer.status) && !(reason && CREDENTIAL_REASONS.has(reason)));
  return refused ? { ...verdict, refusedDevice: true } : verdict;
}

function classifyStatus(device: Device, answer: PushAnswer): Verdict {
  if (answer.status >= 200 && answer.status < 300) return { action: "delivered" };
  if (answer.status >= 300 && answer.status < 400) return { action: "dead", reason: `${answer.status} redirect to ${answer.headers.get("Location")?.slice(0, 200) ?? "nowhere"} (not followed)` };
  const retryAfterSeconds = parseRetryAfter(answer.headers.get("Retry-After"));
  if (answer.status === 429 || answer.status >= 500) {
    return { action: "retry", reason: `${answer.status} ${reasonOf(device, answer) ?? "try later"}`, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
  }
  switch (device.kind) {
    case "webpush":
      // RFC 8030 §6.2 / §7.3: the subscription expired or was removed.
      if (answer.status === 404 || answer.status === 410) return { action: "delete", reason: `${answer.status} subscription gone` };
      break;
    case "fcm": {
      const code = reasonOf(device, answer);
      if (code === "UNREGISTERED" || (answer.status === 404 && code === "NOT_FOUND")) return { action: "delete", reason: `${answer.status} ${code}` };
      // Our access token was refused (revoked or expired early): a new one, then again.
      if (answer.status === 401) return { action: "retry", reason: `401 ${code ?? "UNAUTHENTICATED"}`, refreshCredentials: true };
      break;
    }
    case "apns": {
      const reason = reasonOf(device, answer);
      if (answer.status === 410 && reason === "Unregistered") {
        // Apple's timestamp (ms) is when the token stopped being valid: a device registered again
        // after it is a new registration of the same token and stays.
        const timestamp = apnsTimestamp(answer.body);
        if (timestamp !== undefined && Date.parse(device.registeredAt) > timestamp) return { action: "dead", reason: "410 Unregistered before the device registered again" };
        return { action: "delete", reason: "410 Unregistered" };
      }
      if (answer.status === 400 && reason === "BadDeviceToken") {
        // A sandbox token sent to production (or the reverse) is answered BadDeviceToken too: only
        // a refusal by the host of the environment the device registered with condemns it.
        if (answer.sentTo === device.environment) return { action: "delete", reason: `400 BadDeviceToken (${device.environment})` };
        return { action: "dead", reason: `400 BadDeviceToken from ${answer.sentTo ?? "another host"}, device registered for ${device.environment}` };
      }
      if (answer.status === 403 && reason === "ExpiredProviderToken") return { action: "retry", reason: "403 ExpiredProviderToken", refreshCredentials: true };
      break;
    }
  }
  return { action: "dead", reason: `${answer.status} ${reasonOf(device, answer) ?? "refused"}` };
}

/**
 * What FCM's answer to a topic send (a broadcast) means: there is no device to delete, so it is
 * delivered, retried (429 and 5xx with their `Retry-After`; 401 with a new access token) or dead
 * with FCM's reason.
 */
export function classifyTopicAnswer(answer: PushAnswer): Verdict {
  if (answer.status >= 200 && answer.status < 300) return { action: "delivered" };
  const reason = `${answer.status} ${fcmReason(answer.body) ?? "refused"}`;
  const retryAfterSeconds = parseRetryAfter(answer.headers.get("Retry-After"));
  if (answer.status === 429 || answer.status >= 500) return { action: "retry", reason, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
  if (answer.status === 401) return { action: "retry", reason, refreshCredentials: true };
  return { action: "dead", reason };
}

/** The provider's own word for the failure: APNs `reason`, FCM's `errorCode` (or status), Web Push's text. */
function reasonOf(device: Device, answer: PushAnswer): string | undefined {
  if (device.kind === "apns") {
    const reason = parseJson(answer.body)?.reason;
    return typeof reason === "string" ? reason : undefined;
  }
  if (device.kind === "fcm") return fcmReason(answer.body);
  const text = answer.body.trim().slice(0, 200);
  return text || undefined;
}

/** FCM's `errorCode` (in the error's details), else the error's status. */
function fcmReason(text: string): string | undefined {
  const error = parseJson(text)?.error as { status?: unknown; details?: { errorCode?: unknown }[] } | undefined;
  const code = error?.details?.find((d) => typeof d?.errorCode === "string")?.errorCode;
  return typeof code === "string" ? code : typeof error?.status === "string" ? error.status : undefined;
}

function apnsTimestamp(text: string): number | undefined {
  const value = parseJson(text)?.timestamp;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Refusals (`refusedDevice`) after which a device is removed; counted per registration, for REFUSAL_COUNT_TTL_SECONDS. */
export const MAX_DEVICE_REFUSALS = 3;

/** Attempts a push gets before a retryable failure becomes a dead letter. */
export const MAX_PUSH_ATTEMPTS = 6;
/** Backoff: 10 s doubling per attempt, at most 15 minutes; Retry-After wins when it asks for longer, capped at 1 h. */
const BASE_DELAY_SECONDS = 10;
const MAX_BACKOFF_SECONDS = 15 * 60;
const MAX_RETRY_AFTER_SECONDS = 60 * 60;

/**
 * When to try a retryable push again (`attempt` = attempts made so far, from 1), or `undefined`
 * when it has had its attempts and goes to the dead letters.
 */
export function retryDelaySeconds(attempt: number, retryAfterSeconds?: number): number | undefined {
  if (attempt >= MAX_PUSH_ATTEMPTS) return undefined;
  const backoff = Math.min(MAX_BACKOFF_SECONDS, BASE_DELAY_SECONDS * 2 ** (attempt - 1));
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(backoff, retryAfterSeconds ?? 0));
}
