/** A live room's presence and fan status at N = 1, model-based (test/live/model-run.ts). */
import { describe, it } from "vitest";
import { runSeed } from "./model-run";

describe("a live room under random interleavings (model-based)", () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: every join's fan status and the room's counts equal the model after every step`, async () => {
      await runSeed(seed);
    }, 60_000);
  }
});
