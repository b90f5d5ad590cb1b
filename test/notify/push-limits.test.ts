/**
 * What a push service (or anything posing as one) can do to the sender: through the real
 * `notify-send` consumer and the real network to the stack's local push services, among them an
 * endpoint that hangs, redirects, or answers 50 MB (scripts/stack/push/misbehaving.ts). Every
 * provider request has a timeout, follows no redirect and reads a capped answer; a batch's users
 * are sent side by side, each device with its own outcome.
 */
import { createExecutionContext, createMessageBatch, env as workerEnv, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { events } from "../../src/app";
import type { Env } from "../../src/env";
import { queryRows } from "../../src/lib/db";
import { recordDeadLetters } from "../../src/lib/ops/dead-letters";
import { MAX_DEVICE_REFUSALS } from "../../src/notify/answers";
import { notifyKeys } from "../../src/notify/keys";
import { createNotifyQueueHandler } from "../../src/notify/sender";
import type { NotifyQueueMessage, NotifySendMessage } from "../../src/notify/sends";
import { api, newId, show } from "../support/api";
import { notifyFlow, recordingQueue } from "../support/notify-flow";
import { misbehavingEndpoints, misbehavingStats, receivedBy, stackPushEnv, subscribeWebPush } from "../support/push-services";
import { newSubscriptionKeys } from "../support/push";
import { withServices } from "../counters/support";
import { HUGE_BYTES } from "../../scripts/stack/push/misbehaving";

/** A short timeout: the hanging endpoint is given up on in half a second, not 10. */
const TIMEOUT_MS = "500";

function stack() {
  const q = recordingQueue();
  const env: Partial<Env> = { ...stackPushEnv(), ENVIRONMENT: "development", PUSH_REQUEST_TIMEOUT_MS: TIMEOUT_MS, NOTIFY_QUEUE: q.queue };
  const register = async (userId: string, deviceId: string, endpoint: string, keys?: { p256dh: string; auth: string }) => {
    const k = keys ?? (await newSubscriptionKeys());
    const res = await api("PUT", `/v1/me/devices/${deviceId}`, { as: { userId }, env, body: { kind: "webpush", endpoint, keys: { p256dh: k.p256dh, auth: k.auth } } });
    expect(res.status, show(res)).toBe(200);
  };
  const dm = async (to: string) => {
    const res = await api("POST", `/v1/dms/${to}`, { as: { userId: "1", role: "service" }, env, body: { from: newId() } });
    expect(res.status, show(res)).toBe(200);
  };
  /** Runs the Worker's consumer over everything queued, as ONE batch, with the real fetch. */
  async function deliver() {
    const pending = q.queued.splice(0);
    const batch = createMessageBatch<NotifyQueueMessage>("notify-send", pending.map((m, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body: m.body as NotifyQueueMessage })));
    const ctx = createExecutionContext();
    await createNotifyQueueHandler(events)(batch, { ...(workerEnv as unknown as Env), ...env } as Env, ctx);
    return getQueueResult(batch, ctx);
  }
  const devices = async (userId: string) => ((await api("GET", "/v1/me/devices", { as: { userId }, env })).body.items as { deviceId: string }[]).map((d) => d.deviceId);
  return { env, queued: q.queued, register, dm, deliver, devices };
}

const deadLettersOf = async (userId: string) => {
  const dead = await api("GET", "/v1/admin/dead-letters?queue=notify-send&limit=100", { as: { userId: "1", role: "admin" } });
  return (dead.body.items as { body: NotifySendMessage; lastError: string }[]).filter((d) => d.body.userId === userId);
};

describe("notify-send against a misbehaving endpoint", () => {
  it("a hanging endpoint is given up after the timeout and retried alone; the batch's other devices and users are delivered", async () => {
    const s = stack();
    const bad = await misbehavingEndpoints();
    const [ada, bob] = [newId(), newId()];
    const adaBrowser = await subscribeWebPush();
    const bobBrowser = await subscribeWebPush();
    await s.register(ada, "hanging", bad.hang);
    await s.register(ada, "browser", adaBrowser.endpoint, adaBrowser.keys);
    await s.register(bob, "browser", bobBrowser.endpoint, bobBrowser.keys);
    await s.dm(ada);
    await s.dm(bob);
    expect(s.queued).toHaveLength(2);

    const result = await s.deliver();
    expect(result.explicitAcks.sort()).toEqual(["m0", "m1"]); // neither message is retried whole
    expect(result.retryMessages).toEqual([]);
    expect((await misbehavingStats(bad.id)).hang).toBe(1);
    expect((await receivedBy("webpush", adaBrowser.clientHash)).map((p) => [p.status, p.title])).toEqual([[201, "New message"]]);
    expect((await receivedBy("webpush", bobBrowser.clientHash)).map((p) => [p.status, p.title])).toEqual([[201, "New message"]]);
    // Only the hanging device is tried again: a retry never sends twice to the devices that got it.
    expect(s.queued).toEqual([{ body: expect.objectContaining({ userId: ada, deviceIds: ["hanging"], attempt: 2 }), delaySeconds: 10 }]);
    expect(await s.devices(ada)).toEqual(["browser", "hanging"]); // a timeout is no reason to drop it
  });

  it("a redirect is not followed: its target never hears of it, and it counts as a refusal (a dead letter)", async () => {
    const s = stack();
    const bad = await misbehavingEndpoints();
    const me = newId();
    await s.register(me, "redirecting", bad.redirect);
    await s.dm(me);
    const result = await s.deliver();
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(await misbehavingStats(bad.id)).toMatchObject({ redirect: 1, target: 0 });
    expect(s.queued).toEqual([]); // not retried
    expect((await deadLettersOf(me)).map((d) => d.lastError)).toEqual([expect.stringMatching(/^307 redirect to \/target\/.* \(not followed\)$/)]);
  });

  it("an answer of 50 MB is read only up to the cap; the push is delivered and the rest never sent", async () => {
    const s = stack();
    const bad = await misbehavingEndpoints();
    const me = newId();
    const browser = await subscribeWebPush();
    await s.register(me, "huge", bad.huge);
    await s.register(me, "browser", browser.endpoint, browser.keys);
    await s.dm(me);
    const result = await s.deliver();
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(s.queued).toEqual([]); // 201: delivered, nothing to retry
    const stats = await misbehavingStats(bad.id);
    expect(stats.huge).toBe(1);
    // The reader stopped and cancelled: the server could write only what the socket buffers took.
    expect(stats.hugeFinished).toBe(false);
    expect(stats.hugeBytesWritten).toBeLessThan(HUGE_BYTES / 2);
    expect((await receivedBy("webpush", browser.clientHash)).map((p) => p.status)).toEqual([201]);
    expect(await s.devices(me)).toEqual(["browser", "huge"]);
  });
});

describe("a device a push service keeps refusing", () => {
  it(`is removed at the ${MAX_DEVICE_REFUSALS}rd 400, as a 410 would remove it; the refusals before are dead letters`, async () => {
    const s = await notifyFlow();
    s.push.answer(s.endpoint, ...Array.from({ length: MAX_DEVICE_REFUSALS }, () => new Response("bad request", { status: 400 })));
    const notify = () => api("POST", `/v1/users/${s.me}/notifications`, { as: { userId: "1", role: "service" }, env: s.env, body: { type: "reply" } });
    const listed = async () => ((await api("GET", "/v1/me/devices", { as: { userId: s.me }, env: s.env })).body.items as unknown[]).length;
    for (let i = 1; i < MAX_DEVICE_REFUSALS; i++) {
      await notify();
      await s.deliver();
      expect(await listed(), `after refusal ${i}`).toBe(1);
    }
    expect(await deadLettersOf(s.me)).toHaveLength(MAX_DEVICE_REFUSALS - 1);
    await notify();
    await s.deliver();
    expect(await listed()).toBe(0);
    expect(await deadLettersOf(s.me)).toHaveLength(MAX_DEVICE_REFUSALS - 1); // the last refusal removed it instead
    await notify();
    await s.deliver();
    expect(s.push.received).toHaveLength(MAX_DEVICE_REFUSALS); // nothing sent to it afterwards
  });

  it("counts refusals per registration: registering the device again starts again", async () => {
    const s = await notifyFlow();
    s.push.answer(s.endpoint, ...Array.from({ length: MAX_DEVICE_REFUSALS }, () => new Response("", { status: 403 })));
    const notify = () => api("POST", `/v1/users/${s.me}/notifications`, { as: { userId: "1", role: "service" }, env: s.env, body: { type: "reply" } });
    for (let i = 1; i < MAX_DEVICE_REFUSALS; i++) (await notify(), await s.deliver());
    const [device] = (await api("GET", "/v1/me/devices", { as: { userId: s.me }, env: s.env })).body.items as { endpoint: string; keys: unknown }[];
    const again = await api("PUT", "/v1/me/devices/browser", { as: { userId: s.me }, env: s.env, body: { kind: "webpush", endpoint: device!.endpoint, keys: device!.keys } });
    expect(again.status, show(again)).toBe(200);
    await notify();
    await s.deliver();
    expect(((await api("GET", "/v1/me/devices", { as: { userId: s.me }, env: s.env })).body.items as unknown[]).length).toBe(1);
  });

  it("a device on a host no longer allowed (registered before the rule) is deleted without a request", async () => {
    const s = await notifyFlow();
    // Moved by hand where registration would refuse it, as an old row would be.
    await withServices(s.env, (services) => queryRows(services.db, "UPDATE notify_devices SET address = $2 WHERE user_id = $1::bigint", [s.me, "https://169.254.169.254/latest"]));
    await withServices(s.env, (services) => services.redisFor(s.me).del(notifyKeys.devices(s.me)));
    await api("POST", `/v1/users/${s.me}/notifications`, { as: { userId: "1", role: "service" }, env: s.env, body: { type: "reply" } });
    await s.deliver();
    expect(s.push.received).toEqual([]);
    expect((await api("GET", "/v1/me/devices", { as: { userId: s.me }, env: s.env })).body.items).toEqual([]);
  });
});

describe("dead letters", () => {
  const queue = () => `test-capped-${crypto.randomUUID()}`;
  const kept = (name: string) => withServices({}, (services) => queryRows<{ n: number }>(services.db, "SELECT (body->>'n')::int AS n FROM dead_letters WHERE queue = $1 ORDER BY id", [name]));

  it("are capped in count per queue: the oldest go first", async () => {
    const name = queue();
    for (let n = 1; n <= 5; n++) await withServices({}, (services) => recordDeadLetters(services.db, [{ queue: name, body: { n }, lastError: "x" }], { count: 3, bytes: 1e9 }));
    expect((await kept(name)).map((r) => r.n)).toEqual([3, 4, 5]);
    // A batch over the cap keeps its newest; another queue's are not touched.
    const other = queue();
    await withServices({}, (services) => recordDeadLetters(services.db, [{ queue: other, body: { n: 0 }, lastError: null }]));
    await withServices({}, (services) => recordDeadLetters(services.db, [6, 7].map((n) => ({ queue: name, body: { n }, lastError: "x" })), { count: 3, bytes: 1e9 }));
    expect((await kept(name)).map((r) => r.n)).toEqual([5, 6, 7]);
    expect((await kept(other)).map((r) => r.n)).toEqual([0]);
  });

  it("are capped in bytes per queue: the oldest go first", async () => {
    const name = queue();
    // Random hex, and rows under Postgres' 2 KB compression threshold: stored as written.
    const pad = () => [...crypto.getRandomValues(new Uint8Array(300))].map((b) => b.toString(16).padStart(2, "0")).join("");
    for (let n = 1; n <= 6; n++) await withServices({}, (services) => recordDeadLetters(services.db, [{ queue: name, body: { n, pad: pad() }, lastError: pad() }], { count: 100, bytes: 4_000 }));
    // Each row holds about 1.25 KB (body and error): 4,000 bytes keep the newest three.
    expect((await kept(name)).map((r) => r.n)).toEqual([4, 5, 6]);
  });
});
