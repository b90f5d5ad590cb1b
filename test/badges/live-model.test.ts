/**
 * Model test of the live badge sockets at N = 1: after random events of every kind, every device
 * holds what `GET /v1/me/badges` answers (test/badges/live-model-run.ts). At N = 3:
 * live-model-databases.test.ts.
 */
import { afterEach, describe, it } from "vitest";
import { newId } from "../support/api";
import { closeLive } from "./live-helpers";
import { ROUNDS, runModel, SEED, USERS } from "./live-model-run";

afterEach(closeLive);

describe("live badges: model", () => {
  it(`every device ends with what GET /v1/me/badges answers, after random events of every kind, big accounts' posts included (seed ${SEED})`, async () => {
    const users = Array.from({ length: USERS }, () => newId());
    // The first author stays normal (fanned out); the other two become big (pulled, announced to
    // every hub shard): their posts reach the sockets only through the hubs' big-follow index.
    const authors = [newId(), newId(), newId()];
    await runModel({ users, authors, bigs: authors.slice(1), rounds: ROUNDS });
  });
});
