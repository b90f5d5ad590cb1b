/**
 * `npm run bench:notify` — push notifications to closed apps, end to end: the bundled Worker in
 * workerd (Miniflare API, fresh local stack, the `notify-send` queue as wrangler.toml declares it)
 * sending to the stack's local push services (web-push-testing, which checks VAPID and decrypts
 * every push; the FCM and APNs stand-ins, which check the tokens). Every figure is read from what
 * those services received, never from the Worker's own account:
 *   1. billed Redis commands per event for a user with no open socket, the unread total included:
 *      a lone like (it opens a 30 s batch window), a like inside an open window and a DM, each
 *      minus what the same write costs a user with no device (`INFO commandstats` deltas, EVALSHA
 *      + what a script runs, as Upstash bills), itemised command by command;
 *   2. CPU ms per Web Push encryption + VAPID signature, inside workerd (the workerd process'
 *      utime + stime over a bench-only route building N requests, `notify-cpu.ts`);
 *   3. 50 likes on one post in a minute to one offline user: notifications each device got;
 *   4. users with an open badges socket (`/v1/me/live`) sent a notification, a DM, an inbox
 *      message and a stream item each: pushes their devices got;
 *   5. devices whose push service calls them gone (Web Push 410, FCM 404 UNREGISTERED, APNs 410
 *      Unregistered): sends each got after its first refusal, over two more events;
 *   6. random events (notifications, DMs, inbox messages, stream items, reads) to users with a
 *      Web Push, an FCM and an APNs device, one at a time per user: each push's badge against the
 *      user's unread total at that moment, summed from `GET /v1/me/badges` as the icon rule sums it;
 *   7. many offline users with three devices each: device sends per second through the queue
 *      consumer, the same DM message enqueued at once for every user (bench-only route), first to
 *      last delivery; before it, a DM to each through the API (writes, queueing and sends end to
 *      end on the same workerd thread, reported beside it);
 *   8. a broadcast with `"push": true` to every user with a device: devices reached per second
 *      (from the request to the last delivery), and its billed commands per user pushed.
 * Sizes: NOTIFY_USERS (throughput users, default 300), NOTIFY_BURST_SECONDS (default 60).
 */
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { COUNT_IN_WINDOW } from "../../src/notify/windows.lua.js";
import type { ReceivedPush } from "../stack/push/index.js";
import { benchLog, billedCommandsBetween, bridgeRequests, cpuTicks, printTable, redisCommandStats, runLoad, startBenchWithClients, workerdPid } from "./harness.js";

const THROUGHPUT_USERS = Number(process.env.NOTIFY_USERS ?? 300);
const BURST_SECONDS = Number(process.env.NOTIFY_BURST_SECONDS ?? 60);
const BURST_LIKES = 50;
const OPEN_APP_USERS = 30;
const DEAD_USERS = 20;
const BADGE_USERS = 24;
const BADGE_STEPS = 6;
const CPU_PUSHES = 1_000;
/** The icon's cap: `GET /v1/me/badges`' default, which the push's total uses too (src/notify/unread-total.ts). */
const ICON_CAP = 99;

const BASE = 7_000_000_000_000;
const uid = (n: number) => String(BASE + n);
const BILLED = uid(1);
const NO_DEVICE = uid(2);
const BURST = uid(3);
const SENTINEL = uid(4);
const PEER = uid(5);
const OPEN_FROM = 100;
const DEAD_FROM = 200;
const BADGE_FROM = 300;
const THROUGHPUT_FROM = 1_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => uid(from + i));

type Kind = "webpush" | "fcm" | "apns";
/** A seeded device; `address` is what the push service's record calls it (client hash or token). */
type BenchDevice = { userId: string; kind: Kind; deviceId: string; address: string; endpoint?: string; details: string };

/** A small seeded PRNG (mulberry32): the event mix is the same on every run. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const { bench, db, redis, close } = await startBenchWithClients({ push: true });
  const push = bench.stack.push;
  const sockets: WebSocket[] = [];
  const background: Promise<unknown>[] = [];
  try {
    // ── What the push services received, by device ──
    const byDevice = new Map<string, ReceivedPush[]>();
    push.received.onReceived((p) => {
      const list = byDevice.get(p.device) ?? [];
      list.push(p);
      byDevice.set(p.device, list);
    });
    const got = (d: BenchDevice) => byDevice.get(d.address) ?? [];
    /** Polls `ready` (Web Push records synced first) until it holds or `timeoutMs` passes. */
    const until = async (ready: () => boolean, timeoutMs: number) => {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        await push.webPush.sync();
        if (ready()) return true;
        if (performance.now() > deadline) return false;
        await sleep(100);
      }
    };

    const service = await bench.token("1", "service");
    const admin = await bench.token("1", "admin");
    const tokens = new Map<string, string>();
    const tokenOf = async (u: string) => tokens.get(u) ?? (tokens.set(u, await bench.token(u)), tokens.get(u)!);
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(bench.url + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    const as = async (u: string, method: string, path: string, body?: unknown) => call(method, path, await tokenOf(u), body);
    /** The icon's number as `GET /v1/me/badges` gives it: the kinds that are things to read, summed and capped. */
    const unreadTotal = async (u: string) => {
      const b = await as(u, "GET", `/v1/me/badges?cap=${ICON_CAP}`);
      return Math.min(ICON_CAP, b.notifications.total.count + b.dms.count + b.inbox.total.count + b.streams.total.count + b.broadcasts.count);
    };

    // ── Devices: Web Push subscriptions at web-push-testing, FCM and APNs tokens the stand-ins take ──
    const devicesOf = new Map<string, BenchDevice[]>();
    /** A device of `kind` for `userId`, as its push service knows it (a Web Push subscription is made there). */
    const newDevice = async (userId: string, kind: Kind): Promise<BenchDevice> => {
      if (kind === "webpush") {
        const sub = await push.webPush.subscribe();
        return { userId, kind, deviceId: "browser", address: sub.clientHash, endpoint: sub.endpoint, details: JSON.stringify({ keys: sub.keys }) };
      }
      if (kind === "fcm") return { userId, kind, deviceId: "android", address: `fcm-${hex(8)}:APA91b${hex(24)}`, details: "{}" };
      return { userId, kind, deviceId: "iphone", address: hex(32), details: JSON.stringify({ environment: "sandbox", topic: "com.example.community" }) };
    };
    async function seedDevices(users: string[], kinds: Kind[] = ["webpush", "fcm", "apns"]): Promise<BenchDevice[]> {
      const made: BenchDevice[] = [];
      for (let i = 0; i < users.length; i += 20) made.push(...(await Promise.all(users.slice(i, i + 20).flatMap((userId) => kinds.map((kind) => newDevice(userId, kind))))));
      // Rows as a registration leaves them (PUT /v1/me/devices/{id}); straight into Postgres, so
      // seeding bills no Redis command and leaves no 15 s stale mark on the cached lists.
      await db.query(
        `INSERT INTO notify_devices (user_id, device_id, kind, address, details)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])`,
        [made.map((d) => d.userId), made.map((d) => d.deviceId), made.map((d) => d.kind), made.map((d) => d.endpoint ?? d.address), made.map((d) => d.details)],
      );
      for (const d of made) devicesOf.set(d.userId, [...(devicesOf.get(d.userId) ?? []), d]);
      return made;
    }
    const allOf = (users: string[]) => users.flatMap((u) => devicesOf.get(u) ?? []);

    /** Waits until the queue has sent everything enqueued so far: a DM to the sentinel has arrived (the queue delivers in order). */
    let sentinelSeq = 0;
    const settle = async () => {
      const title = `settle ${++sentinelSeq}`;
      await call("POST", `/v1/dms/${SENTINEL}`, service, { from: PEER, alert: { title } });
      const [d] = devicesOf.get(SENTINEL)!;
      if (!(await until(() => got(d!).some((p) => p.title === title), 60_000))) throw new Error("the queue did not settle within 60 s");
      await sleep(500);
    };

    await seedDevices([BILLED]);
    await seedDevices([SENTINEL], ["fcm"]);
    await seedDevices([BURST]);

    // ── 1. Billed commands per event ──
    // Known users in steady state: badge caches built, preferences and device lists cached.
    for (const u of [BILLED, NO_DEVICE]) {
      // Two badges reads: a user's first-seen broadcast marker is written after a read that found
      // the database's broadcast window in place, which the first read of a fresh stack builds
      // (docs/badges.md): once in a user's life, not a cost of their events.
      await as(u, "GET", `/v1/me/badges?cap=${ICON_CAP}`);
      await sleep(200);
      await as(u, "GET", `/v1/me/badges?cap=${ICON_CAP}`);
      await as(u, "GET", "/v1/me/notification-preferences");
      await as(u, "GET", "/v1/me/devices");
    }
    // Every script loaded, as in a deployment that has run a while (a script's first use bills a
    // failed EVALSHA and an EVAL): the tally scripts by one write each, COUNT_IN_WINDOW directly
    // (it runs only in an open window, which would need a device and 30 s).
    await call("POST", `/v1/users/${NO_DEVICE}/notifications`, service, { type: "reply" });
    await call("POST", `/v1/dms/${NO_DEVICE}`, service, { from: PEER });
    await as(NO_DEVICE, "GET", `/v1/me/badges?cap=${ICON_CAP}`);
    await redis.script("LOAD", COUNT_IN_WINDOW);
    await sleep(1_000); // the cache fills ride waitUntil
    const snapshot = async () => ({ stats: await redisCommandStats(bench.stack), trips: bridgeRequests(bench.stack) });
    type Snap = Awaited<ReturnType<typeof snapshot>>;
    const between = (a: Snap, b: Snap) => ({ ...billedCommandsBetween(a.stats, b.stats), trips: b.trips - a.trips });
    const like = (u: string, title: string) => call("POST", `/v1/users/${u}/notifications`, service, { type: "like", alert: { title, thread: "bench:billed" } });
    const dm = (u: string, title: string) => call("POST", `/v1/dms/${u}`, service, { from: PEER, alert: { title } });
    const billedDevices = devicesOf.get(BILLED)!;
    const arrivedAll = (title: string) => until(() => billedDevices.every((d) => got(d).some((p) => p.title === title)), 90_000);

    const s0 = await snapshot();
    await like(BILLED, "Bench like");
    await sleep(1_000);
    const s1 = await snapshot(); // the lone like up to the queue: its write, MGET, SET NX EX
    await like(BILLED, "Bench like");
    await sleep(1_000);
    const s2 = await snapshot(); // a like in the open window: its write, MGET, SET NX (refused), COUNT_IN_WINDOW

    // While the window runs (30 s), work that bills no Redis command: the CPU of Web Push
    // requests in workerd, and the devices of the later phases (web-push-testing, Postgres).
    const pid = workerdPid();
    const cpuOf = async (vapid: "fresh" | "reused") => {
      await fetch(`${bench.url}/v1/bench/notify/webpush-requests?n=20&vapid=${vapid}`); // warm
      const before = cpuTicks(pid);
      for (let i = 0; i < CPU_PUSHES / 100; i++) {
        const res = await fetch(`${bench.url}/v1/bench/notify/webpush-requests?n=100&vapid=${vapid}`);
        if (!res.ok) throw new Error(`webpush-requests → ${res.status} ${await res.text()}`);
      }
      return ((cpuTicks(pid) - before) * 10) / CPU_PUSHES; // ticks are 10 ms
    };
    const idleBefore = cpuTicks(pid);
    await sleep(1_000);
    const idleTicksPerS = cpuTicks(pid) - idleBefore;
    const cpuFresh = await cpuOf("fresh");
    const cpuReused = await cpuOf("reused");
    const openUsers = range(OPEN_FROM, OPEN_APP_USERS);
    const deadUsers = range(DEAD_FROM, DEAD_USERS);
    const badgeUsers = range(BADGE_FROM, BADGE_USERS);
    const throughputUsers = range(THROUGHPUT_FROM, THROUGHPUT_USERS);
    await seedDevices(openUsers);
    const deadDevices = await seedDevices(deadUsers);
    await seedDevices(badgeUsers);
    await seedDevices(throughputUsers);
    benchLog(`seeded ${[...devicesOf.values()].flat().length} devices`);

    if (!(await arrivedAll("Bench like"))) throw new Error("the collapsed like never arrived");
    await sleep(1_000);
    const s3 = await snapshot(); // the window's push: devices GET, GETDEL, GET_BADGES
    await dm(BILLED, "Bench DM");
    if (!(await arrivedAll("Bench DM"))) throw new Error("the DM push never arrived");
    await sleep(1_000);
    const s4 = await snapshot();
    // The same writes to a user with no device: the write's own commands, plus the devices MGET that stops there.
    await like(NO_DEVICE, "Bench like");
    await sleep(1_000);
    const s5 = await snapshot();
    await dm(NO_DEVICE, "Bench DM");
    await sleep(1_000);
    const s6 = await snapshot();
    // The unread total alone, as GET /v1/me/badges reads it (the same script the sender runs).
    await unreadTotal(BILLED);
    const s7 = await snapshot();

    const writeLike = minus(between(s4, s5).byCommand, { mget: 1 });
    const writeDm = minus(between(s5, s6).byCommand, { mget: 1 });
    const badgesRead = between(s6, s7).byCommand;
    const loneLike = minus(plus(between(s0, s1).byCommand, between(s2, s3).byCommand), writeLike);
    const inWindowLike = minus(between(s1, s2).byCommand, writeLike);
    const dmEvent = minus(between(s3, s4).byCommand, writeDm);
    // Round trips the same way: the no-device write's, minus its one MGET, is the write's own.
    const tripsOf = (a: Snap, b: Snap) => b.trips - a.trips;
    const writeLikeTrips = tripsOf(s4, s5) - 1;
    const writeDmTrips = tripsOf(s5, s6) - 1;
    const perEvent = [
      { event: "lone like (opens a 30 s window; its push sent 30 s later)", commands: loneLike, trips: tripsOf(s0, s1) + tripsOf(s2, s3) - writeLikeTrips },
      { event: "like inside the open window (only counted)", commands: inWindowLike, trips: tripsOf(s1, s2) - writeLikeTrips },
      { event: "direct message (no window)", commands: dmEvent, trips: tripsOf(s3, s4) - writeDmTrips },
    ];
    console.log("Billed Redis commands per event, a user with no open socket, on top of the write's own (the unread total included):");
    for (const { event, commands, trips } of perEvent) {
      console.log(`  ${event}: ${sum(commands)} commands, ${trips} round trips`);
      for (const line of explain(commands, badgesRead)) console.log(`    ${line}`);
    }
    console.log(`  (the write's own: like ${sum(writeLike)}, DM ${sum(writeDm)}; GET_BADGES for this user ${sum(badgesRead)}: ${describe(badgesRead)})`);
    const billedPerEvent = Math.max(sum(loneLike), sum(dmEvent));

    // ── 3. The burst, in the background: 50 likes on one post in a minute ──
    const burstDevices = devicesOf.get(BURST)!;
    const BURST_TITLE = "Ada liked your post";
    background.push(
      (async () => {
        for (let i = 0; i < BURST_LIKES; i++) {
          await call("POST", `/v1/users/${BURST}/notifications`, service, { type: "like", alert: { title: BURST_TITLE, thread: "likes:post:7" } });
          await sleep((BURST_SECONDS * 1000) / BURST_LIKES);
        }
      })(),
    );
    const burstStarted = performance.now();

    // ── 4. Open apps: users with a badges socket open get no push ──
    const wsUrl = bench.url.replace(/^http/, "ws");
    await Promise.all(
      openUsers.map(async (u) => {
        const ws = new WebSocket(`${wsUrl}/v1/me/live?token=${await tokenOf(u)}`, { perMessageDeflate: false });
        sockets.push(ws);
        await new Promise<void>((resolve, reject) => {
          ws.once("message", () => resolve());
          ws.once("error", reject);
        });
      }),
    );
    const openStream = `/v1/streams/chat/${uid(90)}`;
    for (const u of [...openUsers, PEER]) await call("PUT", `${openStream}/members/${u}`, service);
    for (const u of openUsers) {
      await call("POST", `/v1/users/${u}/notifications`, service, { type: "reply", alert: { title: "open-app reply" } });
      await call("POST", `/v1/users/${u}/notifications`, service, { type: "mention", from: PEER });
      await dm(u, "open-app DM");
    }
    await call("POST", "/v1/messages", service, { to: openUsers, type: "system", title: "open-app inbox", content: "hello" });
    await call("POST", `${openStream}/items`, service, { from: PEER, alert: { title: "open-app stream" } });

    // ── 5. Dead devices: each push service says gone on the first push ──
    for (const d of deadDevices) {
      if (d.kind === "webpush") await push.webPush.expire(d.address);
      else if (d.kind === "fcm") push.fcm.markUnregistered(d.address);
      else push.apns.markUnregistered(d.address);
    }
    for (const u of deadUsers) await dm(u, "dead 1");
    const refused = (d: BenchDevice) => got(d).find((p) => p.status >= 400);
    if (!(await until(() => deadDevices.every(refused), 60_000))) throw new Error("not every dead device was refused");
    await settle();
    for (const u of deadUsers) {
      await dm(u, "dead 2");
      await call("POST", `/v1/users/${u}/notifications`, service, { type: "reply", alert: { title: "dead 3" } });
    }

    // ── 6. Badge exactness: one event at a time per user, each push against the total then ──
    let compared = 0;
    let exact = 0;
    let missingPushes = 0;
    let atCap = 0;
    const mismatches: string[] = [];
    const random = prng(30);
    const plans = badgeUsers.map(() => Array.from({ length: BADGE_STEPS }, () => random()));
    for (const [i, u] of badgeUsers.entries()) await call("PUT", `/v1/streams/chat/${uid(400 + i)}/members/${u}`, service);
    await Promise.all(
      badgeUsers.map(async (u, i) => {
        const devices = devicesOf.get(u)!;
        const stream = `/v1/streams/chat/${uid(400 + i)}`;
        for (const [step, r] of plans[i]!.entries()) {
          const seen = new Map(devices.map((d) => [d.address, got(d).length]));
          let expected: BenchDevice[] = devices;
          const title = `badge ${step}`;
          // Every fourth user gets 120 notifications at its third step: its total passes the cap.
          const pastCap = step === 2 && i % 4 === 0;
          if (r < 0.25 || pastCap) await call("POST", `/v1/users/${u}/notifications`, service, { type: "reply", count: pastCap ? 120 : 1 + Math.floor(r * 12), alert: { title } });
          else if (r < 0.45) await call("POST", `/v1/dms/${u}`, service, { from: uid(500 + step), alert: { title } });
          else if (r < 0.6) await call("POST", "/v1/messages", service, { to: [u], type: "system", title, content: "c" });
          else if (r < 0.75) await call("POST", `${stream}/items`, service, { alert: { title } });
          else {
            // A read on another device: APNs and FCM get a badge-only update (Web Push none).
            const which = Math.floor(((r - 0.75) / 0.25) * 3);
            if (which === 0) await as(u, "POST", "/v1/me/notifications/read");
            else if (which === 1) await as(u, "POST", `/v1/me/dms/${uid(500 + Math.max(0, step - 1))}/read`);
            else await as(u, "POST", "/v1/me/messages/read");
            expected = devices.filter((d) => d.kind !== "webpush");
          }
          const arrived = await until(() => expected.every((d) => got(d).length > seen.get(d.address)!), 30_000);
          await sleep(200); // a later (wrong) push for this step would show here
          const total = await unreadTotal(u);
          for (const d of devices) {
            for (const p of got(d).slice(seen.get(d.address)!)) {
              compared++;
              if (p.badge === ICON_CAP) atCap++;
              if (p.status < 300 && p.badge === total) exact++;
              else mismatches.push(`${u} step ${step} ${d.kind}: badge ${p.badge} (status ${p.status}), total ${total}`);
            }
          }
          if (!arrived) missingPushes += expected.filter((d) => got(d).length === seen.get(d.address)!).length;
        }
      }),
    );
    compared += missingPushes;
    const badgeExactPct = compared === 0 ? Number.NaN : (exact / compared) * 100;

    // ── 7. Throughput: many offline users with three devices each ──
    // First through the API (a DM to each: the writes, the queueing and the sends, end to end),
    // which also leaves their device lists cached as a running deployment has them; then the
    // consumer alone: the same message for every user enqueued at once, drained at its own pace.
    await settle();
    const tpDevices = allOf(throughputUsers);
    const deliveredAt = (title: string) => tpDevices.flatMap((d) => got(d).filter((p) => p.title === title).map((p) => p.at)).sort((a, b) => a - b);
    const API_TITLE = "Bench throughput (API)";
    const apiStartedAt = Date.now();
    const load = await runLoad({
      baseUrl: bench.url,
      concurrency: 8,
      total: throughputUsers.length,
      durationMs: 120_000,
      request: (i) => ({ method: "POST", path: `/v1/dms/${throughputUsers[i]}`, headers: { Authorization: `Bearer ${service}` }, body: { from: PEER, alert: { title: API_TITLE } } }),
    });
    await until(() => deliveredAt(API_TITLE).length === tpDevices.length, 180_000);
    const apiAt = deliveredAt(API_TITLE);
    const apiSeconds = apiAt.length ? (apiAt.at(-1)! - apiStartedAt) / 1000 : Number.NaN;
    await settle();
    const TP_TITLE = "Bench throughput";
    const enqueuedAt = Date.now();
    const enqueued = await fetch(`${bench.url}/v1/bench/notify/enqueue`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userIds: throughputUsers, title: TP_TITLE }) });
    if (!enqueued.ok) throw new Error(`enqueue → ${enqueued.status} ${await enqueued.text()}`);
    await until(() => deliveredAt(TP_TITLE).length === tpDevices.length, 180_000);
    const tpAt = deliveredAt(TP_TITLE);
    const sendsPerS = tpAt.length > 1 ? (tpAt.length - 1) / ((tpAt.at(-1)! - tpAt[0]!) / 1000) : Number.NaN;
    const tpSeconds = tpAt.length ? (tpAt.at(-1)! - enqueuedAt) / 1000 : Number.NaN;
    const tpByService = (["webpush", "fcm", "apns"] as const).map((k) => `${k} ${tpDevices.filter((d) => d.kind === k && got(d).some((p) => p.title === TP_TITLE && p.status < 300)).length}`).join(", ");
    benchLog(`throughput: ${tpAt.length}/${tpDevices.length} in ${tpSeconds.toFixed(1)} s`);

    // ── 8. A broadcast with push to every user with a device ──
    await settle();
    const openSet = new Set(openUsers);
    const { rows } = await db.query<{ user_id: string; n: number }>(`SELECT user_id::text, count(*)::int AS n FROM notify_devices GROUP BY user_id`);
    const audience = rows.filter((r) => !openSet.has(r.user_id));
    // FCM devices are reached by one topic send (FCM_BROADCAST_TOPIC, docs/push-delivery.md), which
    // FCM fans out: the stand-in records it once with the tokens subscribed. The rate is the paged
    // devices' (Web Push and APNs), the ones the queue sends one by one.
    const everyAudienceDevice = audience.flatMap((r) => devicesOf.get(r.user_id) ?? []);
    const audienceDevices = everyAudienceDevice.filter((d) => d.kind !== "fcm");
    const fcmAudience = everyAudienceDevice.length - audienceDevices.length;
    const BROADCAST_TITLE = "Bench broadcast";
    const beforeBroadcast = await snapshot();
    const broadcastAt = Date.now();
    await call("POST", "/v1/broadcasts", admin, { title: BROADCAST_TITLE, body: "tonight", push: true });
    const broadcastReached = () => audienceDevices.filter((d) => got(d).some((p) => p.title === BROADCAST_TITLE)).length;
    let last = -1;
    let stalledSince = performance.now();
    await until(() => {
      const n = broadcastReached();
      if (n !== last) (last = n), (stalledSince = performance.now());
      return n === audienceDevices.length || performance.now() - stalledSince > 15_000;
    }, 300_000);
    const bcAt = audienceDevices.flatMap((d) => got(d).filter((p) => p.title === BROADCAST_TITLE).map((p) => p.at)).sort((a, b) => a - b);
    const broadcastPerS = bcAt.length ? bcAt.length / ((bcAt.at(-1)! - broadcastAt) / 1000) : 0;
    await sleep(1_000);
    const broadcastBilled = between(beforeBroadcast, await snapshot()).total;
    const topicSends = [...byDevice].filter(([device]) => device.startsWith("/topics/")).flatMap(([, list]) => list.filter((p) => p.title === BROADCAST_TITLE));
    benchLog(`broadcast FCM topic sends: ${topicSends.length}, reaching ${topicSends.map((p) => p.reached ?? 0).join("+") || 0} subscribed tokens (FCM devices in the audience: ${fcmAudience})`);
    const bcRefused = audienceDevices.flatMap((d) => got(d).filter((p) => p.title === BROADCAST_TITLE && p.status >= 300)).length;
    const perSecond = new Map<number, number>();
    for (const at of bcAt) perSecond.set(Math.floor((at - broadcastAt) / 1000), (perSecond.get(Math.floor((at - broadcastAt) / 1000)) ?? 0) + 1);
    benchLog(`broadcast deliveries by second after the request: ${[...perSecond].map(([s, n]) => `${s}:${n}`).join(" ")}; refused ${bcRefused}`);

    // ── The burst's result (it ran alongside 4–8) ──
    await Promise.all(background.splice(0));
    const burstLeft = BURST_SECONDS * 1000 + 30_000 + 15_000 - (performance.now() - burstStarted);
    const burstPushes = () => burstDevices.map((d) => got(d).filter((p) => p.title === BURST_TITLE));
    const counted = (pushes: ReceivedPush[]) => pushes.reduce((n, p) => n + 1 + Number(/… and (\d+) other/.exec(p.body ?? "")?.[1] ?? 0), 0);
    await until(() => burstPushes().every((pushes) => counted(pushes) >= BURST_LIKES), Math.max(1_000, burstLeft));
    const burstPerDevice = burstPushes().map((pushes) => pushes.length);
    const burstMax = Math.max(...burstPerDevice);

    // ── Open apps and dead devices, once everything has settled ──
    await settle();
    const openPushes = allOf(openUsers).reduce((n, d) => n + got(d).length, 0);
    const sendsAfterGone = deadDevices.reduce((n, d) => {
      const first = refused(d);
      return n + (first ? got(d).filter((p) => p.seq > first.seq).length : got(d).length);
    }, 0);
    const { rows: deadLeft } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notify_devices WHERE user_id = ANY($1::bigint[])`, [deadUsers]);

    printTable([
      { measure: "Web Push request (encryption + VAPID signature), CPU ms in workerd", value: cpuFresh, note: `${CPU_PUSHES} requests; workerd idle ${idleTicksPerS * 10} ms/s` },
      { measure: "Web Push request as sent (encryption; VAPID token reused 6 h), CPU ms", value: cpuReused, note: "webPushProvider.request" },
      { measure: `burst: ${BURST_LIKES} likes on one post over ${BURST_SECONDS} s, pushes per device`, value: burstMax, note: `per device ${burstPerDevice.join("/")}; likes counted in them ${burstPushes().map(counted).join("/")}` },
      { measure: "badge = unread total at send time, % of pushes", value: badgeExactPct, note: `${exact}/${compared} over ${BADGE_USERS} users × ${BADGE_STEPS} events (${atCap} at the cap, ${ICON_CAP}); ${missingPushes} missing${mismatches.length ? `; e.g. ${mismatches.slice(0, 3).join("; ")}` : ""}` },
      { measure: "pushes to users with an open badges socket", value: openPushes, note: `${OPEN_APP_USERS} users × (reply, mention, DM, inbox message, stream item), 3 devices each` },
      { measure: "sends to a device after its push service called it gone", value: sendsAfterGone, note: `${deadDevices.length} devices (410 / 404 UNREGISTERED / 410 Unregistered), two more events each; rows left ${deadLeft[0]!.n}` },
      { measure: "billed Redis commands per event (max of lone like and DM)", value: billedPerEvent, note: perEvent.map((e) => `${e.event.split(" (")[0]} ${sum(e.commands)}`).join(", ") },
      { measure: "device sends/s through the notify-send consumer", value: sendsPerS, note: `${tpAt.length}/${tpDevices.length} devices (${THROUGHPUT_USERS} users × 3: ${tpByService}) enqueued at once, first to last delivery; the last ${tpSeconds.toFixed(1)} s after the enqueue` },
      { measure: "  the same through the API (a DM each), device sends/s", value: apiAt.length / apiSeconds, note: `${apiAt.length} devices, last ${apiSeconds.toFixed(1)} s after the first write; writes took ${(load.elapsedMs / 1000).toFixed(1)} s at 8 clients (${load.errors} errors)` },
      { measure: "broadcast with push: devices reached per second", value: broadcastPerS, note: `${bcAt.length}/${audienceDevices.length} Web Push and APNs devices of ${audience.length} users (+ ${fcmAudience} FCM devices by ${topicSends.length} topic send), last ${bcAt.length ? ((bcAt.at(-1)! - broadcastAt) / 1000).toFixed(1) : "-"} s after the request; ${broadcastBilled} billed commands (${(broadcastBilled / audience.length).toFixed(1)} per user pushed)` },
    ]);
    const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
    console.log(
      `RESULT notify_sends_per_s=${sendsPerS.toFixed(1)} webpush_encrypt_cpu_ms=${cpuFresh.toFixed(2)} burst_notifications_per_50_likes=${burstMax} badge_exact_pct=${fmt(badgeExactPct)} open_app_pushes=${openPushes} dead_device_sends_after_410=${sendsAfterGone} notify_billed_commands_per_event=${billedPerEvent} broadcast_push_devices_per_s=${broadcastPerS.toFixed(1)}`,
    );
  } finally {
    for (const ws of sockets) ws.terminate();
    await Promise.allSettled(background);
    await close();
  }
}

type Counts = Record<string, number>;
const sum = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);
const plus = (a: Counts, b: Counts): Counts => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};
const minus = (a: Counts, b: Counts): Counts => {
  const out: Counts = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const v = (a[k] ?? 0) - (b[k] ?? 0);
    if (v !== 0) out[k] = v;
  }
  return out;
};
const describe = (c: Counts) => Object.entries(c).map(([k, v]) => `${k} ${v}`).join(", ");

/** What each of an event's commands is, given what the unread total's GET_BADGES runs (`badges`). */
const ROLE: Record<string, string> = {
  mget: "before queueing: the cached device list and preferences, one MGET",
  set: "the batch window's SET NX EX (opens it, or is refused when it is open)",
  evalsha: "COUNT_IN_WINDOW: a later event in an open window is counted",
  incr: "run by COUNT_IN_WINDOW",
  expire: "run by COUNT_IN_WINDOW (only when it had to open the window again)",
  get: "in the consumer: the cached device list",
  getdel: "in the consumer: the window's count, taken and cleared (\"… and N others\")",
  eval: "a script's first run on this database (EVALSHA refused, then EVAL): once per script, not per event",
};
function explain(commands: Counts, badges: Counts): string[] {
  const lines: string[] = [];
  const badgesPart: Counts = {};
  let rest = { ...commands };
  // The unread total is read by the sender whenever it sends: take GET_BADGES' commands out first.
  if (Object.entries(badges).every(([k, v]) => (commands[k] ?? 0) >= v) && (commands.getdel || commands.get)) {
    Object.assign(badgesPart, badges);
    rest = minus(commands, badges);
  }
  const order = Object.keys(ROLE);
  const rank = (command: string) => (order.includes(command) ? order.indexOf(command) : order.length);
  for (const [command, n] of Object.entries(rest).sort(([a], [b]) => rank(a) - rank(b))) lines.push(`${command} ×${n}: ${ROLE[command] ?? "(unexpected)"}`);
  if (sum(badgesPart) > 0) lines.push(`GET_BADGES ×${sum(badgesPart)} (${describe(badgesPart)}): the unread total at send time, the script GET /v1/me/badges runs`);
  return lines;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
