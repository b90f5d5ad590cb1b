import { readOnlyScript } from "../lib/read-only-scripts";
import { SAFETY_LUA } from "../safety/verdict.lua";

/**
 * Scripts of a tally: a hash of per-key counts plus `total` (= Σ keys), moved together atomically
 * so a reader never sees a total that disagrees with its parts and a clear racing an add never
 * loses or negates counts. Notifications (key = type) and direct messages (key = peer) are tallies.
 */

/**
 * Adds `count` to one key and the total; with an idempotency key, at most once per key. With a
 * `peer` (who caused it), the owner's safety sets are read first, in this call (`src/safety`): a
 * block either way or a mute of the peer's notifications applies nothing and answers `suppressed`
 * with the counts as they are, and so does a suspended peer (\`known\` = 'suspended', from the
 * Worker's copy of the suspended set); sets not cached answer `miss` (and the owner's safety epoch) without
 * applying, and the caller runs the script again with the verdict Postgres gave (`known`).
 */
export const ADD_TO_TALLY = `${SAFETY_LUA}
local hash = KEYS[1]              -- the tally hash
local field = ARGV[1]             -- the key counted (a type, a peer)
local count = tonumber(ARGV[2])   -- bounded by the caller
local ttl = tonumber(ARGV[3])     -- per-user TTL, refreshed on write
local idemTtl = tonumber(ARGV[4]) -- how long an Idempotency-Key is remembered
local peer = ARGV[5] or ''        -- who caused it ('' = no safety check); KEYS[2..5] the owner's safety keys
local now = tonumber(ARGV[6] or '0') -- ms, the safety clock
local known = ARGV[7] or ''       -- the verdict known already: Postgres' after a miss ('ok'|'blocked'|'muted'), or 'suspended' (the peer, by the Worker's copy); '' = read the sets
local idem = KEYS[peer ~= '' and 6 or 2] -- idempotency marker, absent without an Idempotency-Key
local function counts()
  return tonumber(redis.call('HGET', hash, field) or '0'), tonumber(redis.call('HGET', hash, 'total') or '0')
end
if peer ~= '' then
  local verdict = known
  if verdict == '' then
    local k = { KEYS[2], KEYS[3], KEYS[4], KEYS[5] }
    if safety_missing(k) then return cjson.encode({ miss = true, epoch = redis.call('GET', k[4]) or '' }) end
    verdict = safety_verdict(k, peer, now) or 'ok'
  end
  if verdict ~= 'ok' then
    local n, total = counts()
    return cjson.encode({ applied = false, suppressed = verdict, count = n, total = total })
  end
end
if idem and redis.call('SET', idem, '1', 'NX', 'EX', idemTtl) == false then
  local n, total = counts()
  return cjson.encode({ applied = false, count = n, total = total })
end
local n = redis.call('HINCRBY', hash, field, count)
local total = redis.call('HINCRBY', hash, 'total', count)
redis.call('EXPIRE', hash, ttl)
return cjson.encode({ applied = true, count = n, total = total })
`;

/** Zeroes one key and takes exactly what it held off the total. */
export const CLEAR_TALLY_KEY = `
local hash = KEYS[1]   -- the tally hash
local field = ARGV[1]  -- the key to clear
local n = tonumber(redis.call('HGET', hash, field) or '0')
local total = tonumber(redis.call('HGET', hash, 'total') or '0')
if n > 0 then
  redis.call('HDEL', hash, field)
  total = redis.call('HINCRBY', hash, 'total', -n)
  if total <= 0 then redis.call('HDEL', hash, 'total'); total = 0 end
end
return cjson.encode({ cleared = n, total = total })
`;

/** Zeroes every key (the whole hash). */
export const CLEAR_TALLY = `
local hash = KEYS[1]  -- the tally hash
local cleared = tonumber(redis.call('HGET', hash, 'total') or '0')
redis.call('DEL', hash)
return cjson.encode({ cleared = cleared, total = 0 })
`;

/** Every key's count and the total. Read-only: a read region answers it. */
export const READ_TALLY = readOnlyScript(`local hash = KEYS[1]  -- the tally hash
local flat = redis.call('HGETALL', hash)
local byKey, total = {}, 0
for i = 1, #flat, 2 do
  if flat[i] == 'total' then total = tonumber(flat[i + 1]) else byKey[flat[i]] = tonumber(flat[i + 1]) end
end
return cjson.encode({ byKey = byKey, total = total })
`);
