import { readOnlyScript } from "../lib/read-only-scripts";

/**
 * Inbox unread-by-type scripts. The hash is a cache of Postgres `inbox_recipients`: it is only
 * moved when it is built (sentinel "_"), by exactly the rows whose state changed in Postgres, and
 * is rebuilt from Postgres when missing.
 */

/** One message of \`type\` reached every recipient in KEYS. */
export const INBOX_ADD = `
local kind = ARGV[1]            -- message type
local ttl = tonumber(ARGV[2])
for i = 1, #KEYS do            -- KEYS = badge:ib:{user} of each recipient
  if redis.call('HEXISTS', KEYS[i], '_') == 1 then
    redis.call('HINCRBY', KEYS[i], kind, 1)
    redis.call('HINCRBY', KEYS[i], 'total', 1)
    redis.call('EXPIRE', KEYS[i], ttl)
  end
end
return 1
`;

/** Rows turned read: ARGV = type, n pairs. Never below zero. */
export const INBOX_READ = `
local hash = KEYS[1]   -- badge:ib:{user}
if redis.call('HEXISTS', hash, '_') == 0 then return 0 end
local cleared = 0
for i = 1, #ARGV, 2 do
  local have = tonumber(redis.call('HGET', hash, ARGV[i]) or '0')
  local n = math.min(have, tonumber(ARGV[i + 1]))
  if n > 0 then
    redis.call('HINCRBY', hash, ARGV[i], -n)
    cleared = cleared + n
  end
end
local total = tonumber(redis.call('HGET', hash, 'total') or '0')
redis.call('HSET', hash, 'total', math.max(0, total - cleared))
return 1
`;

/** Builds (ARGV[2] = '0': only when missing) or overwrites (repair) the hash: ARGV[3..] = type, n pairs. */
export const INBOX_WARM = `
local hash = KEYS[1]            -- badge:ib:{user}
local ttl = tonumber(ARGV[1])
local repair = ARGV[2] == '1'
local exists = redis.call('EXISTS', hash) == 1
if exists ~= repair then return 0 end
redis.call('DEL', hash)
local total = 0
local kv = { '_', '1' }
for i = 3, #ARGV, 2 do kv[#kv + 1] = ARGV[i]; kv[#kv + 1] = ARGV[i + 1]; total = total + tonumber(ARGV[i + 1]) end
kv[#kv + 1] = 'total'; kv[#kv + 1] = total
redis.call('HSET', hash, unpack(kv))
redis.call('EXPIRE', hash, ttl)
return 1
`;

/** Shared Lua: defines \`inboxMissing\`, \`inboxBy\` (type → unread) and \`inboxTotal\`. */
export const INBOX_SNIPPET = `
local inboxMissing, inboxBy, inboxTotal = false, {}, 0
local ibFlat = redis.call('HGETALL', inbox)
if #ibFlat == 0 then inboxMissing = true end
for i = 1, #ibFlat, 2 do
  local f = ibFlat[i]
  if f == 'total' then inboxTotal = tonumber(ibFlat[i + 1])
  elseif f ~= '_' and tonumber(ibFlat[i + 1]) > 0 then inboxBy[f] = tonumber(ibFlat[i + 1]) end
end
`;

export const GET_INBOX = readOnlyScript(`local inbox = KEYS[1]   -- badge:ib:{user}
${INBOX_SNIPPET}
return cjson.encode({ missing = inboxMissing, byType = inboxBy, total = inboxTotal })
`);
