import { readOnlyScript } from "../lib/read-only-scripts";
import { INBOX_LIST_SNIPPET } from "./inbox-list.lua";

/**
 * Inbox unread-by-type scripts. The hash is a cache of Postgres `inbox_recipients`: it is only
 * moved when it is built (sentinel "_"), by exactly the rows whose state changed in Postgres, and
 * is rebuilt from Postgres when missing.
 */

/**
 * One message of `type` reached every recipient in KEYS[2..] (triples per recipient: unread
 * counts `badge:ib:{user}`, list `badge:ib:l:{user}`, list epoch `badge:ib:lep:{user}`):
 * counts moved where built, the epoch moved for everyone (a list rebuild in flight must not store
 * what it read), the message added to built lists, and its JSON stored once (KEYS[1],
 * `badge:ib:msg:{id}`) when a list of this database took it. ARGV: type, counts TTL, epoch TTL,
 * list window, message id, message JSON, message TTL.
 */
export const INBOX_ADD = `
local kind = ARGV[1]            -- message type
local ttl = tonumber(ARGV[2])
local epochTtl, window, id = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
${INBOX_LIST_SNIPPET}
local listed = false
for i = 2, #KEYS, 3 do
  local counts, list, epoch = KEYS[i], KEYS[i + 1], KEYS[i + 2]
  if redis.call('HEXISTS', counts, '_') == 1 then
    redis.call('HINCRBY', counts, kind, 1)
    redis.call('HINCRBY', counts, 'total', 1)
    redis.call('EXPIRE', counts, ttl)
  end
  redis.call('INCR', epoch)
  redis.call('EXPIRE', epoch, epochTtl)
  if inboxListUpkeep(list, id, '0' .. kind, false, window) then listed = true end
end
if listed then redis.call('SET', KEYS[1], ARGV[6], 'EX', tonumber(ARGV[7])) end
return 1
`;

/**
 * Rows turned read. KEYS: counts `badge:ib:{user}`, list `badge:ib:l:{user}`, list epoch. ARGV:
 * epoch TTL, list window, k, then k (type, n) pairs for the counts (never below zero), then
 * (message id, type) pairs of the rows turned read (the newest list-window of them), set read in a
 * built list at or above its floor, present or not yet (a send's own upkeep may come later).
 */
export const INBOX_READ = `
local hash, list, epoch = KEYS[1], KEYS[2], KEYS[3]
local epochTtl, window, k = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
${INBOX_LIST_SNIPPET}
redis.call('INCR', epoch)
redis.call('EXPIRE', epoch, epochTtl)
for i = 4 + 2 * k, #ARGV, 2 do inboxListUpkeep(list, ARGV[i], '1' .. ARGV[i + 1], true, window) end
if redis.call('HEXISTS', hash, '_') == 0 then return 0 end
local cleared = 0
for i = 4, 3 + 2 * k, 2 do
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
