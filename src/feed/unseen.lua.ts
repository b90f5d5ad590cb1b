import { readOnlyScript } from "../lib/read-only-scripts";
import { SAFETY_LUA } from "../safety/verdict.lua";

/**
 * The `feed` badge's Lua, owned by the feed (its keys, its merge) and used by the badges' scripts:
 * the badges read model imports this module, the feed imports nothing of the badges.
 *
 * The badge counts the posts newer than the reader's marker (`feedKeys.seen`: the merged first
 * page's newest post id when it was last read) as the merged home page shows them: on the
 * reader's timeline or in the outboxes of the big accounts they follow (`feedKeys.bigFollows`),
 * at most `maxPulled` of them, the most recently active first (`feedKeys.activity`), as the page
 * merges them. Members are unique across sources (a post pushed before its author became big is in
 * both). No marker: every post counts (the timeline's sentinels sit at score 0, below every post);
 * no timeline: 0.
 */

/**
 * Defines `feed_unseen(k, limit)`; `k` = {seen, tl, bigset, activity, outboxPrefix, maxPulled,
 * hidden}. `hidden` (optional: src/safety's `safety_hidden` table of the reader) leaves out the
 * posts of authors the reader's blocks and mutes hide, and those big accounts' outboxes.
 * Returns the count (stopping at `limit`) and the reader's big accounts (the set's members, the
 * hidden ones left out).
 * Billed: GET + SMEMBERS + ZCOUNT for a reader following no big account (or none with a post above
 * the marker: + ZMSCORE); else GET + SMEMBERS + ZMSCORE + ZRANGEBYSCORE of the timeline + one
 * ZRANGEBYSCORE per outbox with news, most recently active first, until `limit` is reached
 * (+ EXISTS when the timeline has nothing above the marker). With authors hidden: the ZCOUNT is a
 * ZRANGEBYSCORE of the rows above the marker (same count of commands).
 */
export const FEED_UNSEEN_FUNCTION = `
local function feed_unseen(k, limit)
  local marker = redis.call('GET', k.seen) or '0'
  local bigs = redis.call('SMEMBERS', k.bigset)
  local hidden = k.hidden
  if hidden and next(hidden) == nil then hidden = nil end
  if hidden then
    -- A hidden big account is neither counted nor answered (a hub moves nobody's badge for its posts).
    local shown = {}
    for _, b in ipairs(bigs) do
      if not hidden[b] then shown[#shown + 1] = b end
    end
    bigs = shown
  end
  local news = {}
  if #bigs > 0 then
    local acts = redis.call('ZMSCORE', k.activity, unpack(bigs))
    local order = {}
    for i = 1, #bigs do
      if acts[i] then order[#order + 1] = {bigs[i], tonumber(acts[i])} end
    end
    table.sort(order, function(a, b) return a[2] > b[2] end)
    local m = tonumber(marker)
    for i = 1, math.min(#order, k.maxPulled) do
      if order[i][2] <= m then break end
      news[#news + 1] = order[i][1]
    end
  end
  if #news == 0 and not hidden then
    return math.min(limit, redis.call('ZCOUNT', k.tl, '(' .. marker, '+inf')), bigs
  end
  -- With authors hidden, every row above the marker is read (the timeline's cap bounds them) and
  -- a hidden author's rows are skipped (members are \`postId:authorId\`).
  local rows = hidden and redis.call('ZRANGEBYSCORE', k.tl, '(' .. marker, '+inf')
    or redis.call('ZRANGEBYSCORE', k.tl, '(' .. marker, '+inf', 'LIMIT', 0, limit)
  if #rows == 0 and #news > 0 and redis.call('EXISTS', k.tl) == 0 then return 0, bigs end
  local seen, n = {}, 0
  for _, member in ipairs(rows) do
    if n >= limit then break end
    if not (hidden and hidden[string.match(member, ':(%d+)$')]) then
      seen[member] = true
      n = n + 1
    end
  end
  for _, author in ipairs(news) do
    if n >= limit then break end
    for _, member in ipairs(redis.call('ZRANGEBYSCORE', k.outboxPrefix .. author, '(' .. marker, '+inf', 'LIMIT', 0, limit)) do
      if not seen[member] then
        seen[member] = true
        n = n + 1
      end
    end
  end
  return math.min(n, limit), bigs
end
`;

/**
 * Defines `merged_top(tl, bigset, activity)`: the newest post id (as Redis prints the score) of the
 * merged page — the timeline's top or a followed big account's newest post, whichever is newer —
 * or nil when the timeline does not exist. What a first-page read (and a build) sets the marker to.
 * Billed: ZRANGE + SMEMBERS (+ ZMSCORE).
 */
export const MERGED_TOP_FUNCTION = `
local function merged_top(tl, bigset, activity)
  local top = redis.call('ZRANGE', tl, -1, -1, 'WITHSCORES')[2]
  if not top then return nil end
  local bigs = redis.call('SMEMBERS', bigset)
  if #bigs > 0 then
    for _, score in ipairs(redis.call('ZMSCORE', activity, unpack(bigs))) do
      if score and tonumber(score) > tonumber(top) then top = score end
    end
  end
  return top
end
`;

/**
 * The reader's hidden authors for a live push's `feed` read (KEYS from `safetyKeysOf`), and the
 * suspended users (`sus`: src/safety's `suspendedArg`, from the hub's copy): their sets not cached
 * (a week without a badges or feed read, which rebuild them) count unfiltered but for the
 * suspended until the next such read. Billed: EXISTS + ZUNION.
 */
const LIVE_HIDDEN = `${SAFETY_LUA}
local function live_hidden(k, now, sus)
  local hidden = safety_hidden(k, now)
  if hidden == 'miss' then hidden = nil end
  return safety_add_suspended(hidden, sus)
end
`;

/**
 * The `feed` badge alone, for a live push, with the reader's big accounts (the hub keeps them to
 * move the badge in place when one of them posts). KEYS: feed:seen:{user}, feed:tl:{user},
 * feed:bf:{user}, feed:act, then the reader's four safety keys. ARGV: outbox key prefix, maxPulled,
 * limit, the safety clock (ms), the suspended users (ids joined by ','). Returns {count, bigs}.
 * Read-only (`no-writes`): a read region can answer it (sent as EVALSHA_RO). Billed: EVALSHA + LIVE_HIDDEN's + feed_unseen's.
 */
export const GET_FEED_UNSEEN = readOnlyScript(`${FEED_UNSEEN_FUNCTION}${LIVE_HIDDEN}
local hidden = live_hidden({KEYS[5], KEYS[6], KEYS[7], KEYS[8]}, tonumber(ARGV[4]), ARGV[5])
local count, bigs = feed_unseen({seen = KEYS[1], tl = KEYS[2], bigset = KEYS[3], activity = KEYS[4], outboxPrefix = ARGV[1], maxPulled = tonumber(ARGV[2]), hidden = hidden}, tonumber(ARGV[3]))
return {count, bigs}
`);

/**
 * The `feed` badge of many users in one request: a fan-out page reaches many online followers of
 * one hub, and a request each would queue behind the Workers' few simultaneous connections.
 * KEYS: feed:act, then per user feed:seen:{user}, feed:tl:{user}, feed:bf:{user} and the user's
 * four safety keys. ARGV as GET_FEED_UNSEEN. Returns the counts in user order. Read-only, sent as
 * EVALSHA_RO (`readFeedUnseenMany`). Billed: EVALSHA + LIVE_HIDDEN's and feed_unseen's per user.
 */
export const GET_FEED_UNSEEN_MANY = readOnlyScript(`${FEED_UNSEEN_FUNCTION}${LIVE_HIDDEN}
local counts = {}
local now = tonumber(ARGV[4])
for i = 2, #KEYS, 7 do
  local hidden = live_hidden({KEYS[i + 3], KEYS[i + 4], KEYS[i + 5], KEYS[i + 6]}, now, ARGV[5])
  counts[#counts + 1] = feed_unseen({seen = KEYS[i], tl = KEYS[i + 1], bigset = KEYS[i + 2], activity = KEYS[1], outboxPrefix = ARGV[1], maxPulled = tonumber(ARGV[2]), hidden = hidden}, tonumber(ARGV[3]))
end
return counts
`);
