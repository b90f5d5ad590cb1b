import { COUNTER_CACHE_READER } from "../counters/read.lua";

/**
 * serve_page(tl, flags, max, limit, ttl, postPrefix, counterPrefix, fields): one page of a built
 * timeline, hydrated: the members newest first below `max`, each post's cache entry, its cached
 * counters (the counters capability's reader, so one cache and one never-double-count rule) and
 * the reader's flag fields. Tombstoned posts leave the timeline here, so later pages skip them.
 * Renews the timeline's and the flags' TTL (a read keeps an active user's timeline alive).
 * Billed: ZREVRANGEBYSCORE + ZCARD + EXPIRE + MGET + counters' reader + HMGET + EXPIRE (+ ZREM).
 */
export const SERVE_PAGE = `${COUNTER_CACHE_READER}
local function serve_page(tl, flags, max, limit, ttl, postPrefix, counterPrefix, fields)
  local members = redis.call('ZREVRANGEBYSCORE', tl, max, '(0', 'LIMIT', 0, limit + 1)
  local more = #members > limit
  if more then members[#members] = nil end
  if redis.call('ZCARD', tl) > 1 then redis.call('EXPIRE', tl, ttl) end
  if #members == 0 then return {members = {}, more = false} end
  local postKeys, counterKeys, flagFields = {}, {}, {'f', 'x'}
  for i, m in ipairs(members) do
    local id = string.match(m, '^(%d+):')
    postKeys[i] = postPrefix .. id
    counterKeys[i] = counterPrefix .. id
    flagFields[#flagFields + 1] = 'l' .. id
    flagFields[#flagFields + 1] = 'v' .. id
  end
  local posts = redis.call('MGET', unpack(postKeys))
  local gone = {}
  for i = 1, #members do
    if posts[i] == 'd' then gone[#gone + 1] = members[i] end
  end
  if #gone > 0 then redis.call('ZREM', tl, unpack(gone)) end
  local counts = read_counter_caches(counterKeys, fields)
  local fl = redis.call('HMGET', flags, unpack(flagFields))
  if fl[1] and not fl[2] then redis.call('EXPIRE', flags, ttl) end
  return {members = members, posts = posts, counts = counts, flags = fl, more = more}
end
`;

/**
 * The home page read: one call serves a warm page. A timeline that is not built yet is marked as
 * building (sentinel `b`, short TTL) BEFORE the caller reads Postgres, so a post fanned out while
 * the build runs lands in it instead of being skipped; the answer then carries the unfollow epoch
 * the build must still see when it writes.
 */
export const READ_PAGE = `${SERVE_PAGE}
local tl = KEYS[1]            -- feed:tl:{user}
local flags = KEYS[2]         -- feed:rx:{user}
local epoch = KEYS[3]         -- feed:ep:{user}
local max = ARGV[1]           -- '+inf' or '(' .. cursor id
local limit = tonumber(ARGV[2])
local ttl = ARGV[3]           -- timeline TTL (s)
local buildTtl = ARGV[4]      -- TTL of a timeline under construction (s)
local postPrefix = ARGV[5]    -- feed:post:
local counterPrefix = ARGV[6] -- ctr:v:post:
local fields = {}             -- ARGV[7..]: the post counter fields in registry order
for i = 7, #ARGV do fields[#fields + 1] = ARGV[i] end

if not redis.call('ZSCORE', tl, '0') then
  redis.call('ZADD', tl, 0, 'b')
  redis.call('EXPIRE', tl, buildTtl)
  return cjson.encode({cold = true, epoch = redis.call('GET', epoch) or '0'})
end
return cjson.encode(serve_page(tl, flags, max, limit, ttl, postPrefix, counterPrefix, fields))
`;
