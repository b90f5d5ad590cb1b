/**
 * Model test of the live badge sockets at N = 3 (test/badges/live-model-run.ts): a Worker bound to
 * the test stack's three Redis databases (the workers-n3 project, vitest.config.ts), so its
 * requests, queue consumers and hubs all run at N = 3. The users are spread over the three
 * databases, each hub reads a user's badges from their database, and a big account's post reaches
 * the sockets through its announcement, delivered by that Worker's queue consumer.
 */
import { afterEach, it } from "vitest";
import { newIdOn, describeAtN3 } from "../support/databases";
import { closeLive } from "./live-helpers";
import { ROUNDS, runModel, SEED, USERS } from "./live-model-run";

afterEach(closeLive);

describeAtN3("live badges over three Redis databases: model", () => {
  it(`every device ends with what GET /v1/me/badges answers, users on each database, big accounts' posts included (seed ${SEED})`, async () => {
    const users = Array.from({ length: USERS }, (_, i) => newIdOn(i, 3));
    const authors = [newIdOn(0, 3), newIdOn(1, 3), newIdOn(2, 3)];
    await runModel({ users, authors, bigs: authors.slice(1), rounds: ROUNDS });
  });
});
