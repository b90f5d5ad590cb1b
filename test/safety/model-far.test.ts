/**
 * The safety model (test/safety/model-run.ts) far from the primary region (the workers-far
 * project): every read answered by a read region R = 30 ms away, the model one app carrying its
 * consistency token (test/support/api.ts), so every read must show the writes before it. One
 * short seed: what it must reach is checked at N = 1 and N = 3.
 */
import { describe } from "vitest";
import { safetyModelTests } from "./model-suite";

describe("safety model far from the primary region", () => safetyModelTests([4], 20, false));
