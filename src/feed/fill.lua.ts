/**
 * Caches what a page missed, after the caller read it from Postgres: posts (live ones with NX, so
 * a tombstone written meanwhile wins; tombstones always) and the reader's reaction flags.
 * Flags are added only where missing (HSETNX): a like/favourite event that ran after the Postgres
 * read already wrote its field and must not be undone. The floor moves down only when it is still
 * the one the page saw (the hash may have expired and come back partial meanwhile).
 * Billed: EVALSHA + per post SET; for flags HGET + per field HSETNX + HSET + TTL/EXPIRE + HLEN.
 */
export const FILL_CACHES = `
local flags = KEYS[1]         -- feed:rx:{user}; KEYS[2 .. 1+nposts]: feed:post:{id}
local postTtl = ARGV[1]
local tombTtl = ARGV[2]
local tombstone = ARGV[3]
local nposts = tonumber(ARGV[4])
for i = 1, nposts do
  local v = ARGV[4 + i]
  if v == tombstone then
    redis.call('SET', KEYS[1 + i], v, 'EX', tombTtl)
  else
    redis.call('SET', KEYS[1 + i], v, 'EX', postTtl, 'NX')
  end
end
local a = 5 + nposts
local newFloor = ARGV[a]      -- '' when no flags were read
local seenFloor = ARGV[a + 1] -- the floor the page saw ('' = none)
local flagsTtl = ARGV[a + 2]
local cap = tonumber(ARGV[a + 3])
if newFloor == '' then return 1 end
for i = a + 4, #ARGV, 2 do redis.call('HSETNX', flags, ARGV[i], ARGV[i + 1]) end
if (redis.call('HGET', flags, 'f') or '') == seenFloor then redis.call('HSET', flags, 'f', newFloor) end
if redis.call('TTL', flags) < 0 then redis.call('EXPIRE', flags, flagsTtl) end
if redis.call('HLEN', flags) > cap then redis.call('HSET', flags, 'x', '1') end
return 1
`;
