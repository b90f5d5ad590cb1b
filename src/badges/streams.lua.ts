import { STREAM_MEMO_MARGIN_MS, STREAM_META } from "./keys";
import { readOnlyScript } from "../lib/read-only-scripts";

/**
 * Stream scripts. A stream `kind/id` keeps a capped sorted set of item timestamps; one shared hash
 * holds every stream's last item time and version, so "is anything new in my 500 streams?" is one
 * HMGET, the streams with news cost one more (their versions), and a ZCOUNT each only when its
 * items or the user's access moved since the user's last count of it (the count is remembered in
 * the user's access hash).
 */

/**
 * Records an item: adds its timestamp, trims to the newest \`cap\`, raises the stream's last-item
 * time and moves its version (\`seq:itemsExpireAtMs\`): every change of the item set goes through
 * here, so an unchanged version proves an unchanged set until it expires.
 */
export const ADD_STREAM_ITEM = `
local items = KEYS[1]            -- badge:st:i:{kind/id}
local lastItem = KEYS[2]         -- badge:st:last
local stream = ARGV[1]           -- kind/id
local at = tonumber(ARGV[2])     -- item time, ms
local member = ARGV[3]           -- item key (unique within the stream)
local cap = tonumber(ARGV[4])    -- newest items kept
local ttl = tonumber(ARGV[5])
local now = tonumber(ARGV[6])    -- ms, when the item set's TTL starts
redis.call('ZADD', items, at, member)
redis.call('ZREMRANGEBYRANK', items, 0, -(cap + 1))
redis.call('EXPIRE', items, ttl)
local state = redis.call('HMGET', lastItem, stream, '${STREAM_META}' .. stream)
local seq = tonumber(string.match(state[2] or '', '^(%d+):') or '0') + 1
local fields = { '${STREAM_META}' .. stream, string.format('%d:%d', seq, now + ttl * 1000) }
if at > tonumber(state[1] or '0') then fields[3] = stream; fields[4] = ARGV[2] end
redis.call('HSET', lastItem, unpack(fields))
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

/** Ends a membership: the stream's access and the count remembered for it. */
export const LEAVE_STREAM = `
local access = KEYS[1]  -- badge:st:u:{user}
return redis.call('HDEL', access, ARGV[1], '${STREAM_META}' .. ARGV[1])
`;

/**
 * Builds (ARGV[2] = '0': only when missing) or repairs (ARGV[2] = '1': overwrites membership, keeps
 * the later of Redis' and Postgres' access) a user's stream cache. ARGV[3..] = stream, ms pairs.
 * A repair keeps the remembered counts of the streams that stay (a count is reused only while its
 * access string is unchanged), so the per-minute repair of active users does not recount them.
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
  for i = 1, #flat, 2 do current[flat[i]] = flat[i + 1] end
  redis.call('DEL', access)
end
redis.call('HSET', access, '_', '1')
for i = 3, #ARGV, 2 do
  local at = tonumber(ARGV[i + 1])
  local mine = tonumber(current[ARGV[i]] or '')
  if mine and mine > at then at = mine end
  local memo = current['${STREAM_META}' .. ARGV[i]]
  if memo then
    redis.call('HSET', access, ARGV[i], string.format('%d', at), '${STREAM_META}' .. ARGV[i], memo)
  else
    redis.call('HSET', access, ARGV[i], string.format('%d', at))
  end
end
redis.call('EXPIRE', access, ttl)
return 1
`;

/**
 * Shared Lua, read-only: defines \`streamsMissing\`, \`streamsTotal\`, \`streamsBy\` (stream → unread)
 * and \`streamsRemember\` (the counts to remember, flat field/value pairs for
 * REMEMBER_COUNTS_SNIPPET, which the caller sends afterwards as a write of its own), from
 * \`accFlat\`, the user's access hash as HGETALL answers it (the including script reads it, or
 * builds it from Postgres' rows). Quiet streams (last item not after the access) cost nothing;
 * counting stops once the total passes \`limit\`.
 *
 * The versions of the streams with news are read in a second HMGET, so the first one reads one
 * field per stream, not two. A stream with news is counted with ZCOUNT once, then remembered in the access hash as field
 * \`#kind/id\` = \`access@version=count\`; later calls reuse the count while the access and the
 * stream's version are the same strings (nothing was added or trimmed, nothing read) and the items
 * are still far from expiring (\`now\` before their expiry minus STREAM_MEMO_MARGIN_MS, so clock skew
 * between isolates cannot keep a count of expired items). Streams without a version (items added
 * before versions existed) are counted every call.
 */
export const STREAMS_UNREAD_SNIPPET = `
local streamsMissing, streamsTotal, streamsBy, streamsRemember = false, 0, {}, {}
if #accFlat == 0 then
  streamsMissing = true
elseif #accFlat > 2 then
  local names, at, memo, n = {}, {}, {}, 0
  for i = 1, #accFlat, 2 do
    local f = accFlat[i]
    if string.byte(f) == ${STREAM_META.charCodeAt(0)} then memo[string.sub(f, 2)] = accFlat[i + 1]
    elseif f ~= '_' then n = n + 1; names[n] = f; at[n] = accFlat[i + 1] end
  end
  local nowMs = tonumber(now)
  local remember = streamsRemember
  for from = 1, n, 1000 do
    if streamsTotal > limit then break end
    local to = math.min(from + 999, n)
    local last = redis.call('HMGET', stLast, unpack(names, from, to))
    local news, versionFields = {}, {}
    for k = from, to do
      local lastAt = last[k - from + 1]
      if lastAt and tonumber(lastAt) > tonumber(at[k]) then
        news[#news + 1] = k
        versionFields[#versionFields + 1] = '${STREAM_META}' .. names[k]
      end
    end
    local versions = #news > 0 and redis.call('HMGET', stLast, unpack(versionFields)) or {}
    for i = 1, #news do
      if streamsTotal > limit then break end
      local k, version = news[i], versions[i]
      local key, c = false, false
      if version and nowMs < tonumber(string.match(version, ':(%d+)$') or '0') - ${STREAM_MEMO_MARGIN_MS} then
        key = at[k] .. '@' .. version .. '='
        local m = memo[names[k]]
        if m and string.sub(m, 1, #key) == key then c = tonumber(string.sub(m, #key + 1)) end
      end
      if not c then
        c = redis.call('ZCOUNT', itemPrefix .. names[k], '(' .. at[k], '+inf')
        if key then remember[#remember + 1] = versionFields[i]; remember[#remember + 1] = key .. c end
      end
      if c > 0 then streamsBy[names[k]] = c; streamsTotal = streamsTotal + c end
    end
  end
end
`;

/** Unread per stream of one user (the list endpoint), and the counts to remember. Read-only. */
export const LIST_STREAM_UNREAD = readOnlyScript(`local stAccess = KEYS[1]       -- badge:st:u:{user}
local stLast = KEYS[2]         -- badge:st:last
local itemPrefix = ARGV[1]     -- key prefix of item sets (badgeKeys.streamItems(""))
local limit = tonumber(ARGV[2])
local now = ARGV[3]            -- ms, to tell a remembered count's items still alive
local accFlat = redis.call('HGETALL', stAccess)
${STREAMS_UNREAD_SNIPPET}
return cjson.encode({ missing = streamsMissing, total = streamsTotal, byStream = streamsBy, remember = streamsRemember })
`);

/**
 * Unread per stream of a user whose access cache is missing, from Postgres' rows (ARGV[4..]:
 * stream, access ms pairs, as WARM_STREAM_ACCESS takes them), which the caller writes as the cache
 * beside this read. Read-only: nothing is remembered (a count is remembered once the cache exists).
 */
export const COUNT_STREAM_UNREAD_OF = readOnlyScript(`local stLast = KEYS[1]         -- badge:st:last
local itemPrefix = ARGV[1]     -- key prefix of item sets (badgeKeys.streamItems(""))
local limit = tonumber(ARGV[2])
local now = ARGV[3]            -- ms
local accFlat = { '_', '1' }
for i = 4, #ARGV do accFlat[#accFlat + 1] = ARGV[i] end
${STREAMS_UNREAD_SNIPPET}
return cjson.encode({ total = streamsTotal, byStream = streamsBy })
`);

/**
 * Shared Lua: remembers the counts a read made (\`remember\`, its \`streamsRemember\`: \`#kind/id\` →
 * \`access@version=count\`) in \`stAccess\`, each only where the stream's access is still the one it
 * was counted at: a membership ended since (its field gone) gets no orphan count, a lost cache is
 * not recreated without its sentinel, and an access stamped since makes the count useless anyway.
 * Derived state: a count lost or skipped here costs the next read a ZCOUNT, never a wrong answer.
 */
export const REMEMBER_COUNTS_SNIPPET = `
if #remember > 0 then
  local streams = {}
  for i = 1, #remember, 2 do streams[#streams + 1] = string.sub(remember[i], 2) end
  local current = redis.call('HMGET', stAccess, unpack(streams))
  local kept = {}
  for i = 1, #streams do
    local value = remember[2 * i]
    if current[i] and current[i] == string.match(value, '^(.-)@') then
      kept[#kept + 1] = remember[2 * i - 1]
      kept[#kept + 1] = value
    end
  end
  if #kept > 0 then redis.call('HSET', stAccess, unpack(kept)) end
end
`;

/** Remembers the stream counts a LIST_STREAM_UNREAD made (ARGV: field, value pairs). */
export const REMEMBER_STREAM_COUNTS = `
local stAccess = KEYS[1]       -- badge:st:u:{user}
local remember = ARGV
${REMEMBER_COUNTS_SNIPPET}
return 1
`;
