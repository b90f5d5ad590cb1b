/** Read-only feed pages at N = 3, both rounds (the shared tests: ./read-only.ts). */
import { describeAtN3 } from "../support/databases";
import { readOnlyPageTests } from "./read-only";

describeAtN3("feed pages with read regions, N = 3", readOnlyPageTests);
