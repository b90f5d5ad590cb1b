import type { ScriptRunner } from "./script-batch";

/**
 * Scripts that only read, for reads a read region can answer (docs/regions.md, "Reads near the user").
 *
 * A script declares it with its first line, `#!lua flags=no-writes` (Redis 7 script flags; Upstash
 * documents the same shebang for EVAL_RO/EVALSHA_RO), and is called with EVALSHA_RO, EVAL_RO on
 * NOSCRIPT (`createScript(source, { readonly: true })` of `@upstash/redis`): a Global database's
 * read region answers those itself, while EVAL/EVALSHA always go to the primary. A write inside
 * such a script fails ("Write commands are not allowed from read-only scripts") instead of
 * reaching the replica. The same source still runs with EVALSHA where a caller needs it on the
 * primary (a batch with writes, `script-batch.ts`).
 */
export const NO_WRITES_SHEBANG = "#!lua flags=no-writes\n";

/** `body` as a read-only script: the shebang must be the source's very first line. */
export function readOnlyScript(body: string): string {
  return `${NO_WRITES_SHEBANG}${body}`;
}

/**
 * `source` as a read-only Script of `redis`, sent with EVALSHA_RO (EVAL_RO on NOSCRIPT): answered by
 * the nearest region. A source without the shebang is refused at once: without it Redis runs the
 * script as a write, and a write slipped into it would pass for a read.
 */
export function readOnlyScriptOf<T>(redis: ScriptRunner, source: string) {
  if (!source.startsWith(NO_WRITES_SHEBANG)) throw new Error(`a read-only script starts with "${NO_WRITES_SHEBANG.trim()}"`);
  return redis.createScript<T, true>(source, { readonly: true });
}

/** Runs a read-only script (`readOnlyScriptOf`) and answers its reply as the SDK decoded it. */
export function runReadOnly<T>(redis: ScriptRunner, source: string, keys: string[], args: string[]): Promise<T> {
  return readOnlyScriptOf<T>(redis, source).exec(keys, args);
}
