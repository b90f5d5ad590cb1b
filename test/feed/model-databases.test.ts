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
