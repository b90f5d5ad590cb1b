import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { MAX_PUSH_ATTEMPTS } from "../../src/notify/answers";
import type { NotifySendMessage } from "../../src/notify/sends";
import { api, newId, show } from "../support/api";
import { badgeTotal, notifyFlow, recordingQueue } from "../support/notify-flow";
import { fcmToken } from "../support/push";
import { closeLive, openLive } from "../badges/live-helpers";
import { withServices } from "../counters/support";
import { countBilledCommands } from "../support/billed";

/**
 * From a write to a device through the real stack (Redis, Postgres, the badge hub): each source
 * enqueues what it should, and the `notify-send` consumer sends it — to a recording push service
 * standing in for the real ones — with the icon set to the total `GET /v1/me/badges` shows.
 */

const setup = notifyFlow;
afterEach(closeLive);

const notify = (userId: string, env: Partial<Env>, body: Record<string, unknown>) => api("POST", `/v1/users/${userId}/notifications`, { as: { userId: "1", role: "service" }, env, body });

describe("notify-send: from a write to a device", () => {
  it("a notification enqueues one push; the consumer sends its alert with the icon at GET /v1/me/badges' total", async () => {
    const s = await setup();
    await api("POST", `/v1/dms/${s.me}`, { as: { userId: "1", role: "service" }, env: { ...s.env, NOTIFY_QUEUE: recordingQueue().queue }, body: { from: newId(), count: 2 } });
    const res = await notify(s.me, s.env, { type: "reply", alert: { title: "Ada replied", body: "Nice post", url: "/posts/9", thread: "post:9" } });
    expect(res.status, show(res)).toBe(200);
    expect(s.queued).toEqual([{ body: { userId: s.me, kind: "notification", type: "reply", alert: { title: "Ada replied", body: "Nice post", url: "/posts/9", thread: "post:9" }, urgency: "normal" } }]);
    const { result } = await s.deliver();
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(s.push.received).toHaveLength(1);
    expect(s.push.received[0]!.url).toBe(s.endpoint);
    const total = await badgeTotal(s.me);
    expect(total).toBe(3);
    expect(await s.decrypted(0)).toMatchObject({ title: "Ada replied", body: "Nice post", url: "/posts/9", tag: "post:9", badge: total });
    expect(s.push.received[0]!.headers.Urgency).toBe("normal");
  });

  it("a direct message without an alert: the plain default, urgency high; an inbox message: its title", async () => {
    const s = await setup();
    expect((await api("POST", `/v1/dms/${s.me}`, { as: { userId: "1", role: "service" }, env: s.env, body: { from: "42" } })).status).toBe(200);
    expect(s.queued[0]!.body).toMatchObject({ kind: "dm", alert: { title: "New message", thread: "dm:42" }, urgency: "high" });
    await s.deliver();
    expect(s.push.received[0]!.headers.Urgency).toBe("high");
    const sent = await api("POST", "/v1/messages", { as: { userId: "1", role: "service" }, env: s.env, body: { to: [s.me], type: "system", title: "Maintenance tonight", content: "From 2 to 3" } });
    expect(sent.status, show(sent)).toBe(201);
    expect(s.queued[0]!.body).toMatchObject({ kind: "inbox", alert: { title: "Maintenance tonight", thread: `inbox:${sent.body.id}` } });
  });

  it("refuses a bad alert with a 400 naming the field, counting nothing", async () => {
    const s = await setup();
    const res = await notify(s.me, s.env, { type: "reply", alert: { title: "x".repeat(101) } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("alert.title");
    // "~read" would share the read window's key: a like on it would swallow the badge-only update after a read.
    const reserved = await notify(s.me, s.env, { type: "like", alert: { thread: "~read" } });
    expect(reserved.status).toBe(400);
    expect(JSON.stringify(reserved.body)).toContain("alert.thread");
    expect(s.queued).toEqual([]);
    expect((await api("GET", "/v1/me/notifications", { as: { userId: s.me } })).body.total).toBe(0);
  });

  it("nothing is queued for a user with an open badges socket", async () => {
    const s = await setup();
    await openLive(s.me);
    expect((await notify(s.me, s.env, { type: "mention" })).status).toBe(200);
    expect((await api("POST", `/v1/dms/${s.me}`, { as: { userId: "1", role: "service" }, env: s.env, body: { from: "42" } })).status).toBe(200);
    expect(s.queued).toEqual([]);
  });

  it("a burst of 50 likes on one thread is one push saying how many others", async () => {
    const s = await setup();
    for (let i = 0; i < 50; i++) expect((await notify(s.me, s.env, { type: "like", alert: { title: "New like", body: "Someone liked your post", thread: "likes:post:7" } })).status).toBe(200);
    expect(s.queued).toHaveLength(1);
    expect(s.queued[0]).toMatchObject({ delaySeconds: 30, body: { window: "likes:post:7" } });
    await s.deliver();
    expect(s.push.received).toHaveLength(1);
    expect(await s.decrypted(0)).toMatchObject({ body: "Someone liked your post … and 49 others", tag: "likes:post:7", badge: 50 });
    // The window is closed: the next like opens a new one.
    await notify(s.me, s.env, { type: "like", alert: { thread: "likes:post:7" } });
    expect(s.queued).toHaveLength(1);
  });

  it("a 410 deletes the device and nothing is sent to it afterwards", async () => {
    const s = await setup();
    s.push.answer(s.endpoint, new Response("gone", { status: 410 }));
    await notify(s.me, s.env, { type: "reply" });
    await s.deliver();
    expect((await api("GET", "/v1/me/devices", { as: { userId: s.me }, env: s.env })).body.items).toEqual([]);
    await notify(s.me, s.env, { type: "reply" });
    await s.deliver();
    expect(s.push.received).toHaveLength(1);
  });

  it("429 re-enqueues the failed device with Retry-After's delay; past the attempts it is a dead letter in the console", async () => {
    const s = await setup();
    const busy = () => new Response("slow down", { status: 429, headers: { "Retry-After": "120" } });
    s.push.answer(s.endpoint, ...Array.from({ length: MAX_PUSH_ATTEMPTS }, busy));
    await notify(s.me, s.env, { type: "reply" });
    await s.deliver();
    expect(s.queued).toHaveLength(1);
    expect(s.queued[0]).toMatchObject({ delaySeconds: 120, body: { userId: s.me, deviceIds: ["browser"], attempt: 2 } });
    for (let attempt = 2; attempt <= MAX_PUSH_ATTEMPTS; attempt++) await s.deliver();
    expect(s.queued).toEqual([]);
    expect(s.push.received).toHaveLength(MAX_PUSH_ATTEMPTS);
    const dead = await api("GET", "/v1/admin/dead-letters?queue=notify-send", { as: { userId: "1", role: "admin" } });
    expect(dead.status, show(dead)).toBe(200);
    const mine = (dead.body.items as { body: NotifySendMessage; lastError: string }[]).find((d) => d.body.userId === s.me);
    expect(mine).toMatchObject({ body: { deviceIds: ["browser"] }, lastError: expect.stringContaining("429") });
  });

  it("a read sends a badge-only update to APNs and FCM devices, none to Web Push, once per few seconds", async () => {
    const s = await setup();
    expect((await api("PUT", "/v1/me/devices/pixel", { as: { userId: s.me }, env: s.env, body: { kind: "fcm", token: fcmToken() } })).status).toBe(200);
    await notify(s.me, { ...s.env, NOTIFY_QUEUE: recordingQueue().queue }, { type: "reply", count: 3 });
    for (let i = 0; i < 3; i++) expect((await api("POST", "/v1/me/notifications/read", { as: { userId: s.me }, env: s.env })).status).toBe(200);
    expect(s.queued).toHaveLength(1);
    expect(s.queued[0]).toMatchObject({ body: { userId: s.me, kind: "read" }, delaySeconds: 5 });
    await s.deliver();
    expect(s.push.received.map((r) => r.url)).toEqual([expect.stringContaining("/messages:send")]);
    const sent = JSON.parse(new TextDecoder().decode(s.push.received[0]!.body));
    expect(sent.message.notification).toBeUndefined();
    expect(sent.message.apns.payload.aps.badge).toBe(0);
  });
});

describe("notification preferences", () => {
  const prefs = (userId: string, env: Partial<Env>, body?: unknown) =>
    api(body === undefined ? "GET" : "PUT", "/v1/me/notification-preferences", { as: { userId }, env, ...(body === undefined ? {} : { body }) });
  const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

  it("answers the defaults, stores a change, and refuses bad fields with a 400 naming them", async () => {
    const s = await setup();
    expect((await prefs(s.me, s.env)).body).toEqual({ kinds: {}, types: {}, policy: { dm: "everyone", mention: "everyone" }, quietHours: null });
    const bad = await prefs(s.me, s.env, { quietHours: { start: "22:00", end: "07:00", timeZone: "Mars/Olympus" } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("quietHours.timeZone");
    expect((await prefs(s.me, s.env, { policy: { dm: "sometimes" } })).status).toBe(400);
    const stored = await prefs(s.me, s.env, { types: { like: false } });
    expect(stored.status, show(stored)).toBe(200);
    expect((await prefs(s.me, s.env)).body.types).toEqual({ like: false });
  });

  it("a type turned off and a kind turned off queue nothing; others still do", async () => {
    const s = await setup();
    expect((await prefs(s.me, s.env, { types: { like: false }, kinds: { inbox: false } })).status).toBe(200);
    await notify(s.me, s.env, { type: "like" });
    await api("POST", "/v1/messages", { as: { userId: "1", role: "service" }, env: s.env, body: { to: [s.me], type: "system", title: "t", content: "c" } });
    expect(s.queued).toEqual([]);
    await notify(s.me, s.env, { type: "reply" });
    expect(s.queued.map((q) => q.body.type)).toEqual(["reply"]);
  });

  it("a DM policy of people I follow: a stranger's DM pushes nothing, a followed user's does", async () => {
    const s = await setup();
    const friend = newId();
    expect((await prefs(s.me, s.env, { policy: { dm: "followed" } })).status).toBe(200);
    expect((await api("PUT", `/v1/me/following/${friend}`, { as: { userId: s.me } })).status).toBeLessThan(300);
    await api("POST", `/v1/dms/${s.me}`, { as: { userId: "1", role: "service" }, env: s.env, body: { from: newId() } });
    expect(s.queued).toEqual([]);
    await api("POST", `/v1/dms/${s.me}`, { as: { userId: "1", role: "service" }, env: s.env, body: { from: friend } });
    expect(s.queued.map((q) => q.body.alert?.thread)).toEqual([`dm:${friend}`]);
  });

  it("quiet hours hold a push until they end (then it is sent); an urgent kind is not held", async () => {
    const s = await setup();
    const now = Date.now();
    const quietHours = { start: clock(now - 3600_000), end: clock(now + 3600_000), timeZone: "UTC", urgent: ["dm"] };
    expect((await prefs(s.me, s.env, { quietHours })).status).toBe(200);
    await notify(s.me, s.env, { type: "reply" });
    expect(s.queued).toHaveLength(1);
    expect(s.queued[0]!.delaySeconds).toBeGreaterThan(3000);
    expect(s.queued[0]!.delaySeconds).toBeLessThanOrEqual(3600);
    // The queue delivers it when the hours end: sent then, not lost.
    await s.deliver();
    expect(s.push.received).toHaveLength(1);
    await api("POST", `/v1/dms/${s.me}`, { as: { userId: "1", role: "service" }, env: s.env, body: { from: "42" } });
    expect(s.queued[0]!.delaySeconds).toBeUndefined();
  });
});

describe("billed Redis commands per event, for a user with no open socket", () => {
  /** Services whose Redis counts what Upstash bills: one per command, a script's EVALSHA plus every command it runs. */
  function counting(services: import("../../src/lib/services").Services) {
    const calls: string[] = [];
    const wrap = (redis: import("@upstash/redis").Redis) =>
      new Proxy(redis, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver);
          if (name === "createScript") {
            return (source: string) => {
              const counted = countBilledCommands(target as never);
              const script = counted.redis.createScript(source);
              return { exec: async (keys: string[], args: string[]) => { const result = await script.exec(keys, args); calls.push(...Object.entries(counted.byCommand).flatMap(([c, n]) => Array(n).fill(c)), "evalsha"); return result; } };
            };
          }
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => { calls.push(String(name)); return (value as (...a: unknown[]) => unknown).apply(target, args); };
        },
      });
    return { services: { ...services, redisFor: (id: string) => wrap(services.redisFor(id)) }, calls };
  }

  it("is at most 20, the unread total included: ≤ 18 without a window, ≤ 20 opening one", async () => {
    const s = await setup();
    await notify(s.me, { ...s.env, NOTIFY_QUEUE: recordingQueue().queue }, { type: "reply" });
    await api("GET", "/v1/me/badges", { as: { userId: s.me } }); // a known user: caches built
    await api("GET", "/v1/me/notification-preferences", { as: { userId: s.me }, env: s.env }); // preferences cached
    // The device list cached as it is in steady state (a registration's 15 s stale mark removed).
    await withServices(s.env, (services) => services.redisFor(s.me).del(`ntf:dev:${s.me}`));
    await api("GET", "/v1/me/devices", { as: { userId: s.me }, env: s.env });
    const { enqueueFor } = await import("../../src/notify/events");
    const { sendToUser } = await import("../../src/notify/sender");
    const { pushConfig } = await import("../../src/notify/config");
    const perEvent = async (event: import("../../src/notify/events").PushEvent) =>
      withServices(s.env, async (plain) => {
        const { services, calls } = counting(plain);
        await enqueueFor(services as never, [s.me], event);
        for (const q of s.queued.splice(0)) await sendToUser(services as never, pushConfig(s.env as Env), q.body, s.push.fetcher);
        return calls;
      });
    const dm = await perEvent({ kind: "dm", thread: "dm:5" });
    // Devices GET and preferences GET before queueing; devices GET and GET_BADGES (EVALSHA + its
    // reads: 13–15 for a known user) when sending.
    expect(dm.length, dm.join(" ")).toBeLessThanOrEqual(18);
    expect(dm.filter((c) => c === "evalsha")).toHaveLength(1);
    const like = await perEvent({ kind: "notification", type: "like", thread: "likes:9" });
    expect(like.length, like.join(" ")).toBeLessThanOrEqual(20);
    expect(like.length - dm.length).toBe(2); // the window's SET NX EX and GETDEL
    expect(like.filter((c) => c === "getdel")).toHaveLength(1);
  });
});

describe("stream items (group chats)", () => {
  it("push to the stream's other members not online, with the item's alert; its author, with a device too, gets none", async () => {
    const s = await setup();
    const author = newId();
    expect((await api("PUT", "/v1/me/devices/pixel", { as: { userId: author }, env: s.env, body: { kind: "fcm", token: fcmToken() } })).status).toBe(200);
    const stream = `/v1/streams/chat/${newId()}`;
    const service = { userId: "1", role: "service" as const };
    for (const member of [s.me, author]) expect((await api("PUT", `${stream}/members/${member}`, { as: service })).status).toBe(200);
    const res = await api("POST", `${stream}/items`, { as: service, env: s.env, body: { from: author, alert: { title: "Ada in #general", body: "hello" } } });
    expect(res.status, show(res)).toBe(200);
    expect(s.queued.map((q) => q.body)).toEqual([{ userId: s.me, kind: "stream", alert: { title: "Ada in #general", body: "hello", thread: expect.stringMatching(/^stream:chat:/) }, urgency: "normal" }]);
  });
});

describe("broadcasts with push", () => {
  it("page users with devices through the queue; without push nothing is queued", async () => {
    const s = await setup();
    const admin = { userId: "1", role: "admin" as const };
    expect((await api("POST", "/v1/broadcasts", { as: admin, env: s.env, body: { title: "Quiet", body: "no push" } })).status).toBe(201);
    expect(s.queued).toEqual([]);
    const res = await api("POST", "/v1/broadcasts", { as: admin, env: s.env, body: { title: "Tonight", body: "Maintenance at 2", push: true } });
    expect(res.status, show(res)).toBe(201);
    const alert = { title: "Tonight", body: "Maintenance at 2", thread: `broadcast:${res.body.id}` };
    // FCM has a broadcast topic here (wrangler.toml's FCM_BROADCAST_TOPIC): one send to it, and the page.
    expect(s.queued.map((q) => q.body)).toEqual([
      { kind: "broadcast-topic", broadcastId: res.body.id, alert, topic: "broadcasts" },
      { kind: "broadcast-page", broadcastId: res.body.id, alert, after: null, startedAt: expect.any(Number) },
    ]);
    // The page (run as the queue would) queues a push for every user with a Web Push or APNs device, this one included.
    s.queued.splice(0, 1);
    await s.deliver();
    const mine = s.queued.filter((q) => "userId" in q.body && q.body.userId === s.me);
    expect(mine.map((q) => q.body)).toEqual([{ userId: s.me, kind: "broadcast", alert, urgency: "normal", deviceKinds: ["webpush", "apns"], broadcastId: res.body.id }]);
  });
});
