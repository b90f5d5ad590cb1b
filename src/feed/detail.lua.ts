import { readOnlyScript } from "../lib/read-only-scripts";
import { SAFETY_LUA } from "../safety/verdict.lua";
import { TOMBSTONE } from "./keys";

/**
 * A post's detail in one read-only call when the post and the reader share a database (always at
 * N = 1): the post's entry, the reader's flag fields for it and — the entry live and by someone
 * else — whether a block stands between the reader and its author (safety's cached sets, read as
 * `HIDDEN_AMONG` reads them for 'blocks'). KEYS: feed:post:{id}, feed:rx:{reader}, then
 * `safetyKeysOf(reader)`. ARGV: the post id, the reader id. Answers JSON `{entry, flags, safety}`:
 * `entry` false when not cached, `flags` the HMGET of `f`, `x`, `l{id}`, `v{id}` (false where
 * absent), `safety` 'blocked' | 'ok' | 'miss' (sets not cached) | absent (nothing to ask).
 * Billed: EVALSHA_RO + GET + HMGET (+ EXISTS + 2 ZSCOREs).
 */
export const READ_POST_DETAIL = readOnlyScript(`${SAFETY_LUA}
local entry = redis.call('GET', KEYS[1])
local answer = {entry = entry or false}
answer.flags = redis.call('HMGET', KEYS[2], 'f', 'x', 'l' .. ARGV[1], 'v' .. ARGV[1])
if entry and entry ~= '${TOMBSTONE}' then
  local author = tostring(cjson.decode(entry)[1])
  if author ~= ARGV[2] then
    local k = {KEYS[3], KEYS[4], KEYS[5], KEYS[6]}
    if safety_missing(k) then answer.safety = 'miss'
    elseif redis.call('ZSCORE', k[1], author) or redis.call('ZSCORE', k[2], author) then answer.safety = 'blocked'
    else answer.safety = 'ok' end
  end
end
return cjson.encode(answer)
`);
