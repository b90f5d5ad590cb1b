/** The home timeline model (test/feed/model-run.ts says what it checks) at one Redis database. */
import { describe, it } from "vitest";
import { runSeed } from "./model-run";

describe("home timeline model", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
    it(`seed ${seed}: every read shows no deleted post, no unfollowed account, no duplicate and every item as the model draws it; drained, every timeline equals the model; the feed badge is the posts above the marker on the merged page`, async () => {
      await runSeed(seed, 150);
    });
  }
});
