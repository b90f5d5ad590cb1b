/**
 * The safety model (test/safety/model-run.ts says what it checks) at the Worker's one Redis
 * database. SAFETY_MODEL_SEED=<n> replays one seed (a binding: vitest.config.ts).
 */
import { describe } from "vitest";
import { safetyModelTests } from "./model-suite";

describe("safety model at one database", () => safetyModelTests([1, 2], 40));
