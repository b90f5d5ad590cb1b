/**
 * The notifications model (test/notify/model-run.ts says what it checks): random users, devices,
 * preferences, quiet hours and events of every kind through the Worker's API; after each delivery
 * round, what the local push services received equals the model, field by field.
 * NOTIFY_MODEL_SEED=<n> replays one seed.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { closeLive } from "../badges/live-helpers";
import { DEFAULT_SEEDS, runModel } from "./model-run";

afterEach(closeLive);

/** `NOTIFY_MODEL_SEED=<n> npx vitest run --project workers test/notify/model.test.ts` (a binding: vitest.config.ts). */
const replay = (env as unknown as { NOTIFY_MODEL_SEED?: string }).NOTIFY_MODEL_SEED;
const seeds = replay ? [Number(replay)] : DEFAULT_SEEDS;

describe("push notifications: model", () => {
  for (const seed of seeds) {
    it(`seed ${seed}: every device gets what the model says — collapsed, badge at send time, nothing to an open app or against a preference, held through quiet hours, dead devices gone after their first refusal`, async () => {
      console.log(`notify model: seed ${seed} (replay with NOTIFY_MODEL_SEED=${seed})`);
      const stats = await runModel(seed);
      console.log(`notify model: seed ${seed}: ${JSON.stringify(stats)}`);
      // The default seeds reach every path the model claims to check (a replayed one may not).
      if (replay) return;
      expect(stats.pushes).toBeGreaterThan(20);
      expect(stats.collapsed).toBeGreaterThan(0);
      expect(stats.followPushes).toBeGreaterThan(0);
      expect(stats.authorPushes).toBeGreaterThan(0);
      expect(stats.held).toBeGreaterThan(0);
      expect(stats.urgentThroughQuiet).toBeGreaterThan(0);
      expect(stats.badgeOnly).toBeGreaterThan(0);
      expect(stats.toSocketUsers).toBeGreaterThan(0);
      expect(stats.refusedByPreference).toBeGreaterThan(0);
      expect(stats.gone).toEqual({ webpush: expect.any(Number), fcm: expect.any(Number), apns: expect.any(Number) });
      expect(Math.min(stats.gone.webpush, stats.gone.fcm, stats.gone.apns)).toBeGreaterThan(0);
      expect(stats.retried).toBeGreaterThan(0);
    });
  }
});
