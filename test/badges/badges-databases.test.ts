/**
 * `GET /v1/me/badges` at N = 3: every kind, users on each of the test stack's three Redis databases,
 * in the Worker bound to all three (the workers-n3 project; test/badges/answers.ts).
 */
import { describeAtN3, newIdOn } from "../support/databases";
import { badgesAnswers } from "./answers";

describeAtN3("GET /v1/me/badges over three Redis databases: every kind, users on each database", () => {
  badgesAnswers((i) => newIdOn(i, 3));
});
