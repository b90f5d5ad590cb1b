/**
 * The model tests far from the primary region (the workers-far project, vitest.config.ts): the
 * Worker's databases are read regions of the far stack (test/far-region-setup.ts) and
 * `REDIS_READ_REGIONS` is on. Calls through `api()` carry the token as the typed client does
 * (test/support/api.ts); models that call domain functions run in one scope here.
 */
import { env } from "cloudflare:test";
import type { Env } from "../../src/env";
import { ConsistencyScope, readRegionsOn, runInScope } from "../../src/lib/consistency";

/**
 * Runs `work` (a model's steps, calling domain functions) as one app carrying its consistency
 * token: each Redis call carries the newest sync token the run's writes answered, per database,
 * as each request of an app sending `X-Consistency-Token` does — the model sees every write, so
 * every read must. Without read regions it runs as it is.
 */
export function asOneApp<T>(work: () => Promise<T>): Promise<T> {
  if (!readRegionsOn(env as unknown as Env)) return work();
  return runInScope(new ConsistencyScope([]), work);
}
