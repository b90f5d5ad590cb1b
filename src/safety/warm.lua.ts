/**
 * Writes a user's three sets as Postgres answered them, only if the user's epoch is still the one
 * read before Postgres was (`keys.ts`: a write in between means the answer may be older than the
 * cache must be; the next read rebuilds again). Each set gets the sentinel (the empty marker when
 * it has nothing else) and a fresh TTL.
 *
 * KEYS: blocked, blockedMe, mutes, epoch (`safetyKeysOf`). ARGV[1] = the epoch read before Postgres
 * ('' when there was none), ARGV[2] = TTL, then for each set in KEYS order: n, then n × (score, member).
 * Returns 1 when written, 0 when a write raced it.
 */
export const WARM_SETS = `
local expected = ARGV[1]
local ttl = ARGV[2]
if (redis.call('GET', KEYS[4]) or '') ~= expected then return 0 end
local a = 3
for s = 1, 3 do
  local set = KEYS[s]
  local n = tonumber(ARGV[a])
  a = a + 1
  redis.call('DEL', set)
  redis.call('ZADD', set, 0, '0')
  -- in chunks: Lua's unpack has a stack limit well under a 10,000-entry set
  local i = 0
  while i < n do
    local args = {}
    for j = i, math.min(i + 500, n) - 1 do
      args[#args + 1] = ARGV[a + j * 2]
      args[#args + 1] = ARGV[a + j * 2 + 1]
    end
    redis.call('ZADD', set, unpack(args))
    i = i + 500
  end
  a = a + n * 2
  redis.call('EXPIRE', set, ttl)
end
return 1
`;
