/**
 * A database's primary (redis-server and its bridge) with one read region far from it
 * (scripts/stack/far-region.ts), for the node tests that watch a read region themselves, and a
 * direct connection to each server to set up data and read what ran where.
 *
 * @example
 * let world: RegionWithPrimary;
 * beforeAll(async () => (world = await startRegionWithPrimary({ name: "x test primary", token: "x-token", farRoundTripMs: 40 })));
 * afterAll(() => world?.stop());
 */
import { Redis } from "@upstash/redis";
import { Redis as RedisConnection } from "ioredis";
import { startReadRegion, type ReadRegion, type ReadRegionOptions } from "../../scripts/stack/far-region.js";
import { startRedis, type RedisHandle } from "../../scripts/stack/redis.js";
import { startUpstashBridge, type UpstashBridge } from "../../scripts/stack/upstash-bridge.js";
import type { Env } from "../../src/env";
import type { Services } from "../../src/lib/services";
import { eventually } from "./eventually";

export interface RegionWithPrimary {
  primary: RedisHandle;
  primaryBridge: UpstashBridge;
  region: ReadRegion;
  primaryServer: RedisConnection;
  replicaServer: RedisConnection;
  /** Resolves once the replica has applied everything the primary has (set-up written to the primary is then readable near). */
  replicated(): Promise<void>;
  /** Stops all of it, last started first. */
  stop(): Promise<void>;
}

/** Starts the primary (`name` in the log, `token` its REST token) and the region; on a failure, stops what had started. */
export async function startRegionWithPrimary({
  name,
  token,
  ...regionOptions
}: { name: string; token: string } & Omit<ReadRegionOptions, "primaryRedisUrl" | "primaryBridge" | "name">): Promise<RegionWithPrimary> {
  const stops: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
    stops.length = 0;
  };
  try {
    const primary = await startRedis({ ignoreEnv: true, name });
    stops.push(() => primary.stop());
    const primaryBridge = await startUpstashBridge({ redisUrl: primary.url, token });
    stops.push(() => primaryBridge.close());
    const region = await startReadRegion({ primaryRedisUrl: primary.url, primaryBridge, ...regionOptions });
    stops.push(() => region.stop());
    const primaryServer = new RedisConnection(primary.url);
    stops.push(() => primaryServer.disconnect());
    const replicaServer = new RedisConnection(region.replicaUrl);
    stops.push(() => replicaServer.disconnect());
    const replicated = async () => {
      const offset = (info: string) => Number(/^master_repl_offset:(\d+)/m.exec(info)![1]);
      const target = offset(await primaryServer.info("replication"));
      const reached = await eventually(async () => offset(await replicaServer.info("replication")), (at) => at >= target, 10_000);
      if (reached < target) throw new Error(`the replica is at ${reached}, the primary at ${target}`);
    };
    return { primary, primaryBridge, region, primaryServer, replicaServer, replicated, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The services of a Worker in the region's data centre (one database): its Redis client is the
 * region's REST URL as a deployment with read regions has it (each request answered as fresh as the
 * region has it; writes forwarded to the primary), Postgres refused with `noPostgres` (the reads
 * under test read none), `waitUntil` handed to the test.
 */
export function regionServices(world: RegionWithPrimary, options: { env?: Partial<Env>; noPostgres: string; waitUntil: (p: Promise<unknown>) => void }): Services {
  const client = new Redis({ url: world.region.restUrl, token: world.primaryBridge.token, enableAutoPipelining: false, readYourWrites: false }) as unknown as Services["redis"];
  return {
    env: (options.env ?? {}) as Env,
    redis: client,
    databases: 1,
    redisAt: () => client,
    redisFor: () => client,
    get db(): never {
      throw new Error(options.noPostgres);
    },
    get pooledDb(): never {
      throw new Error(options.noPostgres);
    },
    events: { emit: async () => {} } as unknown as Services["events"],
    waitUntil: options.waitUntil,
  };
}

type Routed = { replica: number; primary: number; primaryBridge?: number };

/**
 * What `read` sent to the replica and to the primary (the near bridge's counts; with
 * `primaryBridge`, also the primary bridge's own), before its answer and, once `settle` (its
 * `waitUntil` work) is done, after it.
 */
export async function routedThrough(
  world: RegionWithPrimary,
  read: () => Promise<unknown>,
  settle: () => Promise<unknown>,
  options: { primaryBridge?: boolean } = {},
): Promise<{ forAnswer: Routed; after: Routed }> {
  const { region, primaryBridge } = world;
  const counts = (): Routed => ({
    replica: region.near.stats.replica,
    primary: region.near.stats.primary,
    ...(options.primaryBridge ? { primaryBridge: primaryBridge.stats.requests } : {}),
  });
  region.near.resetStats();
  if (options.primaryBridge) primaryBridge.resetStats();
  await read();
  const forAnswer = counts();
  await settle();
  const total = counts();
  const after = Object.fromEntries(Object.entries(total).map(([k, v]) => [k, v - forAnswer[k as keyof Routed]!])) as Routed;
  return { forAnswer, after };
}
