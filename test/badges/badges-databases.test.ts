/**
 * `GET /v1/me/badges` at N = 3: every kind, users on each of the test stack's three Redis databases,
 * in the Worker bound to all three (the workers-n3 project; test/badges/answers.ts).
 */
import { describe } from "vitest";
import { newIdOn, workerDatabases } from "../support/databases";
import { badgesAnswers } from "./answers";

describe.skipIf(workerDatabases() < 3)("GET /v1/me/badges over three Redis databases: every kind, users on each database", () => {
  badgesAnswers((i) => newIdOn(i, 3));
});
