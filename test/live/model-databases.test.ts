/**
 * A live room's presence and fan status at N = 3, model-based (test/live/model-run.ts): the Worker,
 * its room objects and the badges subscriber that writes the follow caches are bound to the test
 * stack's three Redis databases (the workers-n3 project), viewers spread over all three.
 */
import { it } from "vitest";
import { describeAtN3 } from "../support/databases";
import { runSeed } from "./model-run";

describeAtN3("a live room over three Redis databases under random interleavings (model-based)", () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: every join's fan status and the room's counts equal the model after every step`, async () => {
      await runSeed(seed);
    }, 60_000);
  }
});
