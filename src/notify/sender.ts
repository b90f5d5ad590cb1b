import { type NewDeadLetter, recordDeadLetters } from "../lib/ops/dead-letters";
import type { Env } from "../env";
import type { EventBus } from "../lib/events";
import { errorText, log } from "../lib/log";
import { createServices, type Services } from "../lib/services";
import { retryDelaySeconds, type Verdict } from "./answers";
import { notifyNow } from "./clock";
import { pushConfig, type PushConfig } from "./config";
import type { Device } from "./devices";
import type { PushMessage } from "./message";
import { sendPush } from "./providers";
import { expandAuthorPage } from "./authors";
import { expandBroadcastPage } from "./broadcast";
import { enqueuePushes, MAX_DELAY_SECONDS, NOTIFY_DEAD_LETTER_QUEUES, NOTIFY_QUEUES, type NotifyQueueMessage, type NotifySendMessage } from "./sends";
import { unreadTotal } from "./unread-total";
import { removeGoneDevice, userDevices } from "./user-devices";
import { takeWindowCount } from "./windows";

/**
 * The `notify-send` consumer: one message is one user's push. It loads the user's devices (the
 * cached list), reads the unread total now (the icon is set to what is true when the push leaves,
 * not when the event happened), builds the push per device and acts on each service's verdict:
 * `delete` removes the device, `retry` re-enqueues only the devices that failed with the delay the
 * backoff and `Retry-After` ask (MAX_PUSH_ATTEMPTS, then dead), `dead` keeps a dead letter with the
 * reason for the operator console. A message that fails as a whole (Redis or Postgres down) is
 * retried by the queue and then lands in `notify-send-dlq`.
 */

export type SendOutcome = { delivered: string[]; deleted: string[]; retried: string[]; dead: { deviceId: string; reason: string }[] };

/** The push a device gets for `message`, with the icon set to `badge`. */
export function pushFor(message: NotifySendMessage, badge: number, others = 0): PushMessage {
  if (message.kind === "read" || !message.alert) return { type: "badge", badge, urgency: "normal" };
  const { title, body, url, thread } = message.alert;
  const more = others > 0 ? `${body ? `${body} ` : ""}… and ${others} other${others === 1 ? "" : "s"}` : body;
  return {
    type: "alert",
    title,
    ...(more ? { body: more } : {}),
    ...(url !== undefined ? { url } : {}),
    thread,
    badge,
    urgency: message.urgency,
    data: { kind: message.kind, ...(message.type ? { type: message.type } : {}) },
  };
}

/** The devices a message goes to: all the user's, or the retried ones; a badge-only update skips Web Push (no silent pushes). */
function targetsOf(message: NotifySendMessage, devices: readonly Device[]): Device[] {
  const wanted = message.deviceIds ? new Set(message.deviceIds) : undefined;
  return devices.filter((d) => (!wanted || wanted.has(d.deviceId)) && !(message.kind === "read" && d.kind === "webpush"));
}

/** Sends one message to its user's devices and carries out every verdict. */
export async function sendToUser(services: Services, config: PushConfig, message: NotifySendMessage, fetcher: typeof fetch = fetch): Promise<SendOutcome> {
  const outcome: SendOutcome = { delivered: [], deleted: [], retried: [], dead: [] };
  const now = notifyNow(services.env);
  if (message.heldUntil !== undefined && message.heldUntil > now) {
    // Quiet hours longer than one queue delay: wait again, nothing read.
    await enqueuePushes(services.env, [{ body: message, delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil((message.heldUntil - now) / 1000)) }]);
    return outcome;
  }
  const targets = targetsOf(message, await userDevices(services, message.userId));
  // The window's count is read and cleared even with no device, so the next window starts at 0.
  const others = message.window ? await takeWindowCount(services, message.userId, message.window) : 0;
  if (targets.length === 0) return outcome;
  const push = pushFor(message, await unreadTotal(services, message.userId), others);
  const verdicts = await Promise.all(
    targets.map((device) => sendPush(config, device, push, fetcher).catch((err: unknown): Verdict => ({ action: "retry", reason: `send failed: ${errorText(err)}` }))),
  );
  const retries: { deviceId: string; after?: number; reason: string }[] = [];
  await Promise.all(
    targets.map(async (device, i) => {
      const verdict = verdicts[i]!;
      switch (verdict.action) {
        case "delivered":
          outcome.delivered.push(device.deviceId);
          return;
        case "delete":
          await removeGoneDevice(services, device);
          outcome.deleted.push(device.deviceId);
          log.info({ message: "push device gone; deleted", userId: message.userId, deviceId: device.deviceId, kind: device.kind, reason: verdict.reason });
          return;
        case "retry":
          retries.push({ deviceId: device.deviceId, ...(verdict.retryAfterSeconds !== undefined ? { after: verdict.retryAfterSeconds } : {}), reason: verdict.reason });
          return;
        case "dead":
          outcome.dead.push({ deviceId: device.deviceId, reason: verdict.reason });
      }
    }),
  );
  if (retries.length > 0) {
    const attempt = message.attempt ?? 1;
    const after = Math.max(0, ...retries.map((r) => r.after ?? 0));
    const delaySeconds = retryDelaySeconds(attempt, after || undefined);
    if (delaySeconds === undefined) {
      outcome.dead.push(...retries.map((r) => ({ deviceId: r.deviceId, reason: `${r.reason} (after ${attempt} attempts)` })));
    } else {
      // The retry carries what was sent (the collapsed count included), not the window again.
      const { window: _window, ...rest } = message;
      const alert = push.type === "alert" && message.alert ? { alert: { ...message.alert, ...(push.body !== undefined ? { body: push.body } : {}) } } : {};
      await enqueuePushes(services.env, [{ body: { ...rest, ...alert, deviceIds: retries.map((r) => r.deviceId), attempt: attempt + 1 }, delaySeconds }]);
      outcome.retried.push(...retries.map((r) => r.deviceId));
    }
  }
  if (outcome.dead.length > 0) {
    const { window: _window, ...rest } = message;
    await recordDeadLetters(
      services.db,
      outcome.dead.map((d): NewDeadLetter => ({ queue: NOTIFY_QUEUES.send, body: { ...rest, deviceIds: [d.deviceId], attempt: 1 }, lastError: d.reason })),
    );
    log.error({ message: "push dead-lettered", userId: message.userId, dead: outcome.dead });
  }
  return outcome;
}

export function isNotifyQueue(queue: string): boolean {
  return queue === NOTIFY_QUEUES.send || queue === NOTIFY_DEAD_LETTER_QUEUES.send;
}

/**
 * The Worker's `queue()` for `notify-send` and its dead-letter queue. A message failing as a whole
 * is retried by the queue; in the dead-letter queue it gets one last try and is then kept in
 * Postgres (`dead_letters`) for the console, as the feed's are.
 */
export function createNotifyQueueHandler(events: EventBus, fetcher: typeof fetch = (input, init) => fetch(input, init)) {
  return async function queue(batch: MessageBatch<NotifyQueueMessage>, env: Env, ctx: ExecutionContext) {
    const { services, close } = createServices(env, ctx, events);
    try {
      const config = pushConfig(env);
      const dead = batch.queue === NOTIFY_DEAD_LETTER_QUEUES.send;
      const kept: NewDeadLetter[] = [];
      for (const message of batch.messages) {
        try {
          const body = message.body;
          if (body.kind === "broadcast-page") {
            const users = await expandBroadcastPage(services, body);
            message.ack();
            log.info({ queue: batch.queue, broadcastId: body.broadcastId, after: body.after, users });
            continue;
          }
          if (body.kind === "author-page") {
            const page = await expandAuthorPage(services, body);
            message.ack();
            log.info({ queue: batch.queue, postId: body.postId, authorId: body.authorId, after: body.after, ...page });
            continue;
          }
          const outcome = await sendToUser(services, config, body, fetcher);
          message.ack();
          log.info({ queue: batch.queue, userId: body.userId, kind: body.kind, delivered: outcome.delivered.length, deleted: outcome.deleted.length, retried: outcome.retried.length, dead: outcome.dead.length });
        } catch (err) {
          if (dead) {
            kept.push({ queue: NOTIFY_QUEUES.send, body: message.body, lastError: errorText(err) });
            log.error({ message: "push dead-lettered", queue: batch.queue, body: message.body, error: errorText(err) });
          } else {
            message.retry();
            log.error({ message: "push failed; retrying", queue: batch.queue, body: message.body, attempts: message.attempts, error: errorText(err) });
          }
        }
      }
      if (dead) {
        // Postgres down: the whole batch is retried by the dead-letter queue, not dropped.
        await recordDeadLetters(services.db, kept);
        batch.ackAll();
      }
    } finally {
      ctx.waitUntil(close());
    }
  };
}
