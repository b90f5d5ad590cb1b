import type { Env } from "../env";
import { openDatabase, type Database } from "./db";
import type { EventBus } from "./events";
import { redisFor, type Redis } from "./redis";

/**
 * What domain code may use during one invocation. `db` is opened on first use, so requests served
 * from Redis never open a Postgres connection; `redis` is the isolate's shared client (`redisFor`).
 */
export interface Services {
  readonly env: Env;
  readonly redis: Redis;
  readonly db: Database;
  readonly events: EventBus;
  /** Background work that must finish after the response (Workers `waitUntil`). */
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * Builds the services of one invocation. The caller must hand `close()` to `waitUntil` when the
 * invocation is done: a Neon pool may not outlive the request that opened it.
 */
export function createServices(
  env: Env,
  ctx: Pick<ExecutionContext, "waitUntil">,
  events: EventBus,
): { services: Services; close: () => Promise<void> } {
  let opened: ReturnType<typeof openDatabase> | undefined;
  let redis: Redis | undefined;
  const services: Services = {
    env,
    get redis() {
      redis ??= redisFor(env);
      return redis;
    },
    events,
    get db() {
      opened ??= openDatabase(env);
      return opened.db;
    },
    waitUntil: (promise) => ctx.waitUntil(promise),
  };
  return { services, close: async () => opened?.close() };
}
