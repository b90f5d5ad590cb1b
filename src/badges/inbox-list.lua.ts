import { readOnlyScript } from "../lib/read-only-scripts";

/**
 * The inbox list cache (`badge:ib:l:{user}`, see keys.ts): fields `messageId → flag .. type` (flag
 * '0' unread, '1' read) and `_` = the floor (every message of the user with an id ≥ floor is a
 * field; '0': all are). Ids are compared as numbers (Postgres identities, far below 2^53) but kept
 * as the strings they came as: Lua's tostring would print a large id in exponent form.
 */

const BY_ID_DESC = `local function idDesc(a, b) return tonumber(a) > tonumber(b) end`;

/**
 * Shared Lua: `inboxListTrim(list, window)` drops the oldest fields past `window` and raises the
 * floor to the oldest kept id; `inboxListUpkeep(list, id, value, overwrite)` sets one message of a
 * built list (only at or above its floor; `overwrite` false: HSETNX, so a send arriving after a mark
 * read of the same message keeps the read flag), then trims.
 */
export const INBOX_LIST_SNIPPET = `
${BY_ID_DESC}
local function inboxListTrim(list, window)
  local n = redis.call('HLEN', list) - 1
  if n <= window then return end
  local ids = {}
  for _, f in ipairs(redis.call('HKEYS', list)) do if f ~= '_' then ids[#ids + 1] = f end end
  table.sort(ids, idDesc)
  local drop = {}
  for i = window + 1, #ids do drop[#drop + 1] = ids[i] end
  redis.call('HDEL', list, unpack(drop))
  redis.call('HSET', list, '_', ids[window])
end
local function inboxListUpkeep(list, id, value, overwrite, window)
  local floor = redis.call('HGET', list, '_')
  if not floor or tonumber(id) < tonumber(floor) then return false end
  if overwrite then redis.call('HSET', list, id, value) else redis.call('HSETNX', list, id, value) end
  inboxListTrim(list, window)
  return true
end
`;

/**
 * One page of the user's inbox from the list, read-only. ARGV: message key prefix, `before` (a
 * cursor's id, '' for the first page), type ('' any), unread ('' any, '1' unread only, '0' read
 * only), limit. Answers JSON: `{"s":"hit","items":[[id, read, message JSON]...]}` (limit + 1 items
 * at most: one more than the page says there is a next one), `{"s":"short"}` when the list holds
 * fewer matches than a page and does not hold every message (Postgres answers, the list is fine),
 * or `{"s":"miss","epoch":…}` when the list is missing, or lists a message whose JSON is not there
 * (`stale`: the rebuild overwrites it), with the epoch the rebuild compares against.
 */
export const INBOX_LIST_PAGE = readOnlyScript(`local list = KEYS[1]   -- badge:ib:l:{user}
local epoch = KEYS[2]           -- badge:ib:lep:{user}
local prefix, before, kind, unread, limit = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
${BY_ID_DESC}
local function miss(stale) return cjson.encode({ s = 'miss', stale = stale, epoch = redis.call('GET', epoch) or '0' }) end
local flat = redis.call('HGETALL', list)
if #flat == 0 then return miss(false) end
local floor, ids, value = '0', {}, {}
for i = 1, #flat, 2 do
  local f = flat[i]
  if f == '_' then floor = flat[i + 1] else ids[#ids + 1] = f; value[f] = flat[i + 1] end
end
table.sort(ids, idDesc)
local below = before ~= '' and tonumber(before) or nil
local picked = {}
for _, id in ipairs(ids) do
  if #picked > limit then break end
  local v = value[id]
  if (not below or tonumber(id) < below) and (kind == '' or string.sub(v, 2) == kind) and (unread == '' or (unread == '1') == (string.sub(v, 1, 1) == '0')) then
    picked[#picked + 1] = id
  end
end
if #picked <= limit and floor ~= '0' then return '{"s":"short"}' end
local parts = {}
for i = 1, math.min(#picked, limit) do
  local id = picked[i]
  local message = redis.call('GET', prefix .. id)
  if not message then return miss(true) end
  parts[i] = '["' .. id .. '",' .. (string.sub(value[id], 1, 1) == '1' and 'true' or 'false') .. ',' .. message .. ']'
end
return '{"s":"hit","more":' .. (#picked > limit and 'true' or 'false') .. ',"items":[' .. table.concat(parts, ',') .. ']}'
`);

/**
 * Builds the list from Postgres rows read after the epoch `ARGV[1]` was: only if the epoch has not
 * moved since (a send or mark read in between may be missing from the rows), and only when the list
 * is missing (ARGV[2] = '0') or, to repair a stale one, in any case ('1'). ARGV[3] list TTL, ARGV[4]
 * message TTL, ARGV[5] message key prefix, ARGV[6] floor, ARGV[7..] = id, flag .. type, message JSON
 * triples. Answers 1 built, 0 already there, -1 epoch moved.
 */
export const INBOX_LIST_BUILD = `local list = KEYS[1]   -- badge:ib:l:{user}
local epoch = KEYS[2]           -- badge:ib:lep:{user}
local seen, overwrite = ARGV[1], ARGV[2] == '1'
local ttl, messageTtl, prefix = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
if not overwrite and redis.call('EXISTS', list) == 1 then return 0 end
if (redis.call('GET', epoch) or '0') ~= seen then return -1 end
redis.call('DEL', list)
local kv = { '_', ARGV[6] }
for i = 7, #ARGV, 3 do
  kv[#kv + 1] = ARGV[i]; kv[#kv + 1] = ARGV[i + 1]
  redis.call('SET', prefix .. ARGV[i], ARGV[i + 2], 'EX', messageTtl)
end
redis.call('HSET', list, unpack(kv))
redis.call('EXPIRE', list, ttl)
return 1
`;

/** Erasure of the user's inbox: the list goes, and the epoch moves so no rebuild in flight stores one. */
export const INBOX_LIST_ERASE = `redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[1]))
return 1
`;
