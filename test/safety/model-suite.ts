import { expect, it } from "vitest";
import { runSafetyModel, type SafetyModelStats } from "./model-run";

/**
 * One test per seed; with `coverage`, one more that the seeds together reached every path the
 * model claims to check (a replayed seed alone may not).
 */
export function safetyModelTests(seeds: number[], steps: number, coverage = true) {
  const total: SafetyModelStats = {};
  for (const seed of seeds) {
    it(`seed ${seed}: after every step, every page, badge, list, profile and refusal is what the model of blocks, mutes and suspensions says`, async () => {
      const stats = await runSafetyModel(seed, steps);
      console.log(`safety model: seed ${seed}: ${JSON.stringify(stats)}`);
      for (const [k, v] of Object.entries(stats)) total[k] = (total[k] ?? 0) + v;
    }, 240_000);
  }
  if (!coverage) return;
  it("the seeds together reached blocks, mutes, refusals, suppressions, suspensions, ranked walks and a nonzero feed badge", () => {
    const of = (...keys: string[]) => keys.reduce((s, k) => s + (total[k] ?? 0), 0);
    const seen = JSON.stringify(total);
    expect(of("blocks"), `blocks: ${seen}`).toBeGreaterThan(0);
    expect(of("mutes"), `mutes: ${seen}`).toBeGreaterThan(0);
    expect(of("refused_follow", "refused_like", "refused_dm"), `refusals across a block: ${seen}`).toBeGreaterThan(0);
    expect(of("suppressed_dm", "suppressed_notification_blocked", "suppressed_notification_muted", "suppressed_follow_notification"), `suppressed DMs and notifications: ${seen}`).toBeGreaterThan(0);
    expect(of("suspensions"), `suspensions: ${seen}`).toBeGreaterThan(0);
    expect(of("refused_suspended"), `a suspended user's requests refused: ${seen}`).toBeGreaterThan(0);
    expect(of("feed_badge_nonzero"), `a nonzero feed badge: ${seen}`).toBeGreaterThan(0);
    expect(of("walk_ranked"), `ranked walks: ${seen}`).toBeGreaterThan(0);
  });
}
