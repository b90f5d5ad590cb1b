import { DependencyUnavailableError, isRedisCommandError } from "./errors";
import { isRedisRateLimited } from "./redis";

export { isRedisCommandError };

/**
 * Redis could not be reached or did not answer: the fetch failed or timed out, or the REST endpoint
 * answered an error that is not a command error (5xx, gateway page, unreachable Redis behind it).
 */
export function isRedisOutage(err: unknown): boolean {
  if (err instanceof DependencyUnavailableError) return err.dependency === "redis";
  if (!(err instanceof Error) || isRedisCommandError(err)) return false;
  return /^Upstash/.test(err.name) || /fetch failed|Network connection lost|network|timed? ?out|abort|ECONNREFUSED|ECONNRESET/i.test(`${err.name} ${err.message}`);
}

/**
 * A database refused the call for its command budget (`ERR max requests limit exceeded`), however
 * the failure reached the caller: as Upstash's answer, rethrown by `commandFailure`, or as the
 * cause of an outage (`DependencyUnavailableError`, e.g. a refused marker check). Not an outage of
 * the database: the same call succeeds once the budget recovers.
 */
export function isBudgetRefusal(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (isRedisRateLimited(e)) return true;
  }
  return false;
}

/**
 * A command error rethrown without its UpstashError name or cause, so the error handler answers
 * 500 (internal) and does not take it for an outage.
 */
export function commandFailure(what: string, err: unknown): Error {
  return new Error(`${what} failed: ${err instanceof Error ? err.message : String(err)}`);
}

/**
 * Runs a Redis write that follows a committed Postgres write. On an outage the cache is left for
 * the repair cron and the caller reports `degraded: true`; any other failure propagates.
 * Returns whether Redis was missed.
 */
export async function afterCommit(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return false;
  } catch (err) {
    if (isRedisOutage(err)) return true;
    throw err;
  }
}
