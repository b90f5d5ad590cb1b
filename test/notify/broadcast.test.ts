/**
 * Broadcasts with push at scale, through the real stack: FCM devices subscribed to the broadcast
 * topic by the server and reached by ONE topic send (the FCM stand-in records it and the tokens it
 * reached), Web Push and APNs devices paged through `notify-send` to web-push-testing and the APNs
 * stand-in, the broadcast's progress in `GET /v1/admin/status`, and the consumer deferring — not
 * retrying — messages refused for a database's command budget.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { events } from "../../src/app";
import type { readStatus } from "../../src/admin/status";
import type { Env } from "../../src/env";
import type { Deferrable } from "../../src/lib/deferral";
import { createNotifyQueueHandler } from "../../src/notify/sender";
import type { NotifyQueueMessage, NotifySendMessage } from "../../src/notify/sends";
import { closeLive, openLive } from "../badges/live-helpers";
import { api, newId, show } from "../support/api";
import { eventually } from "../support/eventually";
import { fcmToken, pushTestKeys, newSubscriptionKeys } from "../support/push";
import { fcmTopicCalls, fcmTopicSubscribers, receivedBy, stackPushEnv, subscribeWebPush } from "../support/push-services";
import { createChaos } from "../support/stack";
import { queryRows } from "../../src/counters/store";
import { withServices } from "../counters/support";

afterEach(closeLive);

const admin = { userId: "1", role: "admin" as const };
/** Offline Web Push users added to the broadcast test's audience (answered as delivered by its fetcher). */
const CROWD = 300;
const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");

/** The `notify-send` producer, recording what was sent to it. */
function recordingQueue() {
  const queued: { body: Deferrable<NotifyQueueMessage>; delaySeconds?: number }[] = [];
  const queue = {
    async send(body: NotifyQueueMessage, options?: { delaySeconds?: number }) {
      queued.push({ body: structuredClone(body), ...(options?.delaySeconds ? { delaySeconds: options.delaySeconds } : {}) });
    },
    async sendBatch(messages: Iterable<{ body: NotifyQueueMessage; delaySeconds?: number }>) {
      for (const m of messages) queued.push({ body: structuredClone(m.body), ...(m.delaySeconds ? { delaySeconds: m.delaySeconds } : {}) });
    },
  };
  return { queue: queue as unknown as Queue<NotifyQueueMessage>, queued };
}

/** Runs the Worker's notify-send consumer over `bodies` as one batch; answers the batch's acks and retries. */
async function consume(bodies: Deferrable<NotifyQueueMessage>[], bindings: Partial<Env>, fetcher?: typeof fetch) {
  const batch = createMessageBatch<Deferrable<NotifyQueueMessage>>("notify-send", bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })));
  const ctx = createExecutionContext();
  await createNotifyQueueHandler(events, fetcher)(batch, { ...(env as unknown as Env), ...bindings } as Env, ctx);
  return getQueueResult(batch, ctx);
}

describe("a broadcast with push: one FCM topic send, Web Push and APNs paged", () => {
  const topic = `broadcast-${hex(4)}`;
  const q = recordingQueue();
  const pushEnv = (): Partial<Env> => ({ ...stackPushEnv(), ENVIRONMENT: "development", FCM_BROADCAST_TOPIC: topic, NOTIFY_QUEUE: q.queue });
  const put = (userId: string, deviceId: string, body: unknown) => api("PUT", `/v1/me/devices/${deviceId}`, { as: { userId }, env: pushEnv(), body });

  /** Users and their devices: `all` offline with one device of each kind, `online` with a socket, `fcmOnly`, `quiet` (broadcasts off). */
  async function audience() {
    const [all, online, fcmOnly, quiet] = [newId(), newId(), newId(), newId()];
    const sub = await subscribeWebPush();
    const tokens = { all: fcmToken(`fcm-${hex(12)}`), fcmOnly: fcmToken(`fcm-${hex(12)}`), quiet: fcmToken(`fcm-${hex(12)}`) };
    const apns = { all: hex(32), online: hex(32) };
    const apnsBody = (token: string) => ({ kind: "apns", token, environment: "sandbox", topic: "com.example.community" });
    for (const [userId, deviceId, body] of [
      [all, "browser", { kind: "webpush", endpoint: sub.endpoint, keys: sub.keys }],
      [all, "pixel", { kind: "fcm", token: tokens.all }],
      [all, "iphone", apnsBody(apns.all)],
      [online, "iphone", apnsBody(apns.online)],
      [fcmOnly, "pixel", { kind: "fcm", token: tokens.fcmOnly }],
      [quiet, "pixel", { kind: "fcm", token: tokens.quiet }],
    ] as const) {
      const res = await put(userId, deviceId, body);
      expect(res.status, show(res)).toBe(200);
    }
    const off = await api("PUT", "/v1/me/notification-preferences", { as: { userId: quiet }, env: pushEnv(), body: { kinds: { broadcast: false } } });
    expect(off.status, show(off)).toBe(200);
    return { all, online, fcmOnly, quiet, sub, tokens, apns };
  }

  it("subscribes FCM tokens to the topic at registration, as preferences allow; a deleted device leaves it", async () => {
    const a = await audience();
    const subscribed = await fcmTopicSubscribers(topic);
    expect(subscribed).toEqual(expect.arrayContaining([a.tokens.all, a.tokens.fcmOnly]));
    expect(subscribed, "broadcasts turned off: unsubscribed").not.toContain(a.tokens.quiet);
    const on = await api("PUT", "/v1/me/notification-preferences", { as: { userId: a.quiet }, env: pushEnv(), body: {} });
    expect(on.status, show(on)).toBe(200);
    expect(await fcmTopicSubscribers(topic)).toContain(a.tokens.quiet);
    expect((await api("DELETE", "/v1/me/devices/pixel", { as: { userId: a.fcmOnly }, env: pushEnv() })).status).toBe(200);
    expect(await fcmTopicSubscribers(topic)).not.toContain(a.tokens.fcmOnly);
  });

  it("calls FCM's topic API only when broadcasts are turned on or off, never for another preferences change", async () => {
    const own = `broadcast-${hex(4)}`;
    const env = (): Partial<Env> => ({ ...pushEnv(), FCM_BROADCAST_TOPIC: own });
    const me = newId();
    const tokens = [fcmToken(`fcm-${hex(12)}`), fcmToken(`fcm-${hex(12)}`)];
    for (const [i, token] of tokens.entries()) expect((await api("PUT", `/v1/me/devices/pixel-${i}`, { as: { userId: me }, env: env(), body: { kind: "fcm", token } })).status).toBe(200);
    // One subscription per registration.
    expect(await fcmTopicCalls(own)).toBe(2);
    const preferences = (body: unknown) => api("PUT", "/v1/me/notification-preferences", { as: { userId: me }, env: env(), body });
    for (const body of [{ types: { like: false } }, { kinds: { dm: false }, quietHours: { start: "22:00", end: "07:00", timeZone: "Europe/Paris" } }, { kinds: { broadcast: true } }, {}]) {
      const res = await preferences(body);
      expect(res.status, show(res)).toBe(200);
    }
    expect(await fcmTopicCalls(own), "broadcasts stayed on: no topic call").toBe(2);
    expect((await preferences({ kinds: { broadcast: false } })).status).toBe(200);
    expect(await fcmTopicCalls(own), "turned off: one unsubscribe per device").toBe(4);
    expect(await fcmTopicSubscribers(own)).toEqual([]);
    expect((await preferences({ kinds: { broadcast: false }, types: { like: true } })).status).toBe(200);
    expect(await fcmTopicCalls(own), "still off: none").toBe(4);
    expect((await preferences({})).status).toBe(200);
    expect(await fcmTopicCalls(own), "on again: one subscribe per device").toBe(6);
    expect((await fcmTopicSubscribers(own)).sort()).toEqual([...tokens].sort());
  });

  it("sends once to the topic, pages the rest, and shows its progress in GET /v1/admin/status", async () => {
    const a = await audience();
    await openLive(a.online);
    // A crowd of offline Web Push users, written straight to Postgres (as registrations leave
    // them), so the pages and the consumer have real work for the rate printed below.
    const crowd = Array.from({ length: CROWD }, () => newId());
    const receiver = await newSubscriptionKeys();
    await withServices({}, (services) =>
      queryRows(
        services.db,
        `INSERT INTO notify_devices (user_id, device_id, kind, address, details, registered_at)
         SELECT u, 'browser', 'webpush', 'https://fcm.googleapis.com/wp/crowd-' || u, $2, now() FROM unnest($1::bigint[]) u`,
        [crowd, JSON.stringify({ keys: { p256dh: receiver.p256dh, auth: receiver.auth } })],
      ),
    );
    q.queued.length = 0;
    const res = await api("POST", "/v1/broadcasts", { as: admin, env: pushEnv(), body: { title: "Tonight", body: "Maintenance at 2", push: true } });
    expect(res.status, show(res)).toBe(201);
    const id = res.body.id as string;
    const alert = { title: "Tonight", body: "Maintenance at 2", thread: `broadcast:${id}` };
    expect(q.queued.map((m) => m.body)).toEqual([
      { kind: "broadcast-topic", broadcastId: id, alert, topic },
      { kind: "broadcast-page", broadcastId: id, alert, after: null, startedAt: expect.any(Number) },
    ]);

    // The stack's push services answer for this file's devices; every other user with a device
    // (other test files') is answered as delivered here, so nothing of theirs is really sent.
    const perDeviceFcm: string[] = [];
    const ours = (url: string) => url === a.sub.endpoint || url.endsWith(`/3/device/${a.apns.all}`) || url.endsWith(`/3/device/${a.apns.online}`);
    const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (url.includes("/messages:send")) {
        const token = (JSON.parse(String(init?.body)) as { message: { token?: string } }).message.token;
        if (token) perDeviceFcm.push(token);
        return fetch(input, init);
      }
      if (ours(url) || url.endsWith("/token")) return fetch(input, init);
      return new Response(null, { status: url.includes("/3/device/") ? 200 : 201 });
    }) as typeof fetch;
    // Timed for docs/push-delivery.md ("Figures"): the consumer's own work per push on this stack,
    // one batch at a time (a deployment runs many batches at once). Printed, never asserted.
    let pushMessages = 0;
    let consumingMs = 0;
    for (let round = 0; round < 10 && q.queued.length > 0; round++) {
      const bodies = q.queued.splice(0).map((m) => m.body);
      pushMessages += bodies.filter((b) => "userId" in b).length;
      const started = Date.now();
      for (let i = 0; i < bodies.length; i += 10) {
        // Batches of wrangler.toml's max_batch_size (10), as the queue delivers them.
        const result = await consume(bodies.slice(i, i + 10), pushEnv(), fetcher);
        expect(result.retryMessages, "nothing failed as a whole").toEqual([]);
      }
      if (round > 0) consumingMs += Date.now() - started;
    }
    const pushes = q.queued.map((m) => m.body as NotifySendMessage);
    expect(pushes, "every push sent, none retried").toEqual([]);

    // FCM: one topic send reaching every subscribed token; no FCM device paged one by one.
    const topicSends = await receivedBy("fcm", `/topics/${topic}`);
    expect(topicSends).toHaveLength(1);
    expect(topicSends[0]).toMatchObject({ status: 200, title: "Tonight", body: "Maintenance at 2", reached: (await fcmTopicSubscribers(topic)).length });
    expect(topicSends[0]!.reached).toBeGreaterThanOrEqual(1);
    expect(perDeviceFcm).toEqual([]);
    for (const token of [a.tokens.all, a.tokens.fcmOnly, a.tokens.quiet]) expect(await receivedBy("fcm", token)).toEqual([]);
    // Web Push and APNs: the offline user's devices, each once; nothing to the user with a socket.
    expect((await receivedBy("webpush", a.sub.clientHash)).map((p) => [p.status, p.title])).toEqual([[201, "Tonight"]]);
    expect((await receivedBy("apns", a.apns.all)).map((p) => [p.status, p.title])).toEqual([[200, "Tonight"]]);
    expect(await receivedBy("apns", a.apns.online)).toEqual([]);

    const status = await api("GET", "/v1/admin/status", { as: admin });
    expect(status.status, show(status)).toBe(200);
    const progress = (status.body as Awaited<ReturnType<typeof readStatus>>).notify.broadcasts.find((b) => b.id === id);
    expect(progress, JSON.stringify(status.body.notify)).toBeDefined();
    const { devices, users, pages } = progress!;
    expect(progress).toMatchObject({ state: "done", topic: { name: topic, sentAt: expect.any(String), error: null }, startedAt: expect.any(String), pagedAt: expect.any(String), finishedAt: expect.any(String) });
    expect(devices.queued).toBeGreaterThanOrEqual(2);
    expect(devices).toEqual({ queued: devices.queued, sent: devices.queued, failed: 0, dropped: 0, pending: 0, retries: 0 });
    expect(users.queued).toBeGreaterThanOrEqual(1 + CROWD);
    expect(devices.queued).toBeGreaterThanOrEqual(2 + CROWD);
    expect(users.paged).toBeGreaterThanOrEqual(users.queued + 1); // the online user was paged, not queued
    expect(pages.done).toBe(pages.total);
    expect(pages.cursor).not.toBeNull();
    expect(Date.parse(progress!.startedAt!)).toBeLessThanOrEqual(Date.parse(progress!.finishedAt!));
    console.log(
      `broadcast rate: ${devices.queued} devices of ${pushMessages} users pushed in ${consumingMs} ms of consumer batches (${Math.round((pushMessages / Math.max(1, consumingMs)) * 1000)} users/s, one batch of 10 at a time); status devicesPerSecond ${progress!.devicesPerSecond}`,
    );
  });
});

describe("notify-send over a database's command budget", () => {
  /** wrangler.toml's `max_retries` of `notify-send`. */
  const MAX_RETRIES = 5;

  it("defers pushes with a growing delay, never dead-lettered however long it lasts, and sends them all once it recovers", async () => {
    const keys = (await pushTestKeys()).env;
    const users = [newId(), newId(), newId()];
    const endpoints = new Map<string, string>();
    for (const userId of users) {
      const receiver = await newSubscriptionKeys();
      const endpoint = `https://fcm.googleapis.com/wp/${crypto.randomUUID()}`;
      endpoints.set(userId, endpoint);
      const res = await api("PUT", "/v1/me/devices/browser", { as: { userId }, env: keys, body: { kind: "webpush", endpoint, keys: { p256dh: receiver.p256dh, auth: receiver.auth } } });
      expect(res.status, show(res)).toBe(200);
    }
    const sent: string[] = [];
    const fetcher = (async (input: RequestInfo | URL) => {
      sent.push(String(input));
      return new Response(null, { status: 201 });
    }) as typeof fetch;
    const q = recordingQueue();
    let waiting: Deferrable<NotifyQueueMessage>[] = users.map((userId) => ({ userId, kind: "dm", alert: { title: "New message", body: "", thread: "dm:7" }, urgency: "high" }));
    const delays: number[] = [];
    const limited = await createChaos(0, { maxCommandsPerSecond: 0.5 });
    try {
      const overBudget = { ...keys, NOTIFY_QUEUE: q.queue, UPSTASH_REDIS_REST_URL: limited.restUrl, UPSTASH_REDIS_REST_TOKEN: limited.restToken };
      // Twice as many deliveries as the queue's retries last (1 + max_retries).
      for (let round = 0; round < 2 * (MAX_RETRIES + 1); round++) {
        const result = await consume(waiting, overBudget, fetcher);
        expect(result.retryMessages, "a budget refusal uses up no retry").toEqual([]);
        expect(result.explicitAcks).toHaveLength(users.length);
        const again = q.queued.splice(0);
        expect(new Set(again.map((m) => m.delaySeconds)).size, "one delay per round").toBe(1);
        delays.push(again[0]!.delaySeconds!);
        waiting = again.map((m) => m.body);
      }
    } finally {
      await limited.close();
    }
    expect(sent, "nothing sent while the budget refuses").toEqual([]);
    expect(delays).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300, 300]);
    expect(waiting.map((m) => m.deferred?.times)).toEqual(Array(users.length).fill(2 * (MAX_RETRIES + 1)));

    // The budget recovers: one delivery each, every user's device pushed, nothing left.
    const result = await consume(waiting, { ...keys, NOTIFY_QUEUE: q.queue }, fetcher);
    expect(result.explicitAcks).toHaveLength(users.length);
    expect(q.queued).toEqual([]);
    expect(sent.sort()).toEqual([...endpoints.values()].sort());
  });

  it("an outage is still a failure: the queue retries it", async () => {
    const keys = (await pushTestKeys()).env;
    const userId = newId();
    const q = recordingQueue();
    const down = await createChaos();
    try {
      await down.setRedisDown(true);
      await down.setPostgresDown(true);
      const result = await consume([{ userId, kind: "dm", alert: { title: "x", body: "", thread: "dm:1" }, urgency: "high" }], { ...keys, NOTIFY_QUEUE: q.queue, ...down.bindings });
      expect(result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual(["m0"]);
      expect(q.queued).toEqual([]);
    } finally {
      await down.setRedisDown(false);
      await down.setPostgresDown(false);
      await down.close();
    }
  });
});
