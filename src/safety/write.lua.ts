/**
 * Applies block/mute changes to cached sets of ONE database, atomically: for each change, its set
 * is changed only when it is cached (an uncached set is rebuilt from Postgres, which already holds
 * the change), its TTL refreshed, and its owner's epoch INCR'd either way — so a rebuild that read
 * Postgres before this change does not write its older answer over it. A block of B by A at N = 1
 * is one call carrying A's and B's changes; at N > 1 one call per database touched.
 *
 * KEYS: per change, its set then its owner's epoch. ARGV[1] = set TTL, ARGV[2] = epoch TTL, then
 * per change: op ('add'|'rem'), member, score, cap (members kept besides the sentinel; 0 = no trim:
 * the oldest go first).
 * Billed per change: EXISTS + ZADD|ZREM + EXPIRE + INCR + EXPIRE (+ ZCARD, ZREMRANGEBYRANK when capped).
 */
export const WRITE_SETS = `
local setTtl = ARGV[1]
local epochTtl = ARGV[2]
local changes = #KEYS / 2
for c = 0, changes - 1 do
  local set = KEYS[c * 2 + 1]
  local epoch = KEYS[c * 2 + 2]
  local a = 3 + c * 4
  local op, member, score, cap = ARGV[a], ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3])
  if redis.call('EXISTS', set) == 1 then
    if op == 'add' then
      redis.call('ZADD', set, score, member)
      if cap > 0 then
        local extra = redis.call('ZCARD', set) - 1 - cap
        -- rank 0 is the sentinel (score 0): drop the oldest above it
        if extra > 0 then redis.call('ZREMRANGEBYRANK', set, 1, extra) end
      end
    else
      redis.call('ZREM', set, member)
    end
    redis.call('EXPIRE', set, setTtl)
  end
  redis.call('INCR', epoch)
  redis.call('EXPIRE', epoch, epochTtl)
end
return changes
`;
