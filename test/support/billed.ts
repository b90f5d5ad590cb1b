/**
 * What Upstash bills for script calls: EVALSHA + every command the script runs.
 *
 * Redis' `INFO commandstats` is shared by every test file running at the same time, so each script
 * is run with a prelude that counts the commands it runs (a local `redis` shadowing the global one)
 * and answers `{count, result}`; the domain functions under test run unchanged on top of it.
 *
 * @example
 * const { redis: counted, billed } = countBilledCommands(services.redis);
 * await readCounters({ ...services, redis: counted }, "post", ids);
 * expect(billed).toEqual([2]); // one entry per script call
 * // byCommand sums the commands the scripts ran by name (lower case): { mget: 1 }
 */
import type { ScriptRunner } from "../../src/lib/script-batch";

export function countBilledCommands(redis: ScriptRunner): { redis: ScriptRunner; billed: number[]; byCommand: Record<string, number> } {
  const billed: number[] = [];
  const byCommand: Record<string, number> = {};
  const runner = {
    createScript(source: string, options?: { readonly?: boolean }) {
      // A read-only script's first line (`#!lua flags=no-writes`) stays the first line, and it is
      // still sent as one (EVALSHA_RO), so a write in it fails here as it would in production.
      const shebang = source.startsWith("#!") ? source.slice(0, source.indexOf("\n") + 1) : "";
      const counted = redis.createScript<[number, unknown, string | Record<string, number>], boolean>(`${shebang}
local __billed, __byCommand, __redis = 0, {}, redis
local function __count(f)
  return function(command, ...)
    __billed = __billed + 1
    local name = string.lower(command)
    __byCommand[name] = (__byCommand[name] or 0) + 1
    return f(command, ...)
  end
end
local redis = setmetatable({call = __count(__redis.call), pcall = __count(__redis.pcall)}, {__index = __redis})
local __result = (function()
${source.slice(shebang.length)}
end)()
return {__billed, __result, cjson.encode(__byCommand)}
`, options);
      return {
        async exec(keys: string[], args: string[]) {
          const [ran, result, ranByCommand] = await counted.exec(keys, args);
          billed.push(1 + ran); // + the EVALSHA (or EVALSHA_RO) itself
          const names = typeof ranByCommand === "string" ? (JSON.parse(ranByCommand) as Record<string, number>) : ranByCommand;
          for (const [name, n] of Object.entries(names ?? {})) byCommand[name] = (byCommand[name] ?? 0) + n;
          return result;
        },
      };
    },
  } as unknown as ScriptRunner;
  return { redis: runner, billed, byCommand };
}
