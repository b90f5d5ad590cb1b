/**
 * The stack's local push services for tests inside workerd: the push settings that point the
 * Worker's providers at them (`STACK_PUSH_ENV`), and their control and recording API
 * (`STACK_PUSH_URL`, scripts/stack/push/index.ts): web-push-testing subscriptions, marking FCM
 * and APNs tokens gone or throttled, and what each service received.
 */
import { env } from "cloudflare:test";
import type { Env } from "../../src/env";
import type { PushServiceName, ReceivedPush } from "../../scripts/stack/push/received";

export type { ReceivedPush } from "../../scripts/stack/push/received";

type StackBindings = { STACK_PUSH_ENV?: string; STACK_PUSH_URL?: string };

/** The push settings of the stack's services (their credentials, `FCM_API_URL`, `APNS_API_URL`). */
export function stackPushEnv(): Partial<Env> {
  const raw = (env as unknown as StackBindings).STACK_PUSH_ENV;
  if (!raw) throw new Error("STACK_PUSH_ENV binding is missing: run tests through vitest.config.ts");
  return JSON.parse(raw) as Partial<Env>;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const base = (env as unknown as StackBindings).STACK_PUSH_URL;
  if (!base) throw new Error("STACK_PUSH_URL binding is missing: run tests through vitest.config.ts");
  const res = await fetch(`${base}${path}`, { method, headers: body === undefined ? undefined : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`push services ${method} ${path} → ${res.status} ${await res.text()}`);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/** A subscription at web-push-testing, made with the stack's VAPID key (as a browser's would be). */
export function subscribeWebPush(): Promise<{ endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string }> {
  return call("POST", "/webpush/subscriptions");
}

export const expireWebPush = (clientHash: string) => call<void>("POST", `/webpush/subscriptions/${clientHash}/expire`);

export type TokenControl = { unregistered?: true | { timestamp: number }; wrongEnvironment?: true; throttle?: { count: number; retryAfterSeconds: number } };
export const controlFcmToken = (token: string, control: Omit<TokenControl, "wrongEnvironment">) => call<void>("POST", `/fcm/tokens/${encodeURIComponent(token)}`, control);
export const controlApnsToken = (token: string, control: TokenControl) => call<void>("POST", `/apns/tokens/${encodeURIComponent(token)}`, control);

/** What the services received (delivered or refused) for `device`, oldest first. */
export async function receivedBy(service: PushServiceName, device: string): Promise<ReceivedPush[]> {
  const { items } = await call<{ items: ReceivedPush[] }>("GET", `/received?service=${service}&limit=10000`);
  return items.filter((item) => item.device === device);
}

export const pushServiceStats = () => call<{ fcmTokenExchanges: number; apnsTokenUpdates: number }>("GET", "/stats");

/** Every push the services answered after record `after` (their `seq`), oldest first. */
export async function receivedAfter(after: number): Promise<ReceivedPush[]> {
  return (await call<{ items: ReceivedPush[] }>("GET", `/received?after=${after}&limit=10000`)).items;
}

/** The FCM tokens the stand-in has subscribed to `topic`. */
export const fcmTopicSubscribers = async (topic: string) => (await call<{ tokens: string[] }>("GET", `/fcm/topics/${encodeURIComponent(topic)}`)).tokens;

/**
 * The stack's misbehaving endpoint (scripts/stack/push/misbehaving.ts), one of the local push
 * services: Web Push endpoints under a fresh id that hang, redirect, or answer 50 MB.
 */
export async function misbehavingEndpoints(): Promise<{ id: string; hang: string; redirect: string; huge: string }> {
  const { url } = await call<{ url: string }>("GET", "/misbehaving");
  const id = crypto.randomUUID().replaceAll("-", "");
  return { id, hang: `${url}/hang/${id}`, redirect: `${url}/redirect/${id}`, huge: `${url}/huge/${id}` };
}

export type { MisbehavingStats } from "../../scripts/stack/push/misbehaving";
/** What the misbehaving endpoint saw for `id`. */
export const misbehavingStats = (id: string) => call<import("../../scripts/stack/push/misbehaving").MisbehavingStats>("GET", `/misbehaving/${id}`);

/** The subscription calls (subscribe and unsubscribe) the stand-in got for `topic`. */
export const fcmTopicCalls = async (topic: string) => (await call<{ calls: number }>("GET", `/fcm/topics/${encodeURIComponent(topic)}`)).calls;
