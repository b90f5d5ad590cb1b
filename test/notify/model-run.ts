/**
 * The notifications model (test/notify/model.test.ts): seeded random users, devices of the three
 * kinds (some users with an open badges socket), preferences (kinds and types off, DM and mention
 * policies, quiet hours in fixed-offset time zones, urgent kinds), and events of every kind —
 * notifications by type (bursts on one thread included), follows (pushed as `follow`
 * notifications), direct messages, inbox messages, stream items, posts of chosen followed authors
 * (their pages run as the queue would, then each chooser's push), broadcasts with and without `"push": true`, reads of every kind, devices dying at their
 * push service or throttled by it (429 with Retry-After) — all through the Worker's HTTP API. The `notify-send` queue is held by the test
 * and delivered, by the Worker's own consumer, to the stack's local push services
 * (web-push-testing decrypting `aes128gcm`, the FCM and APNs stand-ins), on a virtual clock the
 * test moves (NOTIFY_CLOCK_OFFSET_MS), so batch windows close and quiet hours end without waiting.
 *
 * After every delivery round, what each service received for each device equals the model, every
 * field (model-view.ts): who got what, collapsed ("… and N others"), with the unread total at the
 * time of sending, urgency, collapse keys; nothing to a user with an open socket, nothing against
 * a preference, held pushes only once the quiet hours end, badge-only updates to APNs and FCM after
 * a read, a throttled device retried alone after Retry-After (the badge then current), and a dead
 * device refused once and then never pushed to again (and gone from its user's list). The model's unread numbers are checked against `GET /v1/me/badges` each round too.
 */
import { createExecutionContext, createMessageBatch, env as workerEnv, getQueueResult } from "cloudflare:test";
import { expect } from "vitest";
import { events } from "../../src/app";
import type { Env } from "../../src/env";
import { NOTIFICATION_TYPES } from "../../src/badges/notifications";
import { MAX_AUTHOR_THREAD_WINDOWS } from "../../src/notify/keys";
import { createNotifyQueueHandler } from "../../src/notify/sender";
import type { NotifyQueueMessage } from "../../src/notify/sends";
import { openLive } from "../badges/live-helpers";
import { api, newId, show, type As } from "../support/api";
import { prng } from "../support/prng";
import { fcmToken } from "../support/push";
import { controlApnsToken, controlFcmToken, expireWebPush, receivedAfter, stackPushEnv, subscribeWebPush } from "../support/push-services";
import { expectedGone, expectedSeen, expectedThrottled, seen, type DeviceKind, type ExpectedPush, type ModelDevice } from "./model-view";

export const DEFAULT_SEEDS = [20261126, 7];

type Kind = "notification" | "dm" | "inbox" | "stream" | "author" | "broadcast";
type NotificationType = (typeof NOTIFICATION_TYPES)[number];
type Policy = "everyone" | "followed" | "followers" | "none";
type Alert = { title?: string; body?: string; url?: string; thread?: string };
type Quiet = { start: string; end: string; timeZone: string; urgent: Kind[] };
type Prefs = { kinds: Partial<Record<Kind, boolean>>; types: Partial<Record<NotificationType, boolean>>; policy: { dm: Policy; mention: Policy }; quietHours: Quiet | null };

/** `dead`: gone at its push service (the next push is refused); `throttled`: the next pushes answered 429. */
type Device = ModelDevice & { deviceId: string; dead: boolean; throttled: number };
type Shown = { title: string; body: string; url?: string; thread: string; urgency: "high" | "normal"; data: { kind: string; type?: string } };
/**
 * A push the model expects the queue to deliver at `due` (virtual ms): an alert (`shown`), or the
 * badge-only update after a read (`read`); a retry goes to `only` those devices, as attempt `attempt`.
 */
type Pending = { user: User; due: number; shown?: Shown; window?: string; others: number; read?: boolean; only?: Set<string>; attempt?: number };
type User = {
  id: string;
  socket: boolean;
  prefs: Prefs;
  /** Inside quiet hours during the first phase: they end at this virtual time. */
  quietEndsAt?: number;
  devices: Map<string, Device>;
  follows: Set<string>;
  followers: Set<string>;
  /** Followed authors whose posts push to the user (`/v1/me/notification-authors`). */
  chosen: Set<string>;
  notifications: Map<string, number>;
  dms: Map<string, number>;
  inbox: Set<string>;
  streams: Map<string, number>;
  broadcasts: number;
  /** Open batch windows by thread: the push each will send. */
  windows: Map<string, Pending>;
  readPending: boolean;
};

const WINDOW_TYPES = new Set(["like", "follow", "repost"]);
const WINDOW_MS = 30_000;
/** A post's push shows the start of its text (docs/notifications.md). */
const AUTHOR_EXCERPT = 140;
const READ_WINDOW_MS = 5_000;
/** What a throttled device's service asks for; the backoff is 10 s doubling per attempt (docs/push-delivery.md). */
const RETRY_AFTER_SECONDS = 20;
const CAP = 99;
/** Fixed-offset zones (no daylight saving), minutes east of UTC: the model reads local time without Intl. */
const ZONES: Record<string, number> = { UTC: 0, "Asia/Tokyo": 540, "Asia/Kolkata": 330, "America/Phoenix": -420, "Asia/Kathmandu": 345 };
const TITLES = ["Ada", "Ada liked your post", "Grace ♥ 🎉", "Nouveau message", "x"];
const BODIES = ["lunch?", "Nice post", "", "ça va ?"];
const THREADS = ["post:1", "post:2", "room-7", "a thread name longer than thirty-two chars"];
const service: As = { userId: "1", role: "service" };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
/** Random hex: tokens are fresh each run (the stand-ins remember tokens marked gone), whatever the seed. */
const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
const clock = (minutes: number) => {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
};
/** JSON with sorted keys: records compared as sets of strings. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
}

export type ModelStats = { rounds: number; pushes: number; followPushes: number; authorPushes: number; collapsed: number; held: number; badgeOnly: number; retried: number; urgentThroughQuiet: number; gone: Record<DeviceKind, number>; toSocketUsers: number; refusedByPreference: number };

export async function runModel(seed: number, options: { users?: number; steps?: number } = {}): Promise<ModelStats> {
  const rnd = prng(seed);
  const chance = (p: number) => rnd.next() < p;
  const where = `seed ${seed} (replay: NOTIFY_MODEL_SEED=${seed})`;
  const log: string[] = [];
  const stats: ModelStats = { rounds: 0, pushes: 0, followPushes: 0, authorPushes: 0, collapsed: 0, held: 0, badgeOnly: 0, retried: 0, urgentThroughQuiet: 0, gone: { webpush: 0, fcm: 0, apns: 0 }, toSocketUsers: 0, refusedByPreference: 0 };

  // ── The virtual clock and the held queue ────────────────────────────────────────────────────
  /** Virtual now (ms): moves 1 s per event and by the test's jumps; the Worker reads it through NOTIFY_CLOCK_OFFSET_MS. */
  let now = Math.floor(Date.now() / 60_000) * 60_000;
  const held: { body: NotifyQueueMessage; due: number }[] = [];
  const modelUsers = new Map<string, User>();
  const queue = {
    async send(body: NotifyQueueMessage, options?: { delaySeconds?: number }) {
      await queue.sendBatch([{ body, ...options }]);
    },
    async sendBatch(messages: Iterable<{ body: NotifyQueueMessage; delaySeconds?: number }>) {
      for (const m of messages) {
        // A broadcast page reaches every user with a device in the stack: only the model's pushes are kept.
        if ("userId" in m.body && !modelUsers.has(m.body.userId)) continue;
        held.push({ body: structuredClone(m.body), due: now + (m.delaySeconds ?? 0) * 1000 });
      }
    },
  } as unknown as Queue<NotifyQueueMessage>;
  // No FCM broadcast topic: the model checks each device's own pushes, FCM's included (the topic's
  // one send is test/notify/broadcast.test.ts's).
  const pushEnv = { ...stackPushEnv(), ENVIRONMENT: "development", FCM_BROADCAST_TOPIC: "" };
  const envNow = (): Partial<Env> => ({ ...pushEnv, NOTIFY_QUEUE: queue, NOTIFY_CLOCK_OFFSET_MS: String(now - Date.now()) });

  async function call(method: string, path: string, as: As, body?: unknown) {
    const res = await api(method, path, { as, env: envNow(), ...(body === undefined ? {} : { body }) });
    expect(res.status, `${where}: ${method} ${path}: ${show(res)}`).toBeLessThan(300);
    return res.body;
  }

  // ── The model ────────────────────────────────────────────────────────────────────────────────
  const pending: Pending[] = [];
  /** The user's list: a dead device stays on it until a push finds it. */
  const devicesOf = (u: User) => [...u.devices.values()];
  const total = (u: User) => Math.min(CAP, sum(u.notifications) + sum(u.dms) + u.inbox.size + sum(u.streams) + u.broadcasts);

  /** Whether `u`'s preferences let a push of this kind through, and until when it is held. */
  function decide(u: User, kind: Kind, type: string | undefined, from: string | undefined): { send: false } | { send: true; heldUntil?: number } {
    const p = u.prefs;
    if (p.kinds[kind] === false) return { send: false };
    if (kind === "notification" && p.types[type as NotificationType] === false) return { send: false };
    const policy = kind === "dm" ? p.policy.dm : kind === "notification" && type === "mention" ? p.policy.mention : "everyone";
    if (policy === "none") return { send: false };
    if (policy === "followed" && !(from && u.follows.has(from))) return { send: false };
    if (policy === "followers" && !(from && u.followers.has(from))) return { send: false };
    const inside = p.quietHours !== null && u.quietEndsAt !== undefined && now < u.quietEndsAt;
    if (inside && p.quietHours!.urgent.includes(kind)) stats.urgentThroughQuiet++;
    const quiet = inside && !p.quietHours!.urgent.includes(kind);
    return { send: true, ...(quiet ? { heldUntil: u.quietEndsAt } : {}) };
  }

  /** An event for `u`: what the model expects to be queued for it. */
  function event(u: User, kind: Kind, shown: Shown, type?: string, from?: string) {
    if (u.socket || u.devices.size === 0) {
      if (u.socket && u.devices.size > 0) stats.toSocketUsers++;
      return;
    }
    const decision = decide(u, kind, type, from);
    if (!decision.send) return void stats.refusedByPreference++;
    const windowed = (kind === "notification" && WINDOW_TYPES.has(type ?? "")) || kind === "author";
    if (windowed) {
      // A chosen author's thread has a window of its own while it has one open or fewer than
      // MAX_AUTHOR_THREAD_WINDOWS of the author's threads do; else the post counts in the author's.
      const own = `author:${from}`;
      if (kind === "author" && shown.thread !== own && !u.windows.has(shown.thread)) {
        const openThreads = [...u.windows.keys()].filter((t) => t.startsWith(`${own}:`)).length;
        if (openThreads >= MAX_AUTHOR_THREAD_WINDOWS) shown = { ...shown, thread: own };
      }
      const open = u.windows.get(shown.thread);
      if (open) return void open.others++;
      const p: Pending = { user: u, due: Math.max(now + WINDOW_MS, decision.heldUntil ?? 0), shown, window: shown.thread, others: 0 };
      u.windows.set(shown.thread, p);
      pending.push(p);
      return;
    }
    pending.push({ user: u, due: decision.heldUntil ?? now, shown, others: 0 });
  }

  /** A read by `u` on some device: one badge-only update per READ_WINDOW to their APNs and FCM devices. */
  function read(u: User) {
    if (u.readPending || !devicesOf(u).some((d) => d.kind !== "webpush")) return;
    u.readPending = true;
    pending.push({ user: u, due: now + READ_WINDOW_MS, others: 0, read: true });
  }

  function resolve(alert: Alert | undefined, title: string, thread: string, kind: Kind, urgency: "high" | "normal", type?: string, body = ""): Shown {
    return { title: alert?.title ?? title, body: alert?.body ?? body, ...(alert?.url !== undefined ? { url: alert.url } : {}), thread: alert?.thread ?? thread, urgency, data: { kind, ...(type ? { type } : {}) } };
  }

  /** A post's alert: its url a path of the app. */
  function postAlert(): Alert | undefined {
    const alert = randomAlert();
    if (alert?.url !== undefined) alert.url = `/posts/${rnd.int(1, 99)}`;
    return alert;
  }

  function randomAlert(): Alert | undefined {
    if (chance(0.4)) return undefined;
    const alert: Alert = {};
    if (!chance(0.15)) alert.title = rnd.pick(TITLES);
    if (chance(0.7)) alert.body = rnd.pick(BODIES);
    if (chance(0.4)) alert.url = `https://app.example/p/${rnd.int(1, 99)}`;
    if (chance(0.3)) alert.thread = rnd.pick(THREADS);
    return alert;
  }

  // ── Setup ────────────────────────────────────────────────────────────────────────────────────
  const n = options.users ?? 6;
  const peers = [newId(), newId(), newId()];
  const admin: As = { userId: newId(), role: "admin" };
  const users: User[] = [];
  const t0 = now;
  /** The longest first-phase quiet hours: the second phase starts after every one has ended. */
  let longestQuiet = 0;
  for (let i = 0; i < n; i++) {
    const u: User = {
      id: newId(), socket: i === 0 || (i > 2 && chance(0.2)), prefs: { kinds: {}, types: {}, policy: { dm: "everyone", mention: "everyone" }, quietHours: null },
      devices: new Map(), follows: new Set(), followers: new Set(), chosen: new Set(), notifications: new Map(), dms: new Map(), inbox: new Set(), streams: new Map(), broadcasts: 0, windows: new Map(), readPending: false,
    };
    // User 1 is inside quiet hours, user 2 outside them; the others as the dice say.
    const quiet = i === 1 ? "inside" : i === 2 ? "outside" : chance(0.3) ? rnd.pick(["inside", "outside"] as const) : undefined;
    if (quiet) {
      const zone = rnd.pick(Object.keys(ZONES));
      const local = Math.floor(t0 / 60_000) + ZONES[zone]!;
      // User 1's direct messages are urgent (sent through the quiet hours); the others' urgent kinds as the dice say.
      const urgent: Kind[] = i === 1 ? ["dm"] : (["dm", "notification", "inbox", "stream", "author", "broadcast"] as const).filter(() => chance(0.25));
      if (quiet === "inside") {
        // Started 10 min to 3 h ago, ends 30 min to 14 h from now (past 12 h: longer than one queue delay).
        const after = rnd.int(30, 14 * 60);
        longestQuiet = Math.max(longestQuiet, after);
        u.prefs.quietHours = { start: clock(local - rnd.int(10, 180)), end: clock(local + after), timeZone: zone, urgent };
        u.quietEndsAt = t0 + after * 60_000;
      } else {
        // Starts 15 to 20 h from now: still ahead when the second phase ends.
        const start = local + rnd.int(15 * 60, 20 * 60);
        u.prefs.quietHours = { start: clock(start), end: clock(start + rnd.int(60, 180)), timeZone: zone, urgent };
      }
    }
    randomizePrefs(u, i);
    modelUsers.set(u.id, u);
    users.push(u);
  }

  function randomizePrefs(u: User, i = -1) {
    const p = u.prefs;
    p.kinds = {};
    p.types = {};
    for (const k of ["notification", "dm", "inbox", "stream", "author", "broadcast"] as const) if (chance(0.1)) p.kinds[k] = false;
    for (const t of NOTIFICATION_TYPES) if (chance(0.12)) p.types[t] = false;
    const policies: Policy[] = ["everyone", "everyone", "followed", "followers", "none"];
    p.policy = { dm: rnd.pick(policies), mention: rnd.pick(policies) };
    // User 3 always refuses something: likes off and DMs only from people they follow.
    if (i === 3) p.types.like = false, p.policy.dm = "followed";
    // User 1 (inside quiet hours) takes DMs from anyone and replies: one goes through the hours (urgent), the other is held.
    if (i === 1) delete p.kinds.dm, delete p.kinds.notification, delete p.types.reply, p.policy.dm = "everyone";
  }

  for (const u of users) {
    await call("PUT", "/v1/me/notification-preferences", { userId: u.id }, u.prefs);
    for (const p of peers) {
      if (chance(0.4)) {
        await call("PUT", `/v1/me/following/${p}`, { userId: u.id });
        u.follows.add(p);
        // Most followed authors are chosen: their posts push to the user.
        if (chance(0.7)) (await call("PUT", `/v1/me/notification-authors/${p}`, { userId: u.id }), u.chosen.add(p));
      }
      if (chance(0.4)) {
        await call("PUT", `/v1/me/following/${u.id}`, { userId: p });
        u.followers.add(p);
        u.notifications.set("follow", (u.notifications.get("follow") ?? 0) + 1); // a follow counts a `follow` notification
      }
    }
    // The first badge read starts the user's broadcasts (earlier ones are not theirs to read).
    await call("GET", "/v1/me/badges", { userId: u.id });
  }
  const streams = [newId(), newId()];
  const members = new Map<string, string[]>(streams.map((s) => [s, [peers[0]!]]));
  for (const s of streams) {
    for (const u of users) if (chance(0.6)) members.get(s)!.push(u.id);
    await sleep(3); // joins stamp "now": items are posted in later milliseconds
    for (const m of members.get(s)!) {
      await call("PUT", `/v1/streams/chat/${s}/members/${m}`, service);
      modelUsers.get(m)?.streams.set(s, 0);
    }
  }

  async function register(u: User, device: ModelDevice, deviceId: string) {
    const body = device.kind === "webpush" ? { kind: "webpush", ...webPushSubs.get(device.address)! } : device.kind === "fcm" ? { kind: "fcm", token: device.address } : { kind: "apns", token: device.address, environment: rnd.pick(["sandbox", "production"]), topic: device.topic };
    await call("PUT", `/v1/me/devices/${deviceId}`, { userId: u.id }, body);
    u.devices.set(deviceId, { ...device, deviceId, dead: false, throttled: 0 });
  }
  const webPushSubs = new Map<string, { endpoint: string; keys: { p256dh: string; auth: string } }>();
  async function newDevice(kind: DeviceKind): Promise<ModelDevice> {
    if (kind === "webpush") {
      const sub = await subscribeWebPush();
      webPushSubs.set(sub.clientHash, { endpoint: sub.endpoint, keys: sub.keys });
      return { kind, address: sub.clientHash };
    }
    if (kind === "fcm") return { kind, address: fcmToken(`fcm-${hex(8)}`) };
    return { kind, address: hex(32), topic: "com.example.community" };
  }
  const kinds: DeviceKind[] = ["webpush", "fcm", "apns"];
  /** Every device address the model ever had, so a push to a replaced or removed one is caught too. */
  const everyAddress = new Set<string>();
  for (const [i, u] of users.entries()) {
    // Users 0–3 have a device of each kind; the others none to three.
    const count = i < 4 ? 3 : rnd.int(0, 3);
    for (let k = 0; k < count; k++) await register(u, await newDevice(i < 4 ? kinds[k]! : rnd.pick(kinds)), `d${k}`);
  }
  // One endpoint registered again by another user moves, never duplicates.
  {
    const from = users[4]!.devices.size > 0 ? users[4]! : users[2]!;
    const [deviceId, device] = [...from.devices.entries()][0]!;
    const to = users[5] ?? users[3]!;
    from.devices.delete(deviceId);
    await register(to, device, "moved");
  }
  // A browser that subscribed again registers its new subscription under the same id: the old one gets nothing more.
  {
    const u = users[3]!;
    const old = [...u.devices.values()].find((d) => d.kind === "webpush");
    if (old) {
      everyAddress.add(`webpush:${old.address}`);
      await register(u, await newDevice("webpush"), old.deviceId);
    }
  }
  for (const u of users) if (u.socket) await openLive(u.id);

  // ── Delivery, and the comparison ─────────────────────────────────────────────────────────────
  const handler = createNotifyQueueHandler(events);
  let seq = Math.max(0, ...(await receivedAfter(0)).map((r) => r.seq));

  /** Moves the virtual clock to `to`, delivers everything due by then (the Worker's consumer, real push services), and compares. */
  async function settle(to: number, label: string) {
    now = Math.max(now, to);
    for (const u of users) for (const d of devicesOf(u)) everyAddress.add(`${d.kind}:${d.address}`);
    // The system: deliver in due order until nothing is due (a delivery may queue more).
    for (;;) {
      held.sort((a, b) => a.due - b.due);
      // A page's pacing (a broadcast's 1 s) is the queue's rate limit, not something a user sees: due at once.
      const due = held.filter((m) => m.due <= now || !("userId" in m.body));
      if (due.length === 0) break;
      for (const m of due) held.splice(held.indexOf(m), 1);
      for (let i = 0; i < due.length; i += 50) {
        const slice = due.slice(i, i + 50);
        const batch = createMessageBatch<NotifyQueueMessage>("notify-send", slice.map((m, k) => ({ id: `m${k}`, timestamp: new Date(), attempts: 1, body: m.body })));
        const ctx = createExecutionContext();
        await handler(batch, { ...(workerEnv as unknown as Env), ...envNow() } as Env, ctx);
        const result = await getQueueResult(batch, ctx);
        expect(result.retryMessages, `${where}: ${label}: a message failed as a whole`).toEqual([]);
        expect(result.explicitAcks).toHaveLength(slice.length);
      }
    }
    // The model: what each device should have got, with the badge as it is now.
    const want = new Map<string, string[]>();
    const add = (key: string, value: unknown) => want.set(key, [...(want.get(key) ?? []), canonical(value)]);
    const dueNow = pending.filter((p) => p.due <= now).sort((a, b) => a.due - b.due);
    for (const p of dueNow) {
      pending.splice(pending.indexOf(p), 1);
      const u = p.user;
      if (p.window) u.windows.delete(p.window);
      if (p.read) u.readPending = false;
      const badge = total(u);
      let push: ExpectedPush;
      let text = "";
      if (p.shown) {
        const { body, ...shown } = p.shown;
        text = p.others > 0 ? `${body ? `${body} ` : ""}… and ${p.others} other${p.others === 1 ? "" : "s"}` : body;
        push = { type: "alert", ...shown, ...(text ? { body: text } : {}), badge };
        if (p.others > 0) stats.collapsed++;
        if (u.quietEndsAt !== undefined && p.due >= u.quietEndsAt) stats.held++;
      } else {
        push = { type: "badge", badge };
        stats.badgeOnly++;
      }
      const retry = new Set<string>();
      for (const d of devicesOf(u)) {
        if (p.only && !p.only.has(d.deviceId)) continue;
        if (push.type === "badge" && d.kind === "webpush") continue;
        const key = `${d.kind}:${d.address}`;
        if (d.dead) {
          // Refused once, then gone from the user's list: no later push reaches it.
          add(key, expectedGone(d));
          u.devices.delete(d.deviceId);
          stats.gone[d.kind]++;
        } else if (d.throttled > 0) {
          add(key, expectedThrottled(d));
          d.throttled--;
          retry.add(d.deviceId);
          stats.retried++;
        } else {
          add(key, await expectedSeen(d, push));
          stats.pushes++;
          if (push.type === "alert" && push.data.kind === "author") stats.authorPushes++;
          if (push.type === "alert" && push.data.type === "follow" && push.title === "New follower") stats.followPushes++;
        }
      }
      if (retry.size > 0) {
        // The throttled devices alone, what was shown (the collapsed text included), after the backoff or Retry-After, whichever is longer.
        const attempt = p.attempt ?? 1;
        const delay = Math.max(Math.min(900, 10 * 2 ** (attempt - 1)), RETRY_AFTER_SECONDS);
        pending.push({ user: u, due: now + delay * 1000, ...(p.shown ? { shown: { ...p.shown, body: text } } : {}), others: 0, only: retry, attempt: attempt + 1 });
      }
    }
    // What the services received since the last round, for the model's devices (ever).
    const records = (await receivedAfter(seq)).filter((r) => everyAddress.has(`${r.service}:${r.device}`));
    seq = Math.max(seq, ...records.map((r) => r.seq));
    const got = new Map<string, string[]>();
    for (const r of records) got.set(`${r.service}:${r.device}`, [...(got.get(`${r.service}:${r.device}`) ?? []), canonical(seen(r))]);
    const sorted = (m: Map<string, string[]>) => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, v.sort()]));
    const context = `${where}: after ${label} (round ${stats.rounds})\n${log.slice(-25).join("\n")}`;
    expect(sorted(got), context).toEqual(sorted(want));
    // The model's unread numbers are what the badges call answers (the icon is their sum).
    for (const u of users) {
      const b = (await call("GET", "/v1/me/badges", { userId: u.id })) as Record<string, any>;
      const have = { notifications: b.notifications.total.count, dms: b.dms.count, inbox: b.inbox.total.count, streams: b.streams.total.count, broadcasts: b.broadcasts.count };
      const model = { notifications: sum(u.notifications), dms: sum(u.dms), inbox: u.inbox.size, streams: sum(u.streams), broadcasts: u.broadcasts };
      expect(have, `${context}\nuser ${u.id}`).toEqual(Object.fromEntries(Object.entries(model).map(([k, v]) => [k, Math.min(CAP, v)])));
    }
    stats.rounds++;
  }

  // ── Events ───────────────────────────────────────────────────────────────────────────────────
  /** The device's push service calls it gone from now on (Web Push 410, FCM UNREGISTERED, APNs 410). */
  async function kill(d: Device) {
    if (d.kind === "webpush") await expireWebPush(d.address);
    else if (d.kind === "fcm") await controlFcmToken(d.address, { unregistered: true });
    else await controlApnsToken(d.address, { unregistered: true });
    d.dead = true;
    log.push(`kill ${d.kind} ${d.address.slice(0, 12)}`);
  }
  /** The device's next `count` pushes are answered 429 with Retry-After (FCM and APNs). */
  async function throttle(d: Device, count: number) {
    const control = { throttle: { count, retryAfterSeconds: RETRY_AFTER_SECONDS } };
    if (d.kind === "fcm") await controlFcmToken(d.address, control);
    else await controlApnsToken(d.address, control);
    d.throttled = count;
    log.push(`throttle ${d.kind} ${d.address.slice(0, 12)} ×${count}`);
  }
  async function sendDm(u: User, from: string, count: number, alert: Alert | undefined) {
    await call("POST", `/v1/dms/${u.id}`, service, { from, count, ...(alert ? { alert } : {}) });
    u.dms.set(from, (u.dms.get(from) ?? 0) + count);
    event(u, "dm", resolve(alert, "New message", `dm:${from}`, "dm", "high"), undefined, from);
    log.push(`dm ×${count} → ${u.id} from ${from} ${JSON.stringify(alert ?? null)}`);
  }
  let kills = 0;
  let throttles = 0;
  const killOrder: DeviceKind[] = ["webpush", "fcm", "apns"];
  const steps: Record<string, (u: User) => Promise<void>> = {
    async notification(u) {
      const type = rnd.pick(NOTIFICATION_TYPES);
      const count = chance(0.1) ? rnd.int(20, 40) : rnd.int(1, 3);
      const from = chance(0.6) ? rnd.pick(peers) : undefined;
      const alert = randomAlert();
      const body = { type, count, ...(alert ? { alert } : {}), ...(from ? { from } : {}) };
      const key = chance(0.2) ? { "Idempotency-Key": `k-${newId()}` } : undefined;
      const res = await api("POST", `/v1/users/${u.id}/notifications`, { as: service, env: envNow(), body, ...(key ? { headers: key } : {}) });
      expect(res.status, `${where}: ${show(res)}`).toBe(200);
      if (key) {
        // The same call again (a retry of the calling service): counted once, pushed once.
        const again = await api("POST", `/v1/users/${u.id}/notifications`, { as: service, env: envNow(), body, headers: key });
        expect(again.body, `${where}: ${show(again)}`).toMatchObject({ applied: false });
      }
      u.notifications.set(type, (u.notifications.get(type) ?? 0) + count);
      event(u, "notification", resolve(alert, "New notification", `notification:${type}`, "notification", type === "mention" ? "high" : "normal", type), type, from);
      log.push(`notification ${type}×${count}${key ? " (sent twice, one Idempotency-Key)" : ""} → ${u.id}${from ? ` from ${from}` : ""} ${JSON.stringify(alert ?? null)}`);
    },
    async burst(u) {
      const type = rnd.pick(["like", "follow", "repost"] as const);
      const thread = chance(0.5) ? rnd.pick(THREADS) : undefined;
      const size = rnd.int(4, 12);
      for (let k = 0; k < size; k++) {
        const alert: Alert = { title: `${rnd.pick(TITLES)} ${k}`, ...(k % 2 ? { body: "on your post" } : {}), ...(thread ? { thread } : {}) };
        now += 1000;
        await call("POST", `/v1/users/${u.id}/notifications`, service, { type, alert });
        u.notifications.set(type, (u.notifications.get(type) ?? 0) + 1);
        event(u, "notification", resolve(alert, "New notification", `notification:${type}`, "notification", "normal", type), type);
      }
      log.push(`burst ${type}×${size} → ${u.id} thread ${thread ?? "(default)"}`);
    },
    async dm(u) {
      await sendDm(u, rnd.pick(peers), rnd.int(1, 2), randomAlert());
    },
    async follow(u) {
      // A peer not yet following (then a follower for the DM and mention policies), or a stranger.
      const free = peers.filter((p) => !u.followers.has(p));
      const follower = free.length > 0 && chance(0.5) ? rnd.pick(free) : newId();
      await call("PUT", `/v1/me/following/${u.id}`, { userId: follower });
      if (peers.includes(follower)) u.followers.add(follower);
      u.notifications.set("follow", (u.notifications.get("follow") ?? 0) + 1);
      // Pushed as a `follow` notification: "New follower", the type's thread and window.
      event(u, "notification", resolve({ title: "New follower" }, "New notification", "notification:follow", "notification", "normal", "follow"), "follow", follower);
      log.push(`follow ${follower} → ${u.id}`);
    },
    async author() {
      const author = rnd.pick(peers);
      const text = chance(0.2) ? `${"long post ".repeat(16)}end` : `Post ${rnd.int(1, 999)}`;
      const alert = postAlert();
      // What is due now is sent first: the post's page is then the round's only message, as the
      // queue would hand it over after them.
      await settle(now, "before a post");
      await call("POST", "/v1/posts", { userId: author }, { text, ...(alert ? { alert } : {}) });
      // The page runs at once (as the queue would), queueing each chooser's push at this time.
      await settle(now, "a post's page");
      const excerpt = text.length > AUTHOR_EXCERPT ? `${text.slice(0, AUTHOR_EXCERPT - 1)}…` : text;
      const thread = alert?.thread === undefined ? `author:${author}` : `author:${author}:${alert.thread}`;
      for (const u of users) if (u.chosen.has(author)) event(u, "author", resolve({ ...alert, thread }, "New post", thread, "author", "normal", undefined, excerpt), undefined, author);
      log.push(`post by ${author} ${JSON.stringify(alert ?? null)} → choosers ${users.filter((u) => u.chosen.has(author)).map((u) => u.id).join(",")}`);
    },
    async inbox(u) {
      const to = [u, ...users.filter((o) => o !== u && chance(0.25))];
      const title = `Notice ${rnd.int(1, 999)}`;
      const alert = chance(0.5) ? randomAlert() : undefined;
      const sent = (await call("POST", "/v1/messages", service, { to: to.map((o) => o.id), type: "system", title, content: "c", ...(alert ? { alert } : {}) })) as { id: string };
      for (const o of to) {
        o.inbox.add(sent.id);
        // The fields the alert leaves out: the message's own title.
        event(o, "inbox", resolve(alert, title, `inbox:${sent.id}`, "inbox", "normal"));
      }
      log.push(`inbox ${sent.id} → ${to.map((o) => o.id).join(",")} ${JSON.stringify(alert ?? null)}`);
    },
    async stream() {
      const s = rnd.pick(streams);
      const from = rnd.pick(members.get(s)!);
      const alert = randomAlert();
      await sleep(3);
      await call("POST", `/v1/streams/chat/${s}/items`, service, { from, ...(alert ? { alert } : {}) });
      for (const m of members.get(s)!) {
        const o = modelUsers.get(m);
        if (!o) continue;
        o.streams.set(s, (o.streams.get(s) ?? 0) + 1);
        if (m !== from) event(o, "stream", resolve(alert, "New message", `stream:chat:${s}`, "stream", "normal"));
      }
      log.push(`stream item ${s} from ${from} ${JSON.stringify(alert ?? null)}`);
    },
    async broadcast() {
      const push = chance(0.7);
      const alert = chance(0.4) ? randomAlert() : undefined;
      const title = `Tonight ${rnd.int(1, 99)}`;
      const b = (await call("POST", "/v1/broadcasts", admin, { title, body: "Maintenance at 2", push, ...(alert ? { alert } : {}) })) as { id: string };
      for (const u of users) {
        u.broadcasts++;
        // The fields the alert leaves out: the broadcast's own title and body.
        if (push) event(u, "broadcast", resolve(alert, title, `broadcast:${b.id}`, "broadcast", "normal", undefined, "Maintenance at 2"));
      }
      log.push(`broadcast ${b.id} push ${push} ${JSON.stringify(alert ?? null)}`);
    },
    async read(u) {
      const as = { userId: u.id };
      const what = rnd.int(0, 6);
      let which = "broadcasts";
      await sleep(3);
      if (what === 0) {
        const type = rnd.pick(NOTIFICATION_TYPES);
        await call("POST", `/v1/me/notifications/${type}/read`, as);
        u.notifications.delete(type);
        which = `notifications ${type}`;
      } else if (what === 1) {
        await call("POST", "/v1/me/notifications/read", as);
        u.notifications.clear();
        which = "notifications";
      } else if (what === 2) {
        const peer = rnd.pick(peers);
        await call("POST", `/v1/me/dms/${peer}/read`, as);
        u.dms.delete(peer);
        which = `dms of ${peer}`;
      } else if (what === 3) {
        await call("POST", "/v1/me/messages/read", as);
        u.inbox.clear();
        which = "inbox";
      } else if (what === 4 && u.inbox.size > 0) {
        const id = rnd.pick([...u.inbox]);
        await call("POST", `/v1/me/messages/${id}/read`, as);
        u.inbox.delete(id);
        which = `inbox ${id}`;
      } else if (what === 5 && u.streams.size > 0) {
        const s = rnd.pick([...u.streams.keys()]);
        await call("POST", `/v1/me/streams/chat/${s}/read`, as);
        u.streams.set(s, 0);
        which = `stream ${s}`;
      } else {
        await call("POST", "/v1/me/broadcasts/read", as, {});
        u.broadcasts = 0;
      }
      read(u);
      log.push(`read ${which} by ${u.id}`);
    },
    async kill() {
      if (kills >= 4) return;
      const kind = killOrder[kills % killOrder.length]!;
      const victims = users.flatMap((u) => devicesOf(u).filter((d) => d.kind === kind && !d.dead));
      if (victims.length === 0) return;
      await kill(rnd.pick(victims));
      kills++;
    },
    async throttle() {
      if (throttles >= 3) return;
      const victims = users.flatMap((u) => devicesOf(u).filter((d) => d.kind !== "webpush" && !d.dead && d.throttled === 0));
      if (victims.length === 0) return;
      await throttle(rnd.pick(victims), rnd.int(1, 2));
      throttles++;
    },
    async preferences(u) {
      randomizePrefs(u, users.indexOf(u));
      await call("PUT", "/v1/me/notification-preferences", { userId: u.id }, u.prefs);
      log.push(`preferences of ${u.id}: ${JSON.stringify(u.prefs)}`);
    },
  };
  /**
   * Whatever the dice did: a device of each kind dies and is found by a direct message its user
   * accepts, and an FCM or APNs device is throttled and found by a read (badge-only updates go
   * whatever the preferences say).
   */
  async function everyAnswer() {
    for (const kind of kinds) {
      const pair = users.flatMap((u) => (u.socket ? [] : peers.filter((p) => decide(u, "dm", undefined, p).send).map((p) => ({ u, p })))).find(({ u }) => devicesOf(u).some((d) => d.kind === kind && !d.dead));
      if (!pair) continue;
      await kill(devicesOf(pair.u).find((d) => d.kind === kind && !d.dead)!);
      now += 1000;
      await sendDm(pair.u, pair.p, 1, undefined);
    }
    const u = users.find((u) => devicesOf(u).some((d) => d.kind !== "webpush" && !d.dead && d.throttled === 0));
    if (u) {
      await throttle(devicesOf(u).find((d) => d.kind !== "webpush" && !d.dead && d.throttled === 0)!, 1);
      now += 1000;
      await call("POST", "/v1/me/notifications/read", { userId: u.id });
      u.notifications.clear();
      read(u);
      log.push(`read notifications by ${u.id}`);
    }
    await settle(now + 60_000, "every answer");
  }

  const weights: [string, number][] = [["notification", 22], ["burst", 8], ["follow", 4], ["author", 4], ["dm", 12], ["inbox", 8], ["stream", 8], ["broadcast", 4], ["read", 16], ["kill", 4], ["throttle", 3], ["preferences", 3], ["tick", 8], ["advance", 5]];
  const weightSum = weights.reduce((a, [, w]) => a + w, 0);
  async function phase(name: string, count: number) {
    for (let i = 0; i < count; i++) {
      let roll = rnd.next() * weightSum;
      const [step] = weights.find(([, w]) => (roll -= w) < 0) ?? weights[0]!;
      if (step === "tick") await settle(now, `${name} tick`);
      else if (step === "advance") await settle(now + rnd.int(31, 45) * 1000, `${name} advance`);
      else {
        now += 1000;
        await steps[step]!(rnd.pick(users));
      }
    }
    // Every batch window and read update closes.
    await settle(now + 40_000, `${name} end`);
  }

  const stepsPerPhase = options.steps ?? 40;
  // Inside quiet hours: a direct message passes (urgent), a reply is held until they end.
  now += 1000;
  await sendDm(users[1]!, peers[0]!, 1, undefined);
  now += 1000;
  await call("POST", `/v1/users/${users[1]!.id}/notifications`, service, { type: "reply" });
  users[1]!.notifications.set("reply", (users[1]!.notifications.get("reply") ?? 0) + 1);
  event(users[1]!, "notification", resolve(undefined, "New notification", "notification:reply", "notification", "normal", "reply"), "reply");
  log.push(`notification reply×1 → ${users[1]!.id}`);
  await phase("first phase", stepsPerPhase);
  // Held pushes are still held: every quiet hour of the first phase ends, and they are sent.
  await settle(t0 + longestQuiet * 60_000 + 5 * 60_000, "quiet hours end");
  for (const u of users) u.quietEndsAt = undefined;
  await everyAnswer();
  await phase("second phase", stepsPerPhase);
  // Every remaining dead device is found by one last event for its user.
  for (const u of users) {
    if (!devicesOf(u).some((d) => d.dead)) continue;
    now += 1000;
    await steps.dm!(u);
  }
  // Until nothing is left: a retry may queue another.
  for (let round = 0; round < 5 && (round === 0 || pending.length > 0); round++) await settle(now + 40_000, "last");
  expect(pending.map((p) => `${p.user.id} due ${p.due - now} ms`), `${where}: the model still waits for`).toEqual([]);
  // Gone devices are gone from their users' lists; the others are listed once each.
  for (const u of users) {
    const listed = (await call("GET", "/v1/me/devices", { userId: u.id })) as { items: { deviceId: string; kind: string }[] };
    const want = devicesOf(u).filter((d) => !d.dead).map((d) => ({ deviceId: d.deviceId, kind: d.kind }));
    const pending = devicesOf(u).filter((d) => d.dead).map((d) => ({ deviceId: d.deviceId, kind: d.kind }));
    const sortById = (a: { deviceId: string }, b: { deviceId: string }) => a.deviceId.localeCompare(b.deviceId);
    expect(listed.items.map((d) => ({ deviceId: d.deviceId, kind: d.kind })).sort(sortById), `${where}: devices of ${u.id}`).toEqual([...want, ...pending].sort(sortById));
  }
  expect(held.filter((m) => m.due <= now), `${where}: messages left due`).toEqual([]);
  return stats;
}
