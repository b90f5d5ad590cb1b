import { readOnlyScript } from "../lib/read-only-scripts";

/**
 * The follower and following list caches (`keys.ts`, `followListKeys`). A list holds exactly the
 * owner's newest M edges (M ≤ its cap): member = the other user's id padded to 19 digits, score =
 * the follow time in µs, and one sentinel at score -1 (`#all`: M is the whole list; `#top`: older
 * edges are in Postgres only).
 */

/**
 * One page of a list, newest first, read-only (EVALSHA_RO: the nearest read region answers it).
 *
 * KEYS: list, epoch. ARGV[1] = limit, ARGV[2] = the cursor's follow time (µs; '' on a first page),
 * ARGV[3] = the cursor's padded id ('' on a first page), ARGV[4] = suspended ids joined by ','
 * (`suspendedArg`; '' when none): skipped, and the scan goes on so the page stays full.
 *
 * Answers JSON: `{s:'page', items:[member, µs, …], more}` when the cache answers the page
 * (`more`: a limit + 1st edge exists, its items are the first `limit`); `{s:'past', cached, epoch}`
 * when the page runs past the oldest entry of a `#top` list (Postgres answers it); `{s:'miss',
 * epoch}` when the list is not cached (the epoch for the build after the answer).
 * Billed: 2 ZSCOREs + ⌈(edges scanned) / (limit + 11)⌉ ZREVRANGEBYSCOREs (+ GET on a miss, ZCARD + GET past the cache).
 */
export const READ_FOLLOW_PAGE = readOnlyScript(`
local list = KEYS[1]
local state
if redis.call('ZSCORE', list, '#all') then state = 'all' elseif redis.call('ZSCORE', list, '#top') then state = 'top' end
if not state then return cjson.encode({s = 'miss', epoch = redis.call('GET', KEYS[2]) or ''}) end
local want = tonumber(ARGV[1]) + 1
local afterScore = nil
if ARGV[2] ~= '' then afterScore = tonumber(ARGV[2]) end
local afterMember = ARGV[3]
local suspended = nil
if ARGV[4] ~= '' then
  suspended = {}
  for id in string.gmatch(ARGV[4], '%d+') do suspended[id] = true end
end
local max = '+inf'
if afterScore then max = ARGV[2] end
local items = {}
local offset = 0
local chunk = want + 10
local full = false
while true do
  local got = redis.call('ZREVRANGEBYSCORE', list, max, 0, 'WITHSCORES', 'LIMIT', offset, chunk)
  for i = 1, #got, 2 do
    local m, score = got[i], tonumber(got[i + 1])
    -- Keyset: strictly after the cursor in (score desc, member desc); only equal scores need the member.
    if not (afterScore and score == afterScore and m >= afterMember) and not (suspended and suspended[string.match(m, '^0*(%d+)$')]) then
      items[#items + 1] = m
      items[#items + 1] = string.format('%.0f', score)
      if #items == want * 2 then full = true break end
    end
  end
  if full or #got < chunk * 2 then break end
  offset = offset + chunk
end
if full then
  -- the limit + 1st item only says there is a next page
  items[#items] = nil
  items[#items] = nil
  return cjson.encode({s = 'page', items = items, more = true})
end
if state == 'all' then return cjson.encode({s = 'page', items = items, more = false}) end
return cjson.encode({s = 'past', cached = redis.call('ZCARD', list) - 1, epoch = redis.call('GET', KEYS[2]) or ''})
`);

/**
 * Applies one follow or unfollow to one list, atomically, in the order-free way the bus needs (two
 * requests' events may land in either order, and a failed write is retried): an edge is identified
 * by its pair and follow time, and a later follow of the pair has a later time.
 * - add: skipped when the list is not cached (its build reads Postgres, which has the edge), when
 *   the unfollow of this edge or a later one was applied already (the unfollowed set), when the
 *   list holds the pair at this time or later, and when the list is `#top` and the edge is older
 *   than its oldest entry (it would leave a gap); else added, and the oldest past the cap trimmed
 *   (the sentinel becomes `#top`).
 * - rem: records the edge in the unfollowed set (cache or no cache), and removes the pair when the
 *   list holds it at this time or earlier (a re-follow's newer entry stays). An edge beyond the
 *   cached ones is simply not there.
 * An event without the follow time (one emitted before it carried it) drops the list on add (the
 * next read builds it) and removes the pair on rem. Either way the owner's epoch is INCR'd, so a
 * build that read Postgres before this change stores nothing.
 *
 * KEYS: list, unfollowed, epoch. ARGV: op ('add'|'rem'), padded id, µs ('' unknown), cap,
 * unfollowed TTL, unfollowed cap, epoch TTL. Returns 1 when the list changed.
 * Billed: INCR + EXPIRE + EXISTS + 2–3 ZSCOREs (+ ZRANGE on `#top`) + ZADD + ZCARD (+ ZREMRANGEBYRANK, ZREM, ZADD when trimming);
 * an unfollow: ZSCORE + ZADD + ZCARD + EXPIRE + EXISTS + ZSCORE + ZREM.
 */
export const WRITE_FOLLOW_EDGE = `
local list, gone, epoch = KEYS[1], KEYS[2], KEYS[3]
local op, member = ARGV[1], ARGV[2]
local score = nil
if ARGV[3] ~= '' then score = tonumber(ARGV[3]) end
redis.call('INCR', epoch)
redis.call('EXPIRE', epoch, ARGV[7])
local cached = redis.call('EXISTS', list) == 1
if op == 'add' then
  if not cached then return 0 end
  if not score then
    redis.call('DEL', list)
    return 1
  end
  local removed = redis.call('ZSCORE', gone, member)
  if removed and tonumber(removed) >= score then return 0 end
  local current = redis.call('ZSCORE', list, member)
  if current and tonumber(current) >= score then return 0 end
  if redis.call('ZSCORE', list, '#top') then
    local oldest = redis.call('ZRANGE', list, 1, 1, 'WITHSCORES')
    if oldest[2] and score < tonumber(oldest[2]) then return 0 end
  end
  redis.call('ZADD', list, score, member)
  local extra = redis.call('ZCARD', list) - 1 - tonumber(ARGV[4])
  if extra > 0 then
    -- rank 0 is the sentinel (score -1): the oldest edges are above it
    redis.call('ZREMRANGEBYRANK', list, 1, extra)
    if redis.call('ZREM', list, '#all') == 1 then redis.call('ZADD', list, -1, '#top') end
  end
  return 1
end
if score then
  local before = redis.call('ZSCORE', gone, member)
  if not before or tonumber(before) < score then redis.call('ZADD', gone, score, member) end
  local extra = redis.call('ZCARD', gone) - tonumber(ARGV[6])
  if extra > 0 then redis.call('ZREMRANGEBYRANK', gone, 0, extra - 1) end
  redis.call('EXPIRE', gone, ARGV[5])
end
if not cached then return 0 end
local current = redis.call('ZSCORE', list, member)
if current and (not score or tonumber(current) <= score) then
  redis.call('ZREM', list, member)
  return 1
end
return 0
`;

/**
 * Stores a list as Postgres answered it, only if the owner's epoch is still the one read before
 * Postgres was (a follow or unfollow in between means the answer may be older than the cache must
 * be; the next read builds again).
 *
 * KEYS: list, epoch. ARGV[1] = the epoch read before Postgres ('' when there was none), ARGV[2] =
 * TTL, ARGV[3] = the sentinel (`#all` or `#top`), then (µs, padded id) pairs.
 * Returns 1 when stored, 0 when a write raced it.
 */
export const BUILD_FOLLOW_LIST = `
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[1], -1, ARGV[3])
-- in chunks: Lua's unpack has a stack limit well under a 1,000-edge list
local i = 4
while i <= #ARGV do
  local last = math.min(i + 999, #ARGV)
  local args = {}
  for j = i, last do args[#args + 1] = ARGV[j] end
  redis.call('ZADD', KEYS[1], unpack(args))
  i = last + 1
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
`;
