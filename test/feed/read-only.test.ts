/** Read-only feed pages at N = 1 (the shared tests: ./read-only.ts; at N = 3: read-only-databases.test.ts). */
import { describe } from "vitest";
import { readOnlyPageTests } from "./read-only";

describe("feed pages with read regions, N = 1", readOnlyPageTests);
