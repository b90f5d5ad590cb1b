import { deferForBudget, withoutDeferral, type Deferrable } from "../lib/deferral";
import { settleFailedMessage } from "../lib/queue-failures";
import { type NewDeadLetter, recordDeadLetters } from "../lib/ops/dead-letters";
import { recordBroadcastProgress, type BroadcastProgress } from "../lib/ops/record";
import { isBudgetRefusal, isRedisOutage } from "../lib/redis-failures";
import type { Prefetched } from "./cached-row";
import { notifyKeys, REFUSAL_COUNT_TTL_SECONDS } from "./keys";
import type { Env } from "../env";
import type { EventBus } from "../lib/events";
import { errorText, log } from "../lib/log";
import { createServices, type Services } from "../lib/services";
import { MAX_DEVICE_REFUSALS, retryDelaySeconds, type Verdict } from "./answers";
import { notifyNow } from "./clock";
import { pushConfig, type PushConfig } from "./config";
import type { Device } from "./devices";
import type { PushMessage } from "./message";
import { boundedFetch, limiter } from "./provider-fetch";
import { sendPush } from "./providers";
import { expandAuthorPage } from "./authors";
import { expandBroadcastPage } from "./broadcast";
import type { BroadcastTopicMessage } from "./send-message";
import { enqueuePushes, MAX_DELAY_SECONDS, NOTIFY_DEAD_LETTER_QUEUES, NOTIFY_QUEUES, type NotifyQueueMessage, type NotifySendMessage } from "./sends";
import { sendToBroadcastTopic } from "./topic";
import { unreadTotal } from "./unread-total";
import { removeGoneDevice, userDevices } from "./user-devices";
import { takeWindowCount } from "./windows";

/**
 * The `notify-send` consumer: one message is one user's push. It loads the user's devices (the
 * cached list), reads the unread total now (the icon is set to what is true when the push leaves,
 * not when the event happened), builds the push per device and acts on each service's verdict:
 * `delete` removes the device, `retry` re-enqueues only the devices that failed with the delay the
 * backoff and `Retry-After` ask (MAX_PUSH_ATTEMPTS, then dead), `dead` keeps a dead letter with the
 * reason for the operator console (a refusal of the device is counted too, and the
 * MAX_DEVICE_REFUSALS-th removes it). Every provider request is bounded (provider-fetch.ts: a
 * timeout, no redirects, a capped answer); a batch's users are handled side by side and share a
 * pool of PUSH_CONCURRENCY connections, so a slow device delays nobody else's push. A message
 * that fails before anything was sent (Redis or Postgres down) is retried by the queue and then
 * lands in `notify-send-dlq`.
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

/**
 * The devices a message goes to: all the user's, or the retried ones, or those of its kinds (a
 * broadcast's FCM devices heard it through the topic); a badge-only update skips Web Push (no
 * silent pushes).
 */
function targetsOf(message: NotifySendMessage, devices: readonly Device[]): Device[] {
  const wanted = message.deviceIds ? new Set(message.deviceIds) : undefined;
  const kinds = message.deviceKinds ? new Set<string>(message.deviceKinds) : undefined;
  return devices.filter((d) => (!wanted || wanted.has(d.deviceId)) && (!kinds || kinds.has(d.kind)) && !(message.kind === "read" && d.kind === "webpush"));
}

/**
 * The user's devices for a send: the cached list (one GET), Postgres when Redis is down — but a
 * budget refusal is thrown, so the message is deferred (`deferForBudget`) rather than sent with an
 * icon number the database could not read.
 */
async function devicesToSend(services: Services, userId: string): Promise<Device[]> {
  let cached: Prefetched;
  try {
    cached = { cached: await services.redisFor(userId).get(notifyKeys.devices(userId)) };
  } catch (err) {
    if (isBudgetRefusal(err) || !isRedisOutage(err)) throw err;
    cached = "redis down";
  }
  return userDevices(services, userId, cached);
}

/** Runs a provider request when a connection is free (`limiter` in provider-fetch.ts); unlimited by default. */
export type SendSlots = <T>(task: () => Promise<T>) => Promise<T>;
const unlimited: SendSlots = (task) => task();

/**
 * Provider requests one queue batch has open at once, over all its messages: Workers keep at most
 * 6 outbound connections per invocation, and the batch's Redis and Postgres calls need the rest.
 */
export const PUSH_CONCURRENCY = 4;
/** Messages of one batch handled at once (each its own Redis reads, Postgres on a cache miss). */
export const MESSAGE_CONCURRENCY = 4;

/**
 * A push refused for the device (`refusedDevice`): counted for its registration (one round trip:
 * INCR and EXPIRE); true at the MAX_DEVICE_REFUSALS-th, when the device goes as a gone one does.
 */
async function refusedTooOften(services: Services, userId: string, device: Device): Promise<boolean> {
  const key = notifyKeys.refusals(userId, device.deviceId, Date.parse(device.registeredAt) || 0);
  const [count] = await services.redisFor(userId).pipeline().incr(key).expire(key, REFUSAL_COUNT_TTL_SECONDS).exec<[number, number]>();
  return count >= MAX_DEVICE_REFUSALS;
}

/**
 * Sends one message to its user's devices and carries out every verdict, each device on its own:
 * the sends run side by side (through `slots`), and what one device's verdict needs (a delete, a
 * refusal count, a dead letter) failing never touches another's. A device whose verdict could not
 * be carried out is re-enqueued alone with the retries, so once anything was sent the message is
 * not retried whole (that would send again to the devices that got it); only a failure before
 * any send, or of that one re-enqueue, throws.
 */
export async function sendToUser(services: Services, config: PushConfig, message: NotifySendMessage, fetcher: typeof fetch = fetch, slots: SendSlots = unlimited): Promise<SendOutcome> {
  const outcome: SendOutcome = { delivered: [], deleted: [], retried: [], dead: [] };
  const now = notifyNow(services.env);
  if (message.heldUntil !== undefined && message.heldUntil > now) {
    // Quiet hours longer than one queue delay: wait again, nothing read.
    await enqueuePushes(services.env, [{ body: message, delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil((message.heldUntil - now) / 1000)) }]);
    return outcome;
  }
  const targets = targetsOf(message, await devicesToSend(services, message.userId));
  // The window's count is read and cleared even with no device, so the next window starts at 0.
  const others = message.window ? await takeWindowCount(services, message.userId, message.window) : 0;
  if (targets.length === 0) return outcome;
  const push = pushFor(message, await unreadTotal(services, message.userId), others);
  const verdicts = await Promise.all(
    targets.map((device) => slots(() => sendPush(config, device, push, fetcher)).catch((err: unknown): Verdict => ({ action: "retry", reason: `send failed: ${errorText(err)}` }))),
  );
  const retries: { deviceId: string; after?: number; reason: string }[] = [];
  await Promise.all(
    targets.map(async (device, i) => {
      const verdict = verdicts[i]!;
      try {
        switch (verdict.action) {
          case "delivered":
            outcome.delivered.push(device.deviceId);
            return;
          case "retry":
            retries.push({ deviceId: device.deviceId, ...(verdict.retryAfterSeconds !== undefined ? { after: verdict.retryAfterSeconds } : {}), reason: verdict.reason });
            return;
          case "dead":
            // Redis down: not counted, a dead letter as any other refusal.
            if (!verdict.refusedDevice || !(await refusedTooOften(services, message.userId, device).catch(() => false))) {
              outcome.dead.push({ deviceId: device.deviceId, reason: verdict.reason });
              return;
            }
            await removeGoneDevice(services, device);
            outcome.deleted.push(device.deviceId);
            log.info({ message: `push device refused ${MAX_DEVICE_REFUSALS} times; deleted`, userId: message.userId, deviceId: device.deviceId, kind: device.kind, reason: verdict.reason });
            return;
          case "delete":
            await removeGoneDevice(services, device);
            outcome.deleted.push(device.deviceId);
            log.info({ message: "push device gone; deleted", userId: message.userId, deviceId: device.deviceId, kind: device.kind, reason: verdict.reason });
            return;
        }
      } catch (err) {
        // The verdict could not be carried out (Postgres or Redis failed): this device alone is tried again.
        retries.push({ deviceId: device.deviceId, reason: `${verdict.action === "delivered" ? "delivered" : verdict.reason}; then ${errorText(err)}` });
      }
    }),
  );
  const { window: _window, ...rest } = message;
  const deadLetter = (d: { deviceId: string; reason: string }): NewDeadLetter => ({ queue: NOTIFY_QUEUES.send, body: { ...rest, deviceIds: [d.deviceId], attempt: 1 }, lastError: d.reason });
  if (outcome.dead.length > 0) {
    try {
      await recordDeadLetters(services.db, outcome.dead.map(deadLetter));
      log.error({ message: "push dead-lettered", userId: message.userId, dead: outcome.dead });
    } catch (err) {
      // Not kept (Postgres down): those devices are tried again with the retries, and kept then.
      retries.push(...outcome.dead.map((d) => ({ deviceId: d.deviceId, reason: `${d.reason}; dead letter not kept: ${errorText(err)}` })));
      outcome.dead = [];
    }
  }
  if (retries.length > 0) {
    const attempt = message.attempt ?? 1;
    const after = Math.max(0, ...retries.map((r) => r.after ?? 0));
    const delaySeconds = retryDelaySeconds(attempt, after || undefined);
    if (delaySeconds === undefined) {
      const dead = retries.map((r) => ({ deviceId: r.deviceId, reason: `${r.reason} (after ${attempt} attempts)` }));
      await recordDeadLetters(services.db, dead.map(deadLetter));
      outcome.dead.push(...dead);
      log.error({ message: "push dead-lettered", userId: message.userId, dead });
    } else {
      // The retry carries what was sent (the collapsed count included), not the window again.
      const alert = push.type === "alert" && message.alert ? { alert: { ...message.alert, ...(push.body !== undefined ? { body: push.body } : {}) } } : {};
      await enqueuePushes(services.env, [{ body: { ...rest, ...alert, deviceIds: retries.map((r) => r.deviceId), attempt: attempt + 1 }, delaySeconds }]);
      outcome.retried.push(...retries.map((r) => r.deviceId));
    }
  }
  return outcome;
}

export function isNotifyQueue(queue: string): boolean {
  return queue === NOTIFY_QUEUES.send || queue === NOTIFY_DEAD_LETTER_QUEUES.send;
}

/**
 * A broadcast's one send to the FCM broadcast topic. Its verdict is carried out here: a retry is
 * queued again with the backoff (and `Retry-After`) until MAX_PUSH_ATTEMPTS, then, as a refusal,
 * it is a dead letter (replayable in the console). Returns what the broadcast's progress gains.
 */
export async function sendBroadcastTopic(services: Services, config: PushConfig, message: BroadcastTopicMessage, fetcher: typeof fetch = fetch): Promise<BroadcastProgress> {
  const progress = (set: BroadcastProgress["set"], add?: BroadcastProgress["add"]): BroadcastProgress => ({ id: message.broadcastId, set: { topic: message.topic, ...set }, ...(add ? { add } : {}) });
  const verdict: Verdict = config.fcm
    ? await sendToBroadcastTopic(config.fcm, message.topic, message.alert, fetcher).catch((err: unknown): Verdict => ({ action: "retry", reason: `send failed: ${errorText(err)}` }))
    : { action: "dead", reason: "fcm is not configured on this deployment" };
  if (verdict.action === "delivered") return progress({ topicSentAt: Date.now() });
  const attempt = message.attempt ?? 1;
  const delaySeconds = verdict.action === "retry" ? retryDelaySeconds(attempt, verdict.retryAfterSeconds) : undefined;
  if (delaySeconds !== undefined) {
    await enqueuePushes(services.env, [{ body: { ...message, attempt: attempt + 1 }, delaySeconds }]);
    return progress({ topicError: `${verdict.reason} (retrying)` }, { retried: 1 });
  }
  const reason = verdict.action === "retry" ? `${verdict.reason} (after ${attempt} attempts)` : verdict.reason;
  await recordDeadLetters(services.db, [{ queue: NOTIFY_QUEUES.send, body: { ...message, attempt: 1 }, lastError: reason }]);
  log.error({ message: "broadcast topic send dead-lettered", broadcastId: message.broadcastId, topic: message.topic, reason });
  return progress({ topicError: reason });
}

/** A broadcast's progress from this batch's pushes, summed per broadcast: one write for the batch. */
function progressOf(tally: Map<string, BroadcastProgress>, update: BroadcastProgress): void {
  const known = tally.get(update.id);
  if (!known) {
    tally.set(update.id, { ...update, add: { ...update.add }, set: { ...update.set } });
    return;
  }
  for (const [field, n] of Object.entries(update.add ?? {}) as [keyof NonNullable<BroadcastProgress["add"]>, number][]) known.add![field] = (known.add![field] ?? 0) + n;
  Object.assign(known.set!, update.set);
  if (update.startedAt !== undefined) known.startedAt = update.startedAt;
}

/** A batch's messages grouped by the user they push to (pages and topic sends alone), in batch order. */
function byUser<M extends Message<Deferrable<NotifyQueueMessage>>>(messages: readonly M[]): M[][] {
  const groups = new Map<string, M[]>();
  messages.forEach((message, i) => {
    const body = message.body as { userId?: unknown };
    const key = typeof body.userId === "string" ? `user:${body.userId}` : `message:${i}`;
    groups.set(key, [...(groups.get(key) ?? []), message]);
  });
  return [...groups.values()];
}

/** Runs `task` over `items`, at most `size` at once. */
async function inTurns<T>(items: readonly T[], size: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

/**
 * The Worker's `queue()` for `notify-send` and its dead-letter queue. A message failing as a whole
 * is retried by the queue; in the dead-letter queue it gets one last try and is then kept in
 * Postgres (`dead_letters`) for the console, as the feed's are. A message refused for a Redis
 * database's command budget is not a failure: it is sent again with a growing delay
 * (`deferForBudget`, src/lib/deferral.ts), so an overrun, however long, uses up no retries.
 * What the batch did for push broadcasts is written to their progress in one round trip.
 */
export function createNotifyQueueHandler(events: EventBus, fetcher: typeof fetch = (input, init) => fetch(input, init)) {
  return async function queue(batch: MessageBatch<Deferrable<NotifyQueueMessage>>, env: Env, ctx: ExecutionContext) {
    const { services, close } = createServices(env, ctx, events);
    try {
      const config = pushConfig(env);
      const dead = batch.queue === NOTIFY_DEAD_LETTER_QUEUES.send;
      const kept: NewDeadLetter[] = [];
      const overBudget: Message<Deferrable<NotifyQueueMessage>>[] = [];
      const progress = new Map<string, BroadcastProgress>();
      // Every provider request of the batch bounded (provider-fetch.ts) and through one pool of
      // PUSH_CONCURRENCY connections; users handled side by side, each user's messages in order.
      const bounded = boundedFetch(fetcher, config.requestTimeoutMs);
      const slots = limiter(PUSH_CONCURRENCY);
      const handle = async (message: Message<Deferrable<NotifyQueueMessage>>) => {
        const body = withoutDeferral(message.body);
        try {
          if (body.kind === "broadcast-page") {
            const { users, ...page } = await expandBroadcastPage(services, body, config);
            progressOf(progress, page);
            message.ack();
            log.info({ queue: batch.queue, broadcastId: body.broadcastId, after: body.after, users });
            return;
          }
          if (body.kind === "broadcast-topic") {
            progressOf(progress, await sendBroadcastTopic(services, config, body, bounded));
            message.ack();
            log.info({ queue: batch.queue, broadcastId: body.broadcastId, topic: body.topic });
            return;
          }
          if (body.kind === "author-page") {
            const page = await expandAuthorPage(services, body);
            message.ack();
            log.info({ queue: batch.queue, postId: body.postId, authorId: body.authorId, after: body.after, ...page });
            return;
          }
          const outcome = await sendToUser(services, config, body, bounded, slots);
          message.ack();
          if (body.broadcastId) {
            const add = { sent: outcome.delivered.length, dropped: outcome.deleted.length, failed: outcome.dead.length, retried: outcome.retried.length };
            progressOf(progress, { id: body.broadcastId, add });
          }
          log.info({ queue: batch.queue, userId: body.userId, kind: body.kind, delivered: outcome.delivered.length, deleted: outcome.deleted.length, retried: outcome.retried.length, dead: outcome.dead.length });
        } catch (err) {
          settleFailedMessage(message, err, { queue: batch.queue, deadLetterOf: dead ? NOTIFY_QUEUES.send : undefined, body, what: "push", overBudget, kept });
        }
      };
      await inTurns(byUser(batch.messages), MESSAGE_CONCURRENCY, async (messages) => {
        for (const message of messages) await handle(message);
      });
      if (overBudget.length > 0) await deferForBudget<NotifyQueueMessage>(env.NOTIFY_QUEUE, batch.queue, overBudget, "pushes");
      await recordBroadcastProgress(services.redisAt(0), [...progress.values()]);
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
