/** Badge reads near the user at N = 1 (test/badges/read-only-run.ts). */
import { describe } from "vitest";
import { newId } from "../support/api";
import { readOnlyBadges } from "./read-only-run";

describe("badge reads a read region answers (N = 1)", () => {
  readOnlyBadges(() => newId());
});
