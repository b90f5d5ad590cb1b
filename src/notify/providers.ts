import { classifyAnswer, type Verdict } from "./answers";
import { apnsProvider, expireApnsProviderToken } from "./apns";
import type { PushConfig } from "./config";
import type { Device, DeviceKind } from "./devices";
import { fcmProvider, forgetFcmAccessToken } from "./fcm";
import type { PushMessage, PushProvider } from "./message";
import { boundedFetch } from "./provider-fetch";
import { endpointProblem } from "./push-hosts";
import { webPushProvider } from "./webpush";

/** The configured providers by device kind; an unconfigured kind is absent. */
export type PushProviders = { [K in DeviceKind]?: PushProvider<K> };

export function pushProviders(config: PushConfig, fetcher: typeof fetch = fetch): PushProviders {
  return {
    ...(config.webpush ? { webpush: webPushProvider(config.webpush) } : {}),
    ...(config.fcm ? { fcm: fcmProvider(config.fcm, fetcher) } : {}),
    ...(config.apns ? { apns: apnsProvider(config.apns) } : {}),
  };
}

/**
 * Sends one message to one device and says what the answer means (`classifyAnswer`). Every
 * request, the FCM token exchange included, goes through `boundedFetch` (timeout, no redirects, a
 * capped answer). A refused credential is dropped here (FCM's access token; APNs' provider token
 * once 20 minutes old) so the retry signs a new one. A device whose provider is not configured any
 * more is a dead letter; a Web Push endpoint the deployment no longer allows is never requested
 * and the device goes (a row registered before the rule, or under another WEBPUSH_ALLOWED_HOSTS).
 */
export async function sendPush(config: PushConfig, device: Device, message: PushMessage, fetcher: typeof fetch = fetch, now: number = Date.now()): Promise<Verdict> {
  const bounded = boundedFetch(fetcher, config.requestTimeoutMs);
  const provider = pushProviders(config, bounded)[device.kind] as PushProvider | undefined;
  if (!provider) return { action: "dead", reason: `${device.kind} is not configured on this deployment` };
  if (device.kind === "webpush") {
    const problem = endpointProblem(device.endpoint, config.webpush!.endpoints);
    if (problem) return { action: "delete", reason: `endpoint not allowed: ${problem}` };
  }
  const request = await provider.request(device as never, message, now);
  const response = await bounded(request.url, { method: request.method, headers: request.headers, body: request.body });
  const verdict = classifyAnswer(device, {
    status: response.status,
    body: await response.text(),
    headers: response.headers,
    // Requests go to the host of the device's own environment (or the stand-in configured for both).
    ...(device.kind === "apns" ? { sentTo: device.environment } : {}),
  });
  if (verdict.action === "retry" && verdict.refreshCredentials) {
    if (device.kind === "fcm" && config.fcm) forgetFcmAccessToken(config.fcm);
    if (device.kind === "apns" && config.apns) expireApnsProviderToken(config.apns, now);
  }
  return verdict;
}
