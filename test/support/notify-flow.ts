import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { expect } from "vitest";
import { events } from "../../src/app";
import type { Env } from "../../src/env";
import { createNotifyQueueHandler } from "../../src/notify/sender";
import type { NotifyQueueMessage, NotifySendMessage } from "../../src/notify/sends";
import { iconTotal } from "../../src/notify/unread-total";
import { api, newId, show } from "./api";
import { decryptPush, newSubscriptionKeys, pushTestKeys } from "./push";

/**
 * The `notify-send` flow under test: a producer that records what a write enqueued, a push
 * service that records what the consumer sent, and a user with a Web Push device whose pushes the
 * test decrypts. The consumer is run by hand over what was queued, as the queue would deliver it.
 */

/** What was queued, read as a push (a broadcast or author page is queued too: tests read it through the same shape, or narrow it with `pagesOf`). */
export type Queued = { body: NotifySendMessage; delaySeconds?: number };

/** The `notify-send` producer, recording what a write enqueued. */
export function recordingQueue() {
  const queued: Queued[] = [];
  const queue = {
    async send(body: NotifySendMessage, options?: { delaySeconds?: number }) {
      queued.push({ body, ...(options?.delaySeconds ? { delaySeconds: options.delaySeconds } : {}) });
    },
    async sendBatch(messages: Iterable<{ body: NotifySendMessage; delaySeconds?: number }>) {
      for (const m of messages) queued.push({ body: m.body, ...(m.delaySeconds ? { delaySeconds: m.delaySeconds } : {}) });
    },
  };
  return { queue: queue as unknown as Queue<NotifyQueueMessage>, queued };
}

/** The queued messages of one page kind (`author-page`, `broadcast-page`). */
export function pagesOf<K extends Exclude<NotifyQueueMessage["kind"], NotifySendMessage["kind"]>>(queued: readonly Queued[], kind: K): Extract<NotifyQueueMessage, { kind: K }>[] {
  return queued.map((q) => q.body as unknown as NotifyQueueMessage).filter((b): b is Extract<NotifyQueueMessage, { kind: K }> => b.kind === kind);
}

/** A push service: answers each request with the next answer for its URL (201 when none), and records it. */
export function recordingPushService() {
  const received: { url: string; headers: Record<string, string>; body: Uint8Array }[] = [];
  const answers = new Map<string, Response[]>();
  const fetcher = (async (input: string, init: RequestInit) => {
    const url = String(input);
    if (url.endsWith("/token")) return new Response(JSON.stringify({ access_token: "at", expires_in: 3600 }));
    received.push({ url, headers: init.headers as Record<string, string>, body: typeof init.body === "string" ? new TextEncoder().encode(init.body) : new Uint8Array(init.body as Uint8Array) });
    return answers.get(url)?.shift() ?? new Response("", { status: 201 });
  }) as unknown as typeof fetch;
  return { fetcher, received, answer: (url: string, ...responses: Response[]) => answers.set(url, responses) };
}

let keys: Promise<Partial<Env>> | undefined;

/** The push providers' test keys, made once per file. */
export function pushKeys(): Promise<Partial<Env>> {
  keys ??= pushTestKeys().then((k) => k.env);
  return keys;
}

/** A new user with one Web Push device (`browser`), the env whose queue records, and the consumer to run. */
export async function notifyFlow() {
  const q = recordingQueue();
  const push = recordingPushService();
  const env: Partial<Env> = { ...(await pushKeys()), NOTIFY_QUEUE: q.queue };
  const me = newId();
  const receiver = await newSubscriptionKeys();
  const endpoint = `https://fcm.googleapis.com/wp/${crypto.randomUUID()}`;
  const res = await api("PUT", `/v1/me/devices/browser`, { as: { userId: me }, env, body: { kind: "webpush", endpoint, keys: { p256dh: receiver.p256dh, auth: receiver.auth } } });
  expect(res.status, show(res)).toBe(200);
  /**
   * Runs the consumer over what was queued (as the queue would deliver it), leaving the queue empty;
   * with `only`, over just the messages it picks, the others left queued (a test that needs an order
   * the queue does not promise, e.g. one post's page before the next post's, delivers them so).
   */
  async function deliver(only?: (body: NotifyQueueMessage) => boolean) {
    const pending = only ? q.queued.filter((m) => only(m.body as NotifyQueueMessage)) : q.queued.splice(0);
    if (only) q.queued.splice(0, q.queued.length, ...q.queued.filter((m) => !pending.includes(m)));
    const batch = createMessageBatch<NotifyQueueMessage>("notify-send", pending.map((m, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body: m.body as NotifyQueueMessage })));
    const ctx = createExecutionContext();
    await createNotifyQueueHandler(events, push.fetcher)(batch, { ...((await import("cloudflare:test")).env as unknown as Env), ...env } as Env, ctx);
    return { pending, result: await getQueueResult(batch, ctx) };
  }
  const decrypted = async (i: number) => JSON.parse(await decryptPush(push.received[i]!.body, receiver)) as Record<string, unknown>;
  return { me, env, endpoint, queued: q.queued, push, deliver, decrypted };
}

/** The icon's number for `userId` as `GET /v1/me/badges` gives it. */
export const badgeTotal = async (userId: string) => iconTotal((await api("GET", "/v1/me/badges", { as: { userId } })).body);
