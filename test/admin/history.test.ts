import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readStatusHistory } from "../../src/admin/history";
import { CRON_SCHEDULES } from "../../src/cron";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { HISTORY_POINTS, HISTORY_STEP_MS, HISTORY_TTL_SECONDS, opsKeys } from "../../src/lib/ops/keys";
import { recordRun } from "../../src/lib/ops/record";
import { api, newId, show } from "../support/api";
import { redis } from "../feed/support";

/**
 * The status history (`ops:history`): a point a minute for 24 hours, written by the flush cron
 * with its run record, read by `GET /v1/admin/status/history`. Other files' cron runs write the
 * current minute's point too, so the synthetic points here mark themselves (`deadLetters: -1`,
 * a count no sample has) and the checks leave the newest minutes to whoever wrote them last.
 */

const admin = { userId: "1", role: "admin" as const };
const minuteOf = (ms: number) => Math.floor(ms / HISTORY_STEP_MS) * HISTORY_STEP_MS;
const synthetic = (i: number) => ({ flushLagMs: i, pendingFields: i * 2, unappliedBatches: 0, fanoutP99Ms: null, deadLetters: -1 });

describe("the status history", () => {
  it("keeps at most a point a minute for 24 hours, oldest first, with a TTL", async () => {
    const now = minuteOf(Date.now());
    // 1,500 minutes of points, newest last; then the newest minute twice more (a cron run fired twice).
    for (let i = 1_499; i >= 0; i--) await recordRun(redis, {}, { at: now - i * HISTORY_STEP_MS + 1_000, values: synthetic(i) });
    await recordRun(redis, {}, { at: now + 30_000, values: synthetic(7) });
    expect(await redis.zcount(opsKeys.history(), now, now), "one point per minute").toBe(1);
    expect(await redis.zcard(opsKeys.history())).toBe(HISTORY_POINTS);
    expect(await redis.zcount(opsKeys.history(), "-inf", now - HISTORY_POINTS * HISTORY_STEP_MS), "nothing older than 24 h").toBe(0);
    const ttl = await redis.ttl(opsKeys.history());
    expect(ttl).toBeGreaterThan(HISTORY_TTL_SECONDS - 60);
    expect(ttl).toBeLessThanOrEqual(HISTORY_TTL_SECONDS);

    const { points } = await readStatusHistory(redis, HISTORY_POINTS, now);
    expect(points).toHaveLength(HISTORY_POINTS);
    const times = points.map((p) => Date.parse(p.at));
    expect(times, "oldest first, a minute apart").toEqual(times.map((_, i) => now - (HISTORY_POINTS - 1 - i) * HISTORY_STEP_MS));
    // The oldest kept is the point written 1,439 minutes ago, as written (the newest minutes may be a real cron's).
    expect(points[0]).toEqual({ at: new Date(now - 1_439 * HISTORY_STEP_MS).toISOString(), ...synthetic(1_439) });
    expect(points.slice(0, -5).every((p, i) => p.deadLetters === -1 && p.flushLagMs === 1_439 - i)).toBe(true);

    const hour = await readStatusHistory(redis, 60, now);
    expect(hour.points.map((p) => p.at)).toEqual(points.slice(-60).map((p) => p.at));
  });

  it("gets a point from each flush cron run, with the figures the status shows", async () => {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: CRON_SCHEDULES.flush }), env as unknown as Env, ctx);
    await waitOnExecutionContext(ctx);
    const status = await api("GET", "/v1/admin/status", { as: admin });
    expect(status.status, show(status)).toBe(200);
    const run = status.body.cron.flush.lastRun;
    expect(run.tasks.map((t: { name: string }) => t.name).at(-1), "sampled after the other tasks").toBe("ops.status-history");
    const minute = minuteOf(Date.parse(run.startedAt));
    const { points } = await readStatusHistory(redis, HISTORY_POINTS, minute);
    const point = points.find((p) => p.at === new Date(minute).toISOString());
    expect(point, "the run's minute has a point").toBeDefined();
    // A real sample: counts (never the synthetic -1), a lag, and the flush just ran.
    expect(point).toMatchObject({ flushLagMs: expect.any(Number), pendingFields: expect.any(Number), unappliedBatches: expect.any(Number) });
    expect(point!.deadLetters).toBeGreaterThanOrEqual(0);
  });
});

describe("GET /v1/admin/status/history", () => {
  it("answers the points oldest first to an admin, bounded by ?minutes=", async () => {
    await recordRun(redis, {}, { at: Date.now(), values: synthetic(3) });
    const res = await api("GET", "/v1/admin/status/history?minutes=5", { as: admin });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ minutes: 5, stepMs: HISTORY_STEP_MS });
    expect(res.body.points.length).toBeGreaterThanOrEqual(1);
    expect(res.body.points.length).toBeLessThanOrEqual(5);
    const times = res.body.points.map((p: { at: string }) => Date.parse(p.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Object.keys(res.body.points.at(-1)).sort()).toEqual(["at", "deadLetters", "fanoutP99Ms", "flushLagMs", "pendingFields", "unappliedBatches"]);
  });

  it("refuses a span it does not keep, naming the field", async () => {
    for (const minutes of ["0", "1441", "x"]) {
      const res = await api("GET", `/v1/admin/status/history?minutes=${minutes}`, { as: admin });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(["minutes"]);
    }
  });

  it("is for admins only", async () => {
    expect((await api("GET", "/v1/admin/status/history")).status).toBe(401);
    expect((await api("GET", "/v1/admin/status/history", { as: { userId: newId(), role: "user" } })).status).toBe(403);
  });
});
