/**
 * The buffered counters at N = 1, model-based (test/counters/model-run.ts); also with read regions
 * on: reads of entities not cached answer read-only and warm after answering.
 */
import { describe } from "vitest";
import { describeModelRuns } from "./model-run";

describeModelRuns(describe, "counters", { databases: 1, readRegionSeeds: [7, 8, 9], timeoutMs: 60_000 });
