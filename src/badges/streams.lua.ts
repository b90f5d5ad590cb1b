/**
 * Stream scripts. A stream `kind/id` keeps a capped sorted set of item timestamps; one shared hash
 * holds every stream's last item time, so "is anything new in my 500 streams?" is one HMGET and only
 * streams with news cost a ZCOUNT.
 */

/** Records an item: adds its timestamp, trims to the newest \`cap\`, raises the stream's last-item time. */
export const ADD_STREAM_ITEM = `
local items = KEYS[1]            -- badge:st:i:{kind/id}
local lastItem = KEYS[2]         -- badge:st:last
local stream = ARGV[1]           -- kind/id
local at = tonumber(ARGV[2])     -- item time, ms
local member = ARGV[3]           -- item key (unique within the stream)
local cap = tonumber(ARGV[4])    -- newest items kept
local ttl = tonumber(ARGV[5])
redis.call('ZADD', items, at, member)
redis.call('ZREMRANGEBYRANK', items, 0, -(cap + 1))
redis.call('EXPIRE', items, ttl)
if at > tonumber(redis.call('HGET', lastItem, stream) or '0') then redis.call('HSET', lastItem, stream, ARGV[2]) end
return cjson.encode({ kept = redis.call('ZCARD', items) })
`;

/** Stamps a member's access (never backwards). Only into a built cache and only for a member. */
export const TOUCH_STREAM = `
local access = KEYS[1]          -- badge:st:u:{user}
local stream = ARGV[1]
local at = tonumber(ARGV[2])    -- access time, ms
local ttl = tonumber(ARGV[3])
local join = ARGV[4] == '1'     -- '1': membership starts now (PUT member)
if redis.call('HEXISTS', access, '_') == 0 then return 0 end
local current = redis.call('HGET', access, stream)
if not current and not join then return 0 end
if not current or at > tonumber(current) then redis.call('HSET', access, stream, ARGV[2]) end
redis.call('EXPIRE', access, ttl)
return 1
`;

export const LEAVE_STREAM = `
local access = KEYS[1]  -- badge:st:u:{user}
return redis.call('HDEL', access, ARGV[1])
`;

/**
 * Builds (ARGV[2] = '0': only when missing) or repairs (ARGV[2] = '1': overwrites membership, keeps
 * the later of Redis' and Postgres' access) a user's stream cache. ARGV[3..] = stream, ms pairs.
 */
export const WARM_STREAM_ACCESS = `
local access = KEYS[1]         -- badge:st:u:{user}
local ttl = tonumber(ARGV[1])
local repair = ARGV[2] == '1'
if redis.call('EXISTS', access) == 1 and not repair then return 0 end
local current = {}
if repair then
  if redis.call('EXISTS', access) == 0 then return 0 end
  local flat = redis.call('HGETALL', access)
  for i = 1, #flat, 2 do current[flat[i]] = tonumber(flat[i + 1]) end
  redis.call('DEL', access)
end
redis.call('HSET', access, '_', '1')
for i = 3, #ARGV, 2 do
  local at = tonumber(ARGV[i + 1])
  local mine = current[ARGV[i]]
  if mine and mine > at then at = mine end
  redis.call('HSET', access, ARGV[i], string.format('%d', at))
end
redis.call('EXPIRE', access, ttl)
return 1
`;

/**
 * Shared Lua: defines \`streamsMissing\`, \`streamsTotal\` and \`streamsBy\` (stream → unread). Quiet
 * streams (last item not after the access) cost nothing; counting stops once the total passes \`limit\`.
 */
export const STREAMS_UNREAD_SNIPPET = `
local streamsMissing, streamsTotal, streamsBy = false, 0, {}
local accFlat = redis.call('HGETALL', stAccess)
if #accFlat == 0 then
  streamsMissing = true
elseif #accFlat > 2 then
  local names, at = {}, {}
  for i = 1, #accFlat, 2 do
    if accFlat[i] ~= '_' then names[#names + 1] = accFlat[i]; at[#at + 1] = accFlat[i + 1] end
  end
  for from = 1, #names, ${1000} do
    if streamsTotal > limit then break end
    local to = math.min(from + 999, #names)
    local last = redis.call('HMGET', stLast, unpack(names, from, to))
    for j = 1, #last do
      if streamsTotal > limit then break end
      local k = from + j - 1
      if last[j] and tonumber(last[j]) > tonumber(at[k]) then
        local n = redis.call('ZCOUNT', itemPrefix .. names[k], '(' .. at[k], '+inf')
        if n > 0 then streamsBy[names[k]] = n; streamsTotal = streamsTotal + n end
      end
    end
  end
end
`;

export const LIST_STREAM_UNREAD = `
local stAccess = KEYS[1]       -- badge:st:u:{user}
local stLast = KEYS[2]         -- badge:st:last
local itemPrefix = ARGV[1]     -- key prefix of item sets (badgeKeys.streamItems(""))
local limit = tonumber(ARGV[2])
${STREAMS_UNREAD_SNIPPET}
return cjson.encode({ missing = streamsMissing, total = streamsTotal, byStream = streamsBy })
`;
