/**
 * The home timeline model (test/feed/model-run.ts says what it checks) at one Redis database; three
 * seeds again with read regions on (every page read-only, what it finds to write sent on its own).
 */
import { describe, it } from "vitest";
import { runSeed } from "./model-run";

describe("home timeline model", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
    it(`seed ${seed}: every read shows no deleted post, no unfollowed account, no duplicate and every item as the model draws it; drained, every timeline equals the model; the feed badge is the posts above the marker on the merged page`, async () => {
      await runSeed(seed, 150);
    });
  }
});

describe("home timeline model with read regions on", () => {
  for (const seed of [11, 12, 13]) {
    it(`seed ${seed}: the same checks when pages are read-only and the marker is moved by a write of its own`, async () => {
      await runSeed(seed, 150, { REDIS_READ_REGIONS: "on" });
    });
  }
});
