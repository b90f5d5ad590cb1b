import type { Env } from "../env";
import { openDatabase, type Database } from "./db";
import type { DomainEvent } from "./event-types";
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

/** Each subscriber's report for one event, by subscriber name; absent when it failed or has no handler. */
export type EventReports = ReadonlyMap<string, unknown>;

export interface EventBus {
  /**
   * Runs every subscriber of the event concurrently and waits for them, so a response is sent only
   * after its side effects are recorded. The scripts the subscribers start before their first
   * other I/O share ONE Redis round trip (one Upstash pipeline): a follow moves counters, badges
   * and the feed for the price of one request. A failing subscriber is logged and does not fail the
   * request: the relation is already committed, and the daily reconcile repairs derived state.
   */
  emit(event: DomainEvent, services: Services): Promise<EventReports>;
}
