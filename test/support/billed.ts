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
 */
import type { ScriptRunner } from "../../src/lib/script-batch";

export function countBilledCommands(redis: ScriptRunner): { redis: ScriptRunner; billed: number[] } {
  const billed: number[] = [];
  const runner = {
    createScript(source: string) {
      const counted = redis.createScript<[number, unknown]>(`
local __billed, __redis = 0, redis
local function __count(f) return function(...) __billed = __billed + 1; return f(...) end end
local redis = setmetatable({call = __count(__redis.call), pcall = __count(__redis.pcall)}, {__index = __redis})
local __result = (function()
${source}
end)()
return {__billed, __result}
`);
      return {
        async exec(keys: string[], args: string[]) {
          const [ran, result] = await counted.exec(keys, args);
          billed.push(1 + ran); // + the EVALSHA itself
          return result;
        },
      };
    },
  } as unknown as ScriptRunner;
  return { redis: runner, billed };
}
