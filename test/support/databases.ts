/**
 * The test stack's several Redis databases (`TEST_REDIS_DATABASES`, default 3; database 0 is the
 * shared bridge every other test uses at N = 1). The tests at N = 3 (`*databases.test.ts`) run in
 * the workers-n3 project, whose Worker is bound to them (`workerDatabases()` is 3 there): its
 * requests, queue consumers and Durable Objects all run at N = 3. A test that needs another setting
 * (chaos bridges in front of the databases, two of the three) builds its env with the helpers here.
 *
 * @example
 * const { services, close } = servicesFor(databasesEnv());
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { Env } from "../../src/env";
import { databaseOf, topologyOf, type DatabaseCredentials } from "../../src/lib/redis-topology";
import { newId } from "./ids";
import { createChaos, type Chaos } from "./stack";

/** The stack's databases, database 0 first; one entry when the stack runs one. */
export function stackDatabases(): DatabaseCredentials[] {
  const raw = (env as unknown as { STACK_REDIS_DATABASES?: string }).STACK_REDIS_DATABASES;
  if (raw) return JSON.parse(raw) as DatabaseCredentials[];
  const base = env as unknown as Env;
  return [{ url: base.UPSTASH_REDIS_REST_URL, token: base.UPSTASH_REDIS_REST_TOKEN }];
}

/** How many Redis databases the Worker's own bindings name (3 in the workers-n3 project, else 1). */
export function workerDatabases(): number {
  return topologyOf(env as unknown as Env).n;
}

/**
 * A describe block of tests at N = 3 against the Worker's own bindings: skipped when the stack runs
 * fewer than three databases, failing when the Worker is not bound to three (its file is not one
 * of the workers-n3 project's).
 */
export function describeAtN3(name: string, body: () => void) {
  describe.skipIf(stackDatabases().length < 3)(name, () => {
    beforeAll(() => {
      expect(workerDatabases(), "a test at N = 3 runs in the workers-n3 project (vitest.config.ts): name its file *databases.test.ts").toBe(3);
    });
    body();
  });
}

/** Bindings of a deployment over `databases` (default: all of the stack's). */
export function databasesEnv(databases: readonly DatabaseCredentials[] = stackDatabases()): Partial<Env> {
  return {
    UPSTASH_REDIS_REST_URL: databases[0]!.url,
    UPSTASH_REDIS_REST_TOKEN: databases[0]!.token,
    UPSTASH_REDIS_DATABASES: databases.length > 1 ? JSON.stringify(databases) : "",
  };
}

/** A fresh id whose keys live on database `index` of n. */
export function newIdOn(index: number, n: number): string {
  for (;;) {
    const id = newId();
    if (databaseOf(id, n) === index % n) return id;
  }
}

/**
 * For a test file at N = 3: each of the stack's first three databases behind a private chaos
 * bridge (so one can be killed, or its requests counted without noise from other files), opened
 * before the file's tests and brought back up and closed after them. `env` names the three as a
 * deployment would. Nothing is opened when the stack runs fewer than three databases (`enough`).
 */
export function useChaosDatabases(): { readonly enough: boolean; readonly pairs: Chaos[]; readonly env: Partial<Env> } {
  const enough = stackDatabases().length >= 3;
  const state = { enough, pairs: [] as Chaos[], env: {} as Partial<Env> };
  beforeAll(async () => {
    if (!enough) return;
    state.pairs.push(...(await Promise.all([0, 1, 2].map((i) => createChaos(i)))));
    state.env = databasesEnv(state.pairs.map((p) => ({ url: p.restUrl, token: p.restToken })));
  });
  afterAll(async () => {
    for (const pair of state.pairs) {
      await pair.setRedisDown(false);
      await pair.close();
    }
  });
  return state;
}
