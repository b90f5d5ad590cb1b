/**
 * The buffered counters at N = 3, model-based (test/counters/model-run.ts): the Worker's own
 * bindings name the test stack's three Redis databases (the workers-n3 project), entities spread
 * over all three. Also with read regions on: reads of entities not cached answer read-only and warm
 * after answering.
 */
import { describeAtN3 } from "../support/databases";
import { describeModelRuns } from "./model-run";

describeModelRuns(describeAtN3, "counters over three Redis databases", { databases: 3, readRegionSeeds: [7, 8], timeoutMs: 90_000 });
