import { DependencyUnavailableError, isRedisCommandError } from "./errors";
import { readOnlyScriptOf } from "./read-only-scripts";
import { commandFailure, isRedisOutage } from "./redis-failures";
import type { ScriptRunner } from "./script-batch";

/**
 * Runs one Lua script (EVALSHA, EVAL on NOSCRIPT). Scripts answer `cjson.encode(...)`, so the
 * client hands back the decoded value. A Redis failure becomes a 503 the caller can retry, because
 * every caller of this helper is a Redis-only write or needs the answer.
 */
export function runScript<T>(redis: ScriptRunner, source: string, keys: string[], args: (string | number)[]): Promise<T> {
  return execScript<T>(redis.createScript(source), keys, args);
}

/**
 * Runs one READ-ONLY Lua script (`readOnlyScriptOf`: EVALSHA_RO, EVAL_RO on NOSCRIPT), which a read
 * region of a Global database answers itself: no round trip to the primary. Answers and failures
 * as `runScript`.
 */
export function runReadScript<T>(redis: ScriptRunner, source: string, keys: string[], args: (string | number)[]): Promise<T> {
  return execScript<T>(readOnlyScriptOf(redis, source), keys, args);
}

async function execScript<T>(script: { exec(keys: string[], args: string[]): Promise<unknown> }, keys: string[], args: (string | number)[]): Promise<T> {
  let raw: unknown;
  try {
    raw = await script.exec(keys, args.map(String));
  } catch (err) {
    // A script error (our bug, or a key of the wrong type) must surface as a 500, not pass for an outage.
    // No `cause`: the error handler would find the UpstashError in it and answer 503.
    if (isRedisCommandError(err)) throw commandFailure("Redis script", err);
    if (isRedisOutage(err)) throw new DependencyUnavailableError("redis", err);
    throw err;
  }
  return (typeof raw === "string" ? JSON.parse(raw) : raw) as T;
}
