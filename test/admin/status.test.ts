import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { opsKeys } from "../../src/lib/ops/keys";
import { readStatus } from "../../src/admin/status";
import { incrementCounters } from "../../src/counters/counters";
import { flushAll, flushOnce } from "../../src/counters/flush";
import { counterKeys } from "../../src/counters/keys";
import { CRON_SCHEDULES } from "../../src/cron";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import type { Redis } from "../../src/lib/redis";
import { openLive, type LiveDevice } from "../badges/live-helpers";
import { eventually, fileServices, follow, post, redis } from "../feed/support";
import { useChaos } from "../support/stack";
import { api, newId, show } from "../support/api";
import { countBilledCommands } from "../support/billed";

const services = fileServices();
const admin = { userId: "1", role: "admin" as const };

async function status() {
  const res = await api("GET", "/v1/admin/status", { as: admin });
  expect(res.status, show(res)).toBe(200);
  return res.body as Awaited<ReturnType<typeof readStatus>>;
}

describe("admin routes: roles", () => {
  const routes: [string, string, unknown?][] = [
    ["GET", "/v1/admin/status"],
    ["GET", "/v1/admin/status/history"],
    ["GET", "/v1/admin/dead-letters"],
    ["POST", "/v1/admin/dead-letters/replay", { ids: ["1"] }],
    ["DELETE", "/v1/admin/dead-letters/1"],
  ];
  it.each(routes)("%s %s: no token → 401, a user or service token → 403", async (method, path, body) => {
    const none = await api(method, path, { body });
    expect(none.status, show(none)).toBe(401);
    expect(none.body.error.code).toBe("unauthorized");
    for (const role of ["user", "service"] as const) {
      const res = await api(method, path, { as: { userId: newId(), role }, body });
      expect(res.status, show(res)).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
  });

  it("names the bad field on bad input", async () => {
    const bad = await api("GET", "/v1/admin/dead-letters?queue=nope&limit=500", { as: admin });
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(["limit", "queue"]);
    const replay = await api("POST", "/v1/admin/dead-letters/replay", { as: admin, body: { ids: ["x"] } });
    expect(replay.status, show(replay)).toBe(400);
    expect(replay.body.error.message).toContain("ids");
    const missing = await api("DELETE", `/v1/admin/dead-letters/${newId()}`, { as: admin });
    expect(missing.status, show(missing)).toBe(404);
  });
});

describe("GET /v1/admin/status", () => {
  it("answers every section, with one Redis database listed and both dependencies up", async () => {
    const s = await status();
    expect(s.dependencies.redis).toEqual([expect.objectContaining({ name: "default", ok: true, latencyMs: expect.any(Number) })]);
    expect(s.dependencies.postgres).toMatchObject({ name: "postgres", ok: true });
    expect(Object.keys(s).sort()).toEqual(["at", "badgesPush", "counters", "cron", "dependencies", "feed", "liveRooms", "notify", "reports"]);
    expect(s.reports).toEqual({ open: expect.any(Number), oldestOpenAt: s.reports.open ? expect.any(String) : null, oldestOpenAgeMs: expect.any(Number) });
    expect(Object.keys(s.cron).sort()).toEqual(Object.keys(CRON_SCHEDULES).sort());
    expect(s.feed.deadLetters).toEqual({ "feed-fanout": expect.any(Number), "feed-follow-sync": expect.any(Number), "notify-send": expect.any(Number) });
  });

  it("costs one script of at most 8 billed commands, 1 + one per push broadcast shown, and a PING (≤ 25), reading no per-user key", async () => {
    const { redis: counted, billed, byCommand } = countBilledCommands(services.redis);
    const pinged: string[] = [];
    const spy = Object.assign(Object.create(counted) as Redis, {
      createScript: (counted as Redis).createScript.bind(counted),
      ping: async () => {
        pinged.push("ping");
        return services.redis.ping();
      },
    });
    // A batch waiting, so the HGET of its cut time runs too (the most the script runs).
    await incrementCounters(services, [{ entity: "post", id: newId(), field: "views", delta: 1 }]);
    await flushOnce(services, { stopAfter: "cut" });
    await readStatus({ ...services, redisAt: () => spy });
    const total = billed.reduce((a, b) => a + b, 0) + pinged.length;
    expect(billed.length).toBe(1);
    expect(total).toBeLessThanOrEqual(25);
    console.log(`status billed commands: ${total} (script ${billed[0]} + ping ${pinged.length}) ${JSON.stringify(byCommand)}`);
    expect(Object.keys(byCommand).sort()).toEqual(["get", "hgetall", "hlen", "xrevrange", "zcard", "zrange", "hget", "zrevrange"].sort().filter((c) => c in byCommand));
    // ops:runs' HGETALL, then one per push broadcast shown (other files' broadcasts may be recorded).
    const broadcastsShown = byCommand.hgetall! - 1;
    expect(broadcastsShown).toBeLessThanOrEqual(5);
    expect(byCommand.zrevrange).toBe(1);
    expect(total).toBe(10 + broadcastsShown);
    await flushAll(services);
  });

  it("a flush held back makes the lag grow, and a flush brings it back", async () => {
    // Other test files flush the same Redis: if one applies our batch meanwhile, cut another.
    for (let attempt = 0; ; attempt++) {
      await incrementCounters(services, [{ entity: "post", id: newId(), field: "views", delta: 1 }]);
      const cut = await flushOnce(services, { stopAfter: "cut" }); // cut, then held back: nothing applied
      const first = await status();
      await new Promise((r) => setTimeout(r, 1_500));
      const second = await status();
      const stillWaiting = cut.cut !== null && (await redis.zscore(counterKeys.unappliedBatches(), cut.cut)) !== null;
      if (!stillWaiting && attempt < 3) continue;
      expect(first.counters.unappliedBatches).toBeGreaterThanOrEqual(1);
      expect(first.counters.oldestUnappliedBatch).not.toBeNull();
      expect(second.counters.flushLagMs!).toBeGreaterThanOrEqual(first.counters.flushLagMs! + 1_000);
      expect(second.counters.flushLagMs!).toBeGreaterThanOrEqual(1_500);
      break;
    }
    await flushAll(services);
    const after = await status();
    // Another file may have cut a fresh batch since: then it is seconds old, never ours.
    expect(after.counters.flushLagMs!).toBeLessThan(1_500);
  });

  it("shows the cron run and the flush it did, recorded in one HSET by the run", async () => {
    await incrementCounters(services, [{ entity: "post", id: newId(), field: "views", delta: 2 }]);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: CRON_SCHEDULES.flush }), env as unknown as Env, ctx);
    await waitOnExecutionContext(ctx);
    const s = await status();
    const run = s.cron.flush!.lastRun!;
    expect(run).toMatchObject({ outcome: expect.stringMatching(/ok|error/), durationMs: expect.any(Number) });
    expect(run.tasks.map((t) => t.name)).toContain("counters.flush");
    expect(Date.now() - Date.parse(run.startedAt)).toBeLessThan(60_000);
    expect(s.counters.lastFlush).toMatchObject({ outcome: "ok", statements: expect.any(Number), deltas: expect.any(Number) });
    expect(s.counters.lastFlush!.ageMs).toBeLessThan(60_000);
    expect(s.liveRooms.asOf).not.toBeNull();
  });

  it("records a fan-out when its last page is delivered: publish → last follower's timeline", async () => {
    const [author, reader] = [newId(), newId()];
    await follow(reader, author);
    const before = await redis.xlen(opsKeys.fanouts());
    const id = await post({ userId: author });
    const entries = await eventually(
      () => redis.xrevrange(opsKeys.fanouts(), "+", "-", 100),
      (e) => Object.values(e as Record<string, { post: unknown }>).some((x) => String(x.post) === id),
    );
    expect(Object.keys(entries).length).toBeLessThanOrEqual(100);
    expect(await redis.xlen(opsKeys.fanouts())).toBeLessThanOrEqual(Math.max(100, before + 1));
    const s = await status();
    expect(s.feed.fanouts.samples).toBeGreaterThanOrEqual(1);
    expect(s.feed.fanouts.p50Ms).toEqual(expect.any(Number));
    expect(s.feed.fanouts.p99Ms!).toBeGreaterThanOrEqual(s.feed.fanouts.p50Ms!);
    expect(s.feed.fanouts.maxMs!).toBeGreaterThanOrEqual(s.feed.fanouts.p99Ms!);
  });
});

describe("GET /v1/admin/status: known states", () => {
  const chaos = useChaos();

  it("says a database is down (ok: false, its figures null) and still answers", async () => {
    await chaos.current.setRedisDown(true);
    const res = await api("GET", "/v1/admin/status", { as: admin, env: chaos.current.bindings });
    await chaos.current.setRedisDown(false);
    expect(res.status, show(res)).toBe(200);
    expect(res.body.dependencies.redis).toEqual([expect.objectContaining({ name: "default", ok: false, error: expect.any(String) })]);
    expect(res.body.dependencies.postgres.ok).toBe(true);
    expect(res.body.counters.pendingFields).toBeNull();
    expect(res.body.counters.flushLagMs).toBeNull();
    expect(res.body.feed.deadLetters).toEqual(expect.objectContaining({ "feed-fanout": expect.any(Number) }));
  });

  it("shows a running reconcile pass: its position and what it corrected so far", async () => {
    const cursor = { entity: "user", after: "12345", startedAt: "2026-11-25T03:00:00.000Z", corrected: 7 };
    await redis.set(counterKeys.reconcileCursor(), JSON.stringify(cursor), { ex: 60 });
    try {
      const s = await status();
      expect(s.counters.reconcile).toMatchObject({ running: true, position: { entity: "user", after: "12345" }, startedAt: cursor.startedAt, correctedSoFar: 7 });
    } finally {
      await redis.del(counterKeys.reconcileCursor());
    }
  });
});

describe("GET /v1/admin/status: live sockets and rooms", () => {
  const open: LiveDevice[] = [];
  afterEach(() => {
    for (const d of open.splice(0)) if (!d.closed) d.ws.close();
  });

  it("sockets open match the sockets a test opened, then closed", async () => {
    const base = (await status()).badgesPush;
    expect(base.hubsAnswered).toBe(base.hubs);
    const users = [newId(), newId()];
    open.push(await openLive(users[0]!), await openLive(users[0]!), await openLive(users[1]!));
    const withSockets = await eventually(status, (s) => s.badgesPush.socketsOpen === base.socketsOpen + 3);
    expect(withSockets.badgesPush.usersOnline).toBe(base.usersOnline + 2);
    for (const d of open.splice(0)) d.ws.close();
    await eventually(status, (s) => s.badgesPush.socketsOpen === base.socketsOpen);
  });

  it("counts rooms started in the last 6 h, and the cron lists the largest audiences", async () => {
    const room = `ops-${newId()}`;
    const host = newId();
    const start = await api("POST", `/v1/live/${room}/sessions`, { as: { userId: host }, body: { hostId: host } });
    expect(start.status, show(start)).toBe(201);
    const viewers = [newId(), newId()];
    for (const v of viewers) {
      const join = await api("POST", `/v1/live/${room}/presence`, { as: { userId: v } });
      expect(join.status, show(join)).toBeLessThan(300);
    }
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: CRON_SCHEDULES.flush }), env as unknown as Env, ctx);
    await waitOnExecutionContext(ctx);
    const s = await status();
    expect(s.liveRooms.startedLast6h!).toBeGreaterThanOrEqual(1);
    expect(s.liveRooms.largest.length).toBeLessThanOrEqual(10);
    // Rooms of other test files share the Postgres rows, not this file's objects: ours is the live one.
    expect(s.liveRooms.largest.find((r) => r.roomId === room)).toMatchObject({ roomId: room, viewers: 2 });
  });
});
