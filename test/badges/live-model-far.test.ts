/**
 * Model test of the live badge sockets far from the primary region (test/badges/live-model-run.ts;
 * the workers-far project): the Worker, its hubs and queue consumers over read regions R = 30 ms
 * from their primaries, the tests' calls carrying the consistency token as the typed client does.
 * After random events of every kind, every device holds what `GET /v1/me/badges` answers.
 */
import { afterEach, describe, it } from "vitest";
import { newIdOn, workerDatabases } from "../support/databases";
import { closeLive } from "./live-helpers";
import { runModel, SEED } from "./live-model-run";

afterEach(closeLive);

describe("live badges far from the primary region: model", () => {
  it(`every device ends with what GET /v1/me/badges answers, big accounts' posts included (seed ${SEED})`, async () => {
    const n = workerDatabases();
    const users = Array.from({ length: 3 }, (_, i) => newIdOn(i, n));
    const authors = [newIdOn(0, n), newIdOn(1, n), newIdOn(2, n)];
    await runModel({ users, authors, bigs: authors.slice(1), rounds: 2 });
  }, 120_000);
});
