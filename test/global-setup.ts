/**
 * Starts the local test stack ONCE per `vitest run` and hands its addresses to
 * every project. It is listed only in the root config's `globalSetup` (the
 * projects do not `extends` the root), which vitest 4 runs once, for the root
 * project, and whose `provide()`d values every project inherits. When the run has
 * workers-far files it starts that project's far-region stack beside it (`farStack`,
 * test/far-region-setup.ts).
 */
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import type { ProvidedContext } from "vitest";
import { startStack, type Stack } from "../scripts/stack/index.js";
import { FAR_MODEL_LAG_MS, FAR_MODEL_MS, farStackWanted } from "./far-region-setup.js";

declare module "vitest" {
  interface ProvidedContext {
    /** Fresh per-run database, migrated: `postgres://…/ce_test_<random>`. */
    databaseUrl: string;
    /** Raw Redis URL, for node tests that need a bridge of their own. */
    redisUrl: string;
    /** Upstash REST URL and token of the shared bridge. */
    restUrl: string;
    restToken: string;
    /** `127.0.0.1:PORT/v1` for `neonConfig.wsProxy`. */
    wsProxy: string;
    /** `http://127.0.0.1:PORT/sql`, the stand-in for Neon's HTTP query endpoint (`NEON_HTTP_PROXY`). */
    httpProxy: string;
    /** Control server: bridge stats, chaos pairs, Redis restart. */
    controlUrl: string;
    /**
     * `UPSTASH_REDIS_DATABASES` of the stack's several Redis databases (JSON `[{url, token}, …]`,
     * database 0 = the shared bridge above), or "" when it runs one (`TEST_REDIS_DATABASES=1`).
     * The workers-n3 project's Worker is bound to it (vitest.config.ts); the workers project's stays
     * at database 0, and its tests that need several build their env with it.
     */
    redisDatabases: string;
    /** Random per run; the Worker's `JWT_SECRET`. */
    jwtSecret: string;
    /**
     * The local push services (scripts/stack/push): the Worker's push settings pointing at them,
     * as JSON (`VAPID_*`, `FCM_SERVICE_ACCOUNT` with the stand-in's `token_uri`, `FCM_API_URL`,
     * `APNS_*`, `APNS_API_URL`), and their control and recording API.
     */
    pushEnv: string;
    pushControlUrl: string;
    /**
     * The workers-far project's stack (its files in the run only): the same values of a stack of
     * its own whose databases are read regions FAR_MODEL_MS from their primaries.
     */
    farStack?: StackValues;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const verbose = process.env.STACK_LOG === "1";
  // Three Redis databases by default, so the tests at N = 3 run everywhere (a redis-server and a
  // bridge each: milliseconds to start).
  const redisDatabases = Number(process.env.TEST_REDIS_DATABASES ?? 3);
  // TEST_FAR_REGION_MS=R: the Worker and the tests R ms (round trip) from the primary region, reads
  // served by a replica near them (docs/regions.md, "Local far-region stack").
  const farRegionMs = process.env.TEST_FAR_REGION_MS ? Number(process.env.TEST_FAR_REGION_MS) : undefined;
  const log = (prefix: string) => (verbose ? (line: string) => console.log(`[${prefix}] ${line}`) : undefined);
  // The workers-far project's stack, when the run has its files (test/far-region-setup.ts asked):
  // started beside this one, so their Postgres and Redis starts overlap.
  const started = await Promise.allSettled([
    startStack({ mode: "test", redisDatabases, farRegionMs, log: log("stack") }),
    farStackWanted() ? startStack({ mode: "test", redisDatabases, farRegionMs: FAR_MODEL_MS, farReplicationLagMs: FAR_MODEL_LAG_MS, log: log("far stack") }) : undefined,
  ]);
  const failed = started.find((outcome) => outcome.status === "rejected");
  if (failed) {
    // The one that started must not outlive the run.
    await Promise.all(started.map((outcome) => (outcome.status === "fulfilled" ? outcome.value?.stop() : undefined)));
    throw failed.reason;
  }
  const [stack, farStack] = started.map((outcome) => (outcome as PromiseFulfilledResult<Stack | undefined>).value) as [Stack, Stack | undefined];
  const values = stackValues(stack);
  for (const key of Object.keys(values) as (keyof StackValues)[]) project.provide(key, values[key]);
  if (farStack) project.provide("farStack", stackValues(farStack));
  project.provide("jwtSecret", randomBytes(32).toString("hex"));
  return async () => {
    await Promise.all([stack.stop(), farStack?.stop()]);
  };
}

/** What the Workers projects' bindings take from a stack. */
export type StackValues = Pick<ProvidedContext, "databaseUrl" | "redisUrl" | "restUrl" | "restToken" | "wsProxy" | "httpProxy" | "controlUrl" | "redisDatabases" | "pushEnv" | "pushControlUrl">;

function stackValues(stack: Stack): StackValues {
  return {
    databaseUrl: stack.databaseUrl,
    redisUrl: stack.redisUrl,
    restUrl: stack.restUrl,
    restToken: stack.restToken,
    wsProxy: stack.wsProxy,
    httpProxy: stack.httpProxy,
    controlUrl: stack.controlUrl!,
    redisDatabases: stack.redisBindings.UPSTASH_REDIS_DATABASES ?? "",
    pushEnv: JSON.stringify(stack.push.vars),
    pushControlUrl: stack.push.controlUrl,
  };
}
