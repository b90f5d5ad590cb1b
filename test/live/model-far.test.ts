/**
 * A live room's presence and fan status far from the primary region (test/live/model-run.ts; the
 * workers-far project): the Worker's databases are read regions R = 30 ms from their primaries and
 * the tests' calls carry the consistency token as the typed client does (test/support/api.ts).
 */
import { describe, it } from "vitest";
import { runSeed } from "./model-run";

describe("a live room far from the primary region (model-based)", () => {
  for (const seed of [1]) {
    it(`seed ${seed}: every join's fan status and the room's counts equal the model after every step`, async () => {
      await runSeed(seed);
    }, 120_000);
  }
});
