import { readOnlyScript } from "../lib/read-only-scripts";
import { SAFETY_LUA } from "./verdict.lua";

/**
 * Which of the users in ARGV[3..] the owner's sets (KEYS: `safetyKeysOf(owner)`) keep away at
 * ARGV[1] (ms): with ARGV[2] = 'hides', those whose posts the owner must not see (blocked either
 * way, or muted); with 'blocks', those a block stands between (either way). `{hidden: [...]}`, or
 * `{miss, epoch}` when a set is not cached. Read-only (EVALSHA_RO).
 * Billed: EVALSHA_RO + EXISTS + 1 to 3 ZSCOREs per user.
 */
export const HIDDEN_AMONG = readOnlyScript(`${SAFETY_LUA}
local k = {KEYS[1], KEYS[2], KEYS[3], KEYS[4]}
if safety_missing(k) then return cjson.encode({miss = true, epoch = redis.call('GET', k[4]) or ''}) end
local now = tonumber(ARGV[1])
local blocksOnly = ARGV[2] == 'blocks'
local hidden = {}
for i = 3, #ARGV do
  local u = ARGV[i]
  local kept
  if blocksOnly then kept = redis.call('ZSCORE', k[1], u) or redis.call('ZSCORE', k[2], u)
  else kept = safety_hides(k, u, now) end
  if kept then hidden[#hidden + 1] = u end
end
return cjson.encode({hidden = hidden})
`);
