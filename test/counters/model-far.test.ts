/**
 * The buffered counters far from the primary region (the workers-far project): the model of
 * test/counters/model-run.ts over three databases whose reads are answered by replicas R = 30 ms
 * from their primaries (a cached read is a plain MGET there), the model one app carrying its
 * consistency token. Every read must still equal the model after every step.
 */
import { expect, it } from "vitest";
import { asOneApp } from "../support/far-region";
import { describeAtN3 } from "../support/databases";
import { runSeed } from "./model-run";
import { servicesFor } from "./support";

describeAtN3("counters far from the primary region, reads from read regions (model-based)", () => {
  for (const seed of [1]) {
    it(`seed ${seed}: every read equals the model after every step, and Postgres does after a full flush`, async () => {
      const { services, close } = servicesFor();
      try {
        expect(services.env.REDIS_READ_REGIONS).toBe("on");
        await asOneApp(() => runSeed(seed, 30, services));
      } finally {
        await close();
      }
    }, 120_000);
  }
});
