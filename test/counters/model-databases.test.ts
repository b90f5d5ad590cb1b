/**
 * The buffered counters at N = 3, model-based (test/counters/model-run.ts): the Worker's own
 * bindings name the test stack's three Redis databases (the workers-n3 project), entities spread
 * over all three.
 */
import { expect, it } from "vitest";
import { describeAtN3 } from "../support/databases";
import { runSeed } from "./model-run";
import { servicesFor } from "./support";

describeAtN3("counters over three Redis databases under random interleavings (model-based)", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: every read equals the model after every step, and Postgres does after a full flush`, async () => {
      const { services, close } = servicesFor();
      try {
        expect(services.databases).toBe(3);
        await runSeed(seed, 60, services);
      } finally {
        await close();
      }
    }, 90_000);
  }
});

describeAtN3("counters over three Redis databases, reads answered by read regions (model-based)", () => {
  for (const seed of [7, 8]) {
    it(`seed ${seed}: reads of entities not cached answer read-only and warm after answering; every read equals the model`, async () => {
      const { services, close } = servicesFor({ REDIS_READ_REGIONS: "on" });
      try {
        expect(services.databases).toBe(3);
        await runSeed(seed, 60, services);
      } finally {
        await close();
      }
    }, 90_000);
  }
});
