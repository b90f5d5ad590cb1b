import { readOnlyScript } from "../lib/read-only-scripts";

/**
 * Broadcast scripts. The id set holds two sentinels once built: member "0" at score 0, below every
 * id, and member "top" at +inf, above every id. A ZCOUNT above the user's last-read id always
 * counts "top", so one command tells a lost set (0: cache loss, never "nothing unread") from the
 * unread count (the answer minus one); ZREVRANGE at rank 1 is the newest id, or "0" with none yet.
 */

/**
 * Adds broadcasts: their ids to the id set, trimmed to the newest window, and the JSON of those
 * given one to the items hash (`badge:bc:items`), trimmed to the newest items window. ARGV: window,
 * items window, m, then m ids, then (id, JSON) pairs. Adding is idempotent and only ever adds, so a
 * resync that read Postgres before a new broadcast never removes it.
 */
export const ADD_BROADCASTS = `
local ids, items = KEYS[1], KEYS[2]  -- badge:bc:window, badge:bc:items
local window, itemsWindow, m = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZADD', ids, 0, '0', '+inf', 'top')
for i = 4, 3 + m do redis.call('ZADD', ids, ARGV[i], ARGV[i]) end
-- rank 0 and rank -1 are the sentinels: keep them and the newest \`window\` ids between them
redis.call('ZREMRANGEBYRANK', ids, 1, -(window + 2))
for i = 4 + m, #ARGV, 2 do redis.call('HSET', items, ARGV[i], ARGV[i + 1]) end
if redis.call('HLEN', items) > itemsWindow then
  local kept = redis.call('HKEYS', items)
  table.sort(kept, function(a, b) return tonumber(a) > tonumber(b) end)
  local drop = {}
  for i = itemsWindow + 1, #kept do drop[#drop + 1] = kept[i] end
  redis.call('HDEL', items, unpack(drop))
end
return cjson.encode({ added = m })
`;

/** Raises the user's last-read id to ARGV[1] (never lowers it). */
export const RAISE_BROADCAST_MARKER = `
local markers = KEYS[1]          -- badge:m:{user}
local upTo = tonumber(ARGV[1])   -- new last-read id
local ttl = tonumber(ARGV[2])
local current = tonumber(redis.call('HGET', markers, 'bc') or '0')
if upTo > current then redis.call('HSET', markers, 'bc', ARGV[1]); current = upTo end
redis.call('EXPIRE', markers, ttl)
return cjson.encode({ lastReadId = tostring(current) })
`;

/**
 * Puts back the Postgres marker after a cache loss: only if the marker still holds the first-seen
 * value this request wrote (compare-and-set), so a newer read is never undone.
 */
export const RESTORE_BROADCAST_MARKER = `
local markers = KEYS[1]  -- badge:m:{user}
local expected = ARGV[1] -- first-seen id written by the badges script
local restored = ARGV[2] -- last-read id from Postgres
if redis.call('HGET', markers, 'bc') == expected then redis.call('HSET', markers, 'bc', restored) return 1 end
return 0
`;

/**
 * Shared Lua, read-only: the user's last-read id, the newest broadcast on first sight (a new user
 * counts only broadcasts from then on). Reads \`bcMarker\`, the marker hash's \`bc\` field (false
 * when absent), which the caller has read with whatever else it needs of that hash. Defines locals
 * bcMissing, bcFirstSeen (the id to record as the marker: the caller writes it afterwards, with
 * FIRST_SEEN_SNIPPET, only if the marker is still absent then), bcUnread.
 */
export const BROADCAST_UNREAD_SNIPPET = `
local bcMissing, bcFirstSeen, bcUnread = false, false, 0
local lastRead = bcMarker
if not lastRead then
  lastRead = redis.call('ZREVRANGE', bcIds, 1, 1)[1]
  if lastRead then bcFirstSeen = lastRead end
end
local aboveLastRead = lastRead and redis.call('ZCOUNT', bcIds, '(' .. lastRead, '+inf') or 0
if aboveLastRead == 0 then
  bcMissing, bcFirstSeen = true, false
else
  bcUnread = aboveLastRead - 1
  lastReadId = lastRead
end
`;

/**
 * Shared Lua: records a first-seen marker a read answered from (\`firstSeen\`, '' for none) unless
 * the user has a marker by now (a mark-read, another first read): a marker never moves from here.
 * Defines \`firstSeenSet\` (whether it was recorded: then Postgres is told, \`persistFirstSeen\`).
 */
export const FIRST_SEEN_SNIPPET = `
local firstSeenSet = firstSeen ~= '' and redis.call('HSETNX', markers, 'bc', firstSeen) == 1
if firstSeenSet then redis.call('EXPIRE', markers, ttl) end
`;

/** Records a first-seen marker after a read (GET_BROADCAST_STATE's \`firstSeen\`); answers 1 when recorded. */
export const SET_FIRST_SEEN = `
local markers = KEYS[1]          -- badge:m:{user}
local firstSeen = ARGV[1]        -- the newest broadcast id when the read found no marker
local ttl = tonumber(ARGV[2])    -- per-user TTL
${FIRST_SEEN_SNIPPET}
return firstSeenSet and 1 or 0
`;

/** The user's last-read id (first-seen on first sight: recorded afterwards, SET_FIRST_SEEN) and unread count. Read-only. */
export const GET_BROADCAST_STATE = readOnlyScript(`local markers = KEYS[1]        -- badge:m:{user}
local bcIds = KEYS[2]          -- badge:bc:window
local lastReadId = false
local bcMarker = redis.call('HGET', markers, 'bc')
${BROADCAST_UNREAD_SNIPPET}
return cjson.encode({ missing = bcMissing, firstSeen = bcFirstSeen, unread = bcUnread, lastReadId = lastReadId })
`);

/**
 * One page of broadcasts and the user's state, read-only: the ids from `badge:bc:window` below
 * ARGV[1] ('' for the first page), limit ARGV[2] (+ 1, to tell a next page), their JSON from
 * `badge:bc:items`. Answers JSON `{"s":"hit", unread, lastReadId, firstSeen, more, items:[[id,
 * [title, body, createdAt]]...]}`; `{"s":"short", state…, gap}` when the page needs an id the window
 * may not hold (a full window ran out) or an item missing from the hash (`gap`: older than the
 * items window, or a database that missed it): Postgres answers the page; `{"s":"miss"}` when the
 * id set is missing (broadcastState's resync).
 */
export const LIST_BROADCASTS = readOnlyScript(`local markers = KEYS[1]  -- badge:m:{user}
local bcIds = KEYS[2]          -- badge:bc:window
local items = KEYS[3]          -- badge:bc:items
local before, limit, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local lastReadId = false
local bcMarker = redis.call('HGET', markers, 'bc')
${BROADCAST_UNREAD_SNIPPET}
if bcMissing then return '{"s":"miss"}' end
local state = '"unread":' .. bcUnread .. ',"lastReadId":"' .. lastReadId .. '","firstSeen":' .. (bcFirstSeen and ('"' .. bcFirstSeen .. '"') or 'false')
local ids = redis.call('ZREVRANGEBYSCORE', bcIds, before == '' and '(+inf' or '(' .. before, '(0', 'LIMIT', 0, limit + 1)
if #ids <= limit and redis.call('ZCARD', bcIds) >= window + 2 then return '{"s":"short","gap":false,' .. state .. '}' end
local page = {}
for i = 1, math.min(#ids, limit) do page[i] = ids[i] end
local parts = {}
if #page > 0 then
  local found = redis.call('HMGET', items, unpack(page))
  for i = 1, #page do
    if not found[i] then return '{"s":"short","gap":true,' .. state .. '}' end
    parts[i] = '["' .. page[i] .. '",' .. found[i] .. ']'
  end
end
return '{"s":"hit",' .. state .. ',"more":' .. (#ids > limit and 'true' or 'false') .. ',"items":[' .. table.concat(parts, ',') .. ']}'
`);
