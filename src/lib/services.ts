import type { Env } from "../env";
import { httpDatabase, openDatabase, type Database, type PooledDatabase } from "./db";
import type { DomainEvent } from "./event-types";
import { redisAt, type Redis } from "./redis";
import { databaseOf, topologyOf } from "./redis-topology";

/**
 * What domain code may use during one invocation. `db` is Neon's HTTP query path (a fetch per
 * call, no connection); `pooledDb`, a WebSocket Pool, is opened on first use by the calls that need
 * an interactive transaction; the Redis clients are the isolate's shared ones (`redis.ts`).
 */
export interface Services {
  readonly env: Env;
  /**
   * Database 0 — the only one at N = 1. Capabilities not split by owner yet keep every key here
   * at N > 1 too, so they work unchanged.
   */
  readonly redis: Redis;
  /** N, the number of Redis databases (`redis-topology.ts`); a TopologyError when the setting is wrong. */
  readonly databases: number;
  /** The client of database `index` (0 ≤ index < databases). */
  redisAt(index: number): Redis;
  /** The client of the database holding `ownerId`'s keys (a user or entity id). */
  redisFor(ownerId: string): Redis;
  /** Postgres over HTTP: one request per statement or per batch (`queryBatch`, `db.batch`). */
  readonly db: Database;
  /**
   * Postgres over a WebSocket Pool of this invocation, opened on first use: only for interactive
   * transactions (`pooledDb.transaction`), which pay the connection's set-up (docs/scale.md).
   */
  readonly pooledDb: PooledDatabase;
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
  let http: Database | undefined;
  let redis: Redis | undefined;
  const services: Services = {
    env,
    get redis() {
      redis ??= redisAt(env, 0);
      return redis;
    },
    get databases() {
      return topologyOf(env).n;
    },
    redisAt: (index) => (index === 0 ? services.redis : redisAt(env, index)),
    redisFor: (ownerId) => services.redisAt(databaseOf(ownerId, services.databases)),
    events,
    get db() {
      http ??= httpDatabase(env);
      return http;
    },
    get pooledDb() {
      opened ??= openDatabase(env);
      return opened.db;
    },
    waitUntil: (promise) => ctx.waitUntil(promise),
  };
  return { services, close: async () => opened?.close() };
}

/**
 * Runs `work` after the response with services of its own, closed when it is done: the request's
 * Postgres pool is closed as the response leaves, and one opened after that would never be.
 */
export async function afterResponse<T>(request: Pick<Services, "env" | "events" | "waitUntil">, work: (services: Services) => Promise<T>): Promise<T> {
  const { services, close } = createServices(request.env, request, request.events);
  try {
    return await work(services);
  } finally {
    await close();
  }
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
  /**
   * As `emit`, for a change whose every part must be done before it answers (a block, a
   * moderator's action: a request carried out through other capabilities' subscribers): a failing
   * subscriber fails the call (with its error, after logging it), so the caller's retry, which is
   * idempotent, completes what failed.
   */
  emitOrFail(event: DomainEvent, services: Services): Promise<EventReports>;
}
