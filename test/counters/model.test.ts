/** The buffered counters at N = 1, model-based (test/counters/model-run.ts). */
import { describe, it } from "vitest";
import { runSeed } from "./model-run";
import { servicesFor } from "./support";

describe("counters under random interleavings (model-based)", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: every read equals the model after every step, and Postgres does after a full flush`, async () => {
      // One Postgres pool per test: a pool's sockets belong to the test that opened them.
      const { services, close } = servicesFor();
      try {
        await runSeed(seed, 60, services);
      } finally {
        await close();
      }
    }, 60_000);
  }
});

describe("counters under random interleavings, reads answered by a read region (model-based)", () => {
  for (const seed of [7, 8, 9]) {
    it(`seed ${seed}: reads of entities not cached answer read-only and warm after answering; every read equals the model`, async () => {
      const { services, close } = servicesFor({ REDIS_READ_REGIONS: "on" });
      try {
        await runSeed(seed, 60, services);
      } finally {
        await close();
      }
    }, 60_000);
  }
});
