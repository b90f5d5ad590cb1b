import type { Env } from "../env";
import { errorText, log } from "../lib/log";
import type { Services } from "../lib/services";
import type { NotifyQueueMessage, NotifySendMessage } from "./send-message";

/**
 * The `notify-send` queue's messages: one per user and event (or per batch of a user's devices a
 * service asked to retry). A write enqueues; the consumer (`sender.ts`) loads the user's devices,
 * reads the unread total at the time of sending and sends. Nothing is sent from the request.
 */

/** The queues as wrangler.toml names them (a test checks it). */
export const NOTIFY_QUEUES = { send: "notify-send" } as const;
export const NOTIFY_DEAD_LETTER_QUEUES = { send: "notify-send-dlq" } as const;

export type { AuthorPageMessage, BroadcastPageMessage, NotifyQueueMessage, NotifySendMessage } from "./send-message";

/** The longest delay a queue message may have (Cloudflare Queues: 12 hours). */
export const MAX_DELAY_SECONDS = 12 * 60 * 60;

/** Enqueues pushes (from a write's `waitUntil`, never awaited by the response). */
export async function enqueuePushes(env: Pick<Env, "NOTIFY_QUEUE">, messages: readonly { body: NotifyQueueMessage; delaySeconds?: number }[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 100) {
    await env.NOTIFY_QUEUE.sendBatch(messages.slice(i, i + 100).map((m) => ({ body: m.body, ...(m.delaySeconds ? { delaySeconds: m.delaySeconds } : {}) })));
  }
}

/** `enqueuePushes` in the write's `waitUntil`: a failure is logged (the badge write stands; the open app still learns it). */
export function enqueueLater(services: Pick<Services, "env" | "waitUntil">, messages: readonly { body: NotifySendMessage; delaySeconds?: number }[]): void {
  if (messages.length === 0) return;
  services.waitUntil(enqueuePushes(services.env, messages).catch((err: unknown) => log.error({ message: "push enqueue failed", users: messages.map((m) => m.body.userId), error: errorText(err) })));
}
