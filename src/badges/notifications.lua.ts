/**
 * Notification badge scripts. Each keeps `total` = Σ types atomically, so a reader never sees a
 * total that disagrees with its types and a mark-read racing an add never loses or negates counts.
 */

/** Adds `count` to one type and the total; with an idempotency key, applies at most once per key. */
export const ADD_NOTIFICATION = `
local hash = KEYS[1]              -- badge:n:{user}
local idem = KEYS[2]              -- badge:n:idem:{user}:{key}, absent without Idempotency-Key
local kind = ARGV[1]              -- notification type from the registry
local count = tonumber(ARGV[2])   -- 1..MAX_NOTIFICATION_COUNT
local ttl = tonumber(ARGV[3])     -- per-user TTL, refreshed on write
local idemTtl = tonumber(ARGV[4]) -- how long an Idempotency-Key is remembered
if idem and redis.call('SET', idem, '1', 'NX', 'EX', idemTtl) == false then
  return cjson.encode({ applied = false, count = tonumber(redis.call('HGET', hash, kind) or '0'), total = tonumber(redis.call('HGET', hash, 'total') or '0') })
end
local n = redis.call('HINCRBY', hash, kind, count)
local total = redis.call('HINCRBY', hash, 'total', count)
redis.call('EXPIRE', hash, ttl)
return cjson.encode({ applied = true, count = n, total = total })
`;

/** Zeroes one type and takes exactly what it held off the total. */
export const READ_NOTIFICATION_TYPE = `
local hash = KEYS[1]  -- badge:n:{user}
local kind = ARGV[1]  -- notification type
local n = tonumber(redis.call('HGET', hash, kind) or '0')
local total = tonumber(redis.call('HGET', hash, 'total') or '0')
if n > 0 then
  redis.call('HDEL', hash, kind)
  total = redis.call('HINCRBY', hash, 'total', -n)
  if total <= 0 then redis.call('HDEL', hash, 'total'); total = 0 end
end
return cjson.encode({ cleared = n, total = total })
`;

/** Zeroes every type (the whole hash). */
export const READ_ALL_NOTIFICATIONS = `
local hash = KEYS[1]  -- badge:n:{user}
local cleared = tonumber(redis.call('HGET', hash, 'total') or '0')
redis.call('DEL', hash)
return cjson.encode({ cleared = cleared, total = 0 })
`;

/** The counts of every type and the total. */
export const GET_NOTIFICATIONS = `
local hash = KEYS[1]  -- badge:n:{user}
local flat = redis.call('HGETALL', hash)
local byType = {}
local total = 0
for i = 1, #flat, 2 do
  if flat[i] == 'total' then total = tonumber(flat[i + 1]) else byType[flat[i]] = tonumber(flat[i + 1]) end
end
return cjson.encode({ byType = byType, total = total })
`;
