/** The safety model (test/safety/model-run.ts) over three Redis databases: users spread over the three. */
import { describe } from "vitest";
import { safetyModelTests } from "./model-suite";

describe("safety model over three databases", () => safetyModelTests([5, 6], 30));
