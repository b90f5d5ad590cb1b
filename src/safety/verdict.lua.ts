/**
 * What a block's score (its time, ms, about 1.8e12) is multiplied by in `safety_hidden`'s union:
 * enough to beat any mute's end (NEVER, 2^53 ms) and any clock, so every block reads as hidden.
 */
const BLOCK_WEIGHT = 1e7;

/**
 * Lua that other capabilities' scripts prepend to read a user's safety sets (`keys.ts`) inside the
 * script they already run, on that user's database: no round trip of its own. `k` is the table of
 * the four keys `safetyKeysOf(owner)` names, in that order.
 *
 *  - `safety_missing(k)`: true when a set is not cached (the caller answers "miss" with
 *    `redis.call('GET', k[4])`, the epoch, and its TypeScript side rebuilds from Postgres).
 *  - `safety_verdict(k, peer, now)`: what reaches the owner from `peer` — 'blocked' (either
 *    direction), 'muted' (a mute silencing notifications, not ended at `now`, ms), or false.
 *  - `safety_hides(k, author, now)`: the owner must not see `author`'s posts (blocked either way,
 *    or muted and not ended).
 *  - `safety_hidden(k, now)`: every author the owner must not see, at once, for a read that
 *    meets many authors (the badges' "N new posts" and unread per author): 'miss' when a set is
 *    not cached, else a table author → true (empty: nothing hidden). One ZUNION of the three sets,
 *    the blocks weighted above any clock (a block hides whatever its time) and a mute scored by its
 *    end, so "hidden" is "score above now" with no second read. Billed: EXISTS + ZUNION.
 *  - `safety_suspended(list)`: the suspended users a script was handed (`suspendedArg` of the
 *    isolate's copy, src/safety/copy.ts: one ARGV, the ids joined by ','), as a table id → true,
 *    or nil when none is suspended (the common case: nothing parsed). No Redis command: the
 *    suspended set lives on database 0, the caller passes what its isolate holds.
 *  - `safety_add_suspended(hidden, list)`: `hidden` (a `safety_hidden` table, or nil) with the
 *    suspended users added (nil when both are empty): their posts are hidden from every reader.
 * Billed: EXISTS, then 1 to 3 ZSCOREs.
 */
export const SAFETY_LUA = `
local function safety_missing(k)
  return redis.call('EXISTS', k[1], k[2], k[3]) < 3
end
local function safety_verdict(k, peer, now)
  if redis.call('ZSCORE', k[1], peer) or redis.call('ZSCORE', k[2], peer) then return 'blocked' end
  local till = redis.call('ZSCORE', k[3], 'n:' .. peer)
  if till and tonumber(till) > now then return 'muted' end
  return false
end
local function safety_hides(k, author, now)
  if redis.call('ZSCORE', k[1], author) or redis.call('ZSCORE', k[2], author) then return true end
  local till = redis.call('ZSCORE', k[3], author)
  return till ~= false and tonumber(till) > now
end
local function safety_hidden(k, now)
  if redis.call('EXISTS', k[1], k[2], k[3]) < 3 then return 'miss' end
  local flat = redis.call('ZUNION', 3, k[1], k[2], k[3], 'WEIGHTS', ${BLOCK_WEIGHT}, ${BLOCK_WEIGHT}, 1, 'AGGREGATE', 'MAX', 'WITHSCORES')
  local hidden = {}
  for i = 1, #flat, 2 do
    local m = flat[i]
    if tonumber(flat[i + 1]) > now and string.sub(m, 1, 2) ~= 'n:' then hidden[m] = true end
  end
  return hidden
end
local function safety_suspended(list)
  if list == nil or list == '' then return nil end
  local t = {}
  for id in string.gmatch(list, '%d+') do t[id] = true end
  return t
end
local function safety_add_suspended(hidden, list)
  if list == nil or list == '' then return hidden end
  hidden = hidden or {}
  for id in string.gmatch(list, '%d+') do hidden[id] = true end
  return hidden
end
`;
