/**
 * The test stack's several Redis databases (`TEST_REDIS_DATABASES`, default 3; database 0 is the
 * shared bridge every other test uses at N = 1), for tests that run the Worker's code at N > 1:
 * their env names the databases as a deployment's `UPSTASH_REDIS_DATABASES` does.
 *
 * @example
 * const { services, close } = servicesFor(databasesEnv());
 */
import { env } from "cloudflare:test";
import type { Env } from "../../src/env";
import { databaseOf, type DatabaseCredentials } from "../../src/lib/redis-topology";
import { newId } from "./ids";

/** The stack's databases, database 0 first; one entry when the stack runs one. */
export function stackDatabases(): DatabaseCredentials[] {
  const raw = (env as unknown as { STACK_REDIS_DATABASES?: string }).STACK_REDIS_DATABASES;
  if (raw) return JSON.parse(raw) as DatabaseCredentials[];
  const base = env as unknown as Env;
  return [{ url: base.UPSTASH_REDIS_REST_URL, token: base.UPSTASH_REDIS_REST_TOKEN }];
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
