/** The home timeline model (test/feed/model-run.ts says what it checks) over three Redis databases. */
import { describe, it } from "vitest";
import { databasesEnv, stackDatabases } from "../support/databases";
import { runSeed } from "./model-run";

describe.skipIf(stackDatabases().length < 3)("home timeline model over three Redis databases", () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: the same checks with users, posts and their keys spread over three databases`, async () => {
      await runSeed(seed, 150, databasesEnv(stackDatabases().slice(0, 3)));
    }, 60_000);
  }
});

describe.skipIf(stackDatabases().length < 3)("home timeline model over three Redis databases, read regions on", () => {
  for (const seed of [5, 6]) {
    it(`seed ${seed}: the same checks with every page read-only`, async () => {
      await runSeed(seed, 150, { ...databasesEnv(stackDatabases().slice(0, 3)), REDIS_READ_REGIONS: "on" });
    }, 60_000);
  }
});

describe.skipIf(stackDatabases().length < 3)("home timeline model over three Redis databases, edge copies on", () => {
  // Other databases' posts come from this isolate's copies (post entries, and counts through the
  // counters' edge copy, whose reads this model's likes and favourites drop): every item still exact.
  for (const seed of [7, 8]) {
    it(`seed ${seed}: the same checks with pages served from the isolate's copies`, async () => {
      await runSeed(seed, 150, { ...databasesEnv(stackDatabases().slice(0, 3)), COUNTER_EDGE_CACHE_MS: "1000" });
    }, 60_000);
  }
});
