import { errorText, log } from "../lib/log";
import { afterResponse, type Services } from "../lib/services";
import type { ResolvedAlert } from "./alerts";
import { classifyTopicAnswer, type Verdict } from "./answers";
import { pushConfig, type FcmConfig } from "./config";
import { fcmTopicRequest, fcmTopicSubscriptionRequest, forgetFcmAccessToken } from "./fcm";
import type { PushRequest } from "./message";
import { boundedFetch } from "./provider-fetch";
import { broadcastWanted, userPreferences } from "./preferences";
import { isFcmToken } from "./token-format";

/**
 * FCM topic messaging for broadcasts: every FCM device is subscribed to the deployment's
 * broadcast topic (FCM_BROADCAST_TOPIC) by the server — at registration, and again (or
 * unsubscribed) when its user turns broadcasts on or off — so a broadcast with push is ONE send
 * that FCM fans out to all of them, and FCM devices are never paged one by one.
 *
 * Server-side, not the app calling the Firebase SDK's `subscribeToTopic`: the server already holds
 * every token, so no app release is needed, a user's `broadcast` preference decides membership,
 * and a deleted device leaves the topic with it. What a topic cannot do: skip users with an open
 * socket (FCM hands an open Android app the message instead of showing it), hold for quiet hours,
 * or carry each user's unread total (the topic message leaves the icon as it is).
 */

type TopicServices = Pick<Services, "env" | "db" | "redisFor" | "waitUntil">;

async function send(request: PushRequest, fetcher: typeof fetch) {
  // Timeout, no redirects, a capped answer (provider-fetch.ts): a no-op when the caller's fetcher is bounded already.
  const response = await boundedFetch(fetcher)(request.url, { method: request.method, headers: request.headers, ...(request.method === "POST" ? { body: request.body } : {}) });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** Sends a broadcast's alert to the topic; the verdict as `classifyTopicAnswer` reads FCM's answer. */
export async function sendToBroadcastTopic(config: FcmConfig, topic: string, alert: ResolvedAlert, fetcher: typeof fetch = fetch): Promise<Verdict> {
  const { title, body, url, thread } = alert;
  const request = await fcmTopicRequest(config, topic, { title, body, url, thread, urgency: "normal", data: { kind: "broadcast" } }, Date.now(), fetcher);
  const verdict = classifyTopicAnswer(await send(request, fetcher));
  if (verdict.action === "retry" && verdict.refreshCredentials) forgetFcmAccessToken(config);
  return verdict;
}

/**
 * Subscribes (or unsubscribes) `tokens` to the broadcast topic, one call each (a user has at most
 * 20); FCM's 409 (already subscribed) counts as done. Best effort: a failure is logged and the
 * token stays as it was (a user turning broadcasts on or off again, or the device registering
 * again, subscribes it again). Returns the tokens done.
 */
export async function setBroadcastTopic(config: FcmConfig, op: "subscribe" | "unsubscribe", tokens: readonly string[], fetcher: typeof fetch = fetch): Promise<string[]> {
  const topic = config.broadcastTopic;
  // A token of another shape is no FCM token: it is never a path segment of FCM's URL.
  const wellFormed = tokens.filter(isFcmToken);
  if (wellFormed.length < tokens.length) log.warn({ message: `FCM topic ${op}: malformed tokens skipped`, topic, skipped: tokens.length - wellFormed.length });
  if (!topic || wellFormed.length === 0) return [];
  const done = await Promise.all(
    wellFormed.map(async (token) => {
      try {
        const answer = await send(await fcmTopicSubscriptionRequest(config, op, token, topic, Date.now(), fetcher), fetcher);
        if ((answer.status >= 200 && answer.status < 300) || (op === "subscribe" && answer.status === 409)) return token;
        if (answer.status === 401) forgetFcmAccessToken(config);
        log.warn({ message: `FCM topic ${op} refused`, topic, status: answer.status, body: answer.body.slice(0, 200) });
      } catch (err) {
        log.warn({ message: `FCM topic ${op} failed`, topic, error: errorText(err) });
      }
      return undefined;
    }),
  );
  return done.filter((t) => t !== undefined);
}

/**
 * After a registration (the registered token) or a change of the `broadcast` preference (all the
 * user's tokens), in the request's `waitUntil`: the `tokens` join the topic when the preferences
 * let broadcasts through, and leave it otherwise. Nothing when FCM or its topic is not configured.
 * Any other preferences change calls nothing: membership follows `broadcast` alone.
 */
export async function syncBroadcastTopic(services: TopicServices, userId: string, tokens: readonly string[], fetcher: typeof fetch = fetch): Promise<void> {
  const fcm = pushConfig(services.env).fcm;
  if (!fcm?.broadcastTopic || tokens.length === 0) return;
  const wanted = broadcastWanted(await userPreferences(services, userId));
  await setBroadcastTopic(fcm, wanted ? "subscribe" : "unsubscribe", tokens, fetcher);
}

/**
 * `syncBroadcastTopic` after the response, on services of its own (`tokens` may be read then from
 * them): a failure is logged, the change it follows stands.
 */
export function syncBroadcastTopicLater(request: Pick<Services, "env" | "events" | "waitUntil">, userId: string, tokens: readonly string[] | ((services: Services) => Promise<readonly string[]>)): void {
  if (!pushConfig(request.env).fcm?.broadcastTopic) return;
  const sync = afterResponse(request, async (services) => syncBroadcastTopic(services, userId, typeof tokens === "function" ? await tokens(services) : tokens));
  request.waitUntil(sync.catch((err: unknown) => log.warn({ message: "FCM topic sync failed", userId, error: errorText(err) })));
}

/** Deleted or evicted FCM devices leave the topic, after the response (logged on failure). */
export function leaveBroadcastTopicLater(services: Pick<Services, "env" | "waitUntil">, tokens: readonly string[]): void {
  if (tokens.length === 0) return;
  const fcm = pushConfig(services.env).fcm;
  if (!fcm?.broadcastTopic) return;
  services.waitUntil(setBroadcastTopic(fcm, "unsubscribe", tokens));
}
