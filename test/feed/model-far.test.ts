/**
 * The home timeline model (test/feed/model-run.ts says what it checks) far from the primary region
 * (the workers-far project): three databases whose reads are answered by replicas R = 30 ms from
 * their primaries, the model one app carrying its consistency token.
 */
import { describe, it } from "vitest";
import { asOneApp } from "../support/far-region";
import { runSeed } from "./model-run";

describe("home timeline model far from the primary region", () => {
  for (const seed of [1]) {
    it(`seed ${seed}: the same checks, every read made after the writes it must show`, async () => {
      await asOneApp(() => runSeed(seed, 40));
    }, 120_000);
  }
});
