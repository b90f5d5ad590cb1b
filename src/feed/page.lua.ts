import { COUNTER_CACHE_READER } from "../counters/read.lua";
import { NO_WRITES_SHEBANG as NO_WRITES } from "../lib/read-only-scripts";
import { SAFETY_LUA } from "../safety/verdict.lua";
import { TIMELINE_RENEW_AFTER_SECONDS } from "./keys";
import { MERGED_TOP_FUNCTION } from "./unseen.lua";

/**
 * Every page script is read-only (\`#!lua flags=no-writes\`, called with EVALSHA_RO: a read region of
 * a Global database answers it, docs/regions.md#reads-near-the-user). What a page used to write in passing
 * — dropping tombstoned members, renewing TTLs, marking a timeline as building — it now reports,
 * and the Worker sends it as a write of its own (\`UPKEEP_TIMELINE\`, \`MARK_BUILDING\`), only when
 * there is something to write. A ranking is stored nowhere: its cursor carries it (ranked-cursor.ts).
 */
/**
 * Lua functions of a page, shared by the chronological read, the build and the ranked read. `cfg`
 * is a table: tl (feed:tl:{user}), flags (feed:rx:{user}), bigset (feed:bf:{user}), activity
 * (feed:act), outboxPrefix, maxPulled, ttl, postPrefix, counterPrefix, fields (post counter fields).
 *
 * merged_members(cfg, max, want): the `want` newest members below `max` of the user's timeline
 * merged with the outboxes of the big accounts they follow — at most `maxPulled` of them, the most
 * recently active first (activity = the account's newest post id). An outbox is read only while it
 * can still beat the want-th candidate: accounts come in activity order, so the first that cannot
 * ends the merge. Members are unique (a post pushed before its author became big is in both).
 * Billed: ZREVRANGEBYSCORE + SMEMBERS (+ ZMSCORE + one ZREVRANGEBYSCORE per outbox read).
 *
 * With \`given\` ({rows, bigs}: a build's newest rows below \`max\`, newest first, as member, score
 * pairs, and its big followees), the timeline and the pulled set are taken from it instead of
 * Redis: a cold page answered from what its build read, while the build is written beside it.
 *
 * hydrate(cfg, members): each member's post cache entry, its cached counters (the counters
 * capability's reader: one cache, one never-double-count rule) and the reader's flag fields
 * (members are \`postId:authorId\`, or bare post ids: a ranked next page's, from its cursor). A
 * tombstoned post (\`d\`) comes back as such: the Worker leaves it out and drops it from the timeline
 * (\`UPKEEP_TIMELINE\`). Billed: MGET + counters' reader + HMGET.
 *
 * renewal_due(cfg): whether a read should renew the TTLs that keep an active reader's timeline and
 * big-account set alive (7 days): when less than TIMELINE_TTL - TIMELINE_RENEW_AFTER (6 days) is
 * left on a timeline that holds posts, or the set has none. The renewal is a write of its own, so
 * a reader reading every day costs one write a day, not one per page. Billed: ZCARD + TTL + TTL.
 */
export const PAGE_FUNCTIONS = `${COUNTER_CACHE_READER}${SAFETY_LUA}
local function by_score_desc(a, b) return a[2] > b[2] end

-- Whether the reader must not see \`author\`'s posts (src/safety: blocked either way, or muted and
-- not ended, or suspended: cfg.suspendedList, the ids the Worker's copy handed in), answered once per
-- author per call. Nothing to hide (every set holds only its sentinel and nobody is suspended, the
-- common case) costs three ZCARDs for the whole page.
local function safety_filter(cfg)
  if cfg.hidden ~= nil then return cfg.hidden end
  local k = cfg.safety
  local sus = safety_suspended(cfg.suspendedList)
  if not k or (redis.call('ZCARD', k[1]) <= 1 and redis.call('ZCARD', k[2]) <= 1 and redis.call('ZCARD', k[3]) <= 1) then
    k = nil
  end
  if not k and not sus then
    cfg.hidden = false
    return false
  end
  local known = {}
  cfg.hidden = function(author)
    local v = known[author]
    if v == nil then
      v = (sus ~= nil and sus[author] == true) or (k ~= nil and safety_hides(k, author, cfg.now))
      known[author] = v
    end
    return v
  end
  return cfg.hidden
end

local function author_of(member) return string.match(member, ':(%d+)$') end

-- The timeline's newest rows below max (member, score, flat), at most \`want\` of them, leaving out
-- hidden authors' posts and reading on past them, so a page stays full and its cursor (the last
-- member served) right. \`rows\`: a build's rows instead of the timeline.
local function timeline_rows(cfg, max, want, rows)
  local hidden = safety_filter(cfg)
  if not hidden then
    if rows then return rows end
    return redis.call('ZREVRANGEBYSCORE', cfg.tl, max, '(0', 'WITHSCORES', 'LIMIT', 0, want)
  end
  local out = {}
  local function keep(chunk)
    for i = 1, #chunk, 2 do
      if #out >= 2 * want then return end
      if not hidden(author_of(chunk[i])) then
        out[#out + 1] = chunk[i]
        out[#out + 1] = chunk[i + 1]
      end
    end
  end
  if rows then
    keep(rows)
    return out
  end
  local offset = 0
  while #out < 2 * want do
    local chunk = redis.call('ZREVRANGEBYSCORE', cfg.tl, max, '(0', 'WITHSCORES', 'LIMIT', offset, want)
    keep(chunk)
    if #chunk < 2 * want then break end
    offset = offset + want
  end
  return out
end

local function merged_members(cfg, max, want, given)
  local bigs = given and given.bigs or redis.call('SMEMBERS', cfg.bigset)
  local hidden = safety_filter(cfg)
  if #bigs == 0 then
    -- The timeline alone: already newest first, nothing to merge or sort.
    if not given and not hidden then return redis.call('ZREVRANGEBYSCORE', cfg.tl, max, '(0', 'LIMIT', 0, want) end
    local rows = timeline_rows(cfg, max, want, given and given.rows)
    local members = {}
    for i = 1, math.min(#rows, 2 * want), 2 do members[#members + 1] = rows[i] end
    return members
  end
  local cands, seen = {}, {}
  local rows = timeline_rows(cfg, max, want, given and given.rows)
  for i = 1, math.min(#rows, 2 * want), 2 do
    seen[rows[i]] = true
    cands[#cands + 1] = {rows[i], tonumber(rows[i + 1])}
  end
  local acts = redis.call('ZMSCORE', cfg.activity, unpack(bigs))
  local order = {}
  for i = 1, #bigs do
    -- A hidden big account's outbox is not read at all.
    if acts[i] and not (hidden and hidden(bigs[i])) then order[#order + 1] = {bigs[i], tonumber(acts[i])} end
  end
  table.sort(order, by_score_desc)
  local below = max == '+inf' and math.huge or tonumber(string.sub(max, 2))
  for i = 1, math.min(#order, cfg.maxPulled) do
    if #cands >= want and math.min(order[i][2], below) <= cands[want][2] then break end
    local ob = redis.call('ZREVRANGEBYSCORE', cfg.outboxPrefix .. order[i][1], max, '(0', 'WITHSCORES', 'LIMIT', 0, want)
    for j = 1, #ob, 2 do
      if not seen[ob[j]] then
        seen[ob[j]] = true
        cands[#cands + 1] = {ob[j], tonumber(ob[j + 1])}
      end
    end
    table.sort(cands, by_score_desc)
    for k = #cands, want + 1, -1 do cands[k] = nil end
  end
  -- Sorted already: the timeline's rows came newest first and each merge sorted again.
  local members = {}
  for i = 1, math.min(#cands, want) do members[i] = cands[i][1] end
  return members
end

local function hydrate(cfg, members)
  if #members == 0 then return {members = {}} end
  local postKeys, counterKeys, flagFields = {}, {}, {'f', 'x'}
  for i, m in ipairs(members) do
    local id = string.match(m, '^(%d+)')
    postKeys[i] = cfg.postPrefix .. id
    counterKeys[i] = cfg.counterPrefix .. id
    flagFields[#flagFields + 1] = 'l' .. id
    flagFields[#flagFields + 1] = 'v' .. id
  end
  local posts = redis.call('MGET', unpack(postKeys))
  local counts = read_counter_caches(counterKeys, cfg.fields)
  local fl = redis.call('HMGET', cfg.flags, unpack(flagFields))
  return {members = members, posts = posts, counts = counts, flags = fl}
end

-- A TTL that asks for a renewal: none (-1), or below the mark (-2: no key, nothing to renew).
local function ttl_due(ttl, below) return ttl == -1 or (ttl >= 0 and ttl < below) end

local function renewal_due(cfg)
  local below = tonumber(cfg.ttl) - ${TIMELINE_RENEW_AFTER_SECONDS}
  if redis.call('ZCARD', cfg.tl) > 1 and ttl_due(redis.call('TTL', cfg.tl), below) then return true end
  return ttl_due(redis.call('TTL', cfg.bigset), below)
end

-- One page below max: the members, hydrated, whether more follow and whether the TTLs are due
-- (not for a build's rows: its own write sets them).
local function serve_page(cfg, max, limit, given)
  local members = merged_members(cfg, max, limit + 1, given)
  local more = #members > limit
  if more then members[#members] = nil end
  local page = hydrate(cfg, members)
  page.more = more
  if not given then page.renew = renewal_due(cfg) end
  return page
end
`;

/**
 * The `cfg` table of PAGE_FUNCTIONS from KEYS[1..5] and ARGV[a..]: ttl, postPrefix, counterPrefix,
 * outboxPrefix, maxPulled, nfields, fields. Sets `nextArg`. With cold_unless_built and marker_view
 * (merged_top's, defined first).
 */
export const READ_CONFIG = `${MERGED_TOP_FUNCTION}
local function read_config(a)
  local cfg = {tl = KEYS[1], flags = KEYS[2], epoch = KEYS[3], bigset = KEYS[4], activity = KEYS[5]}
  -- KEYS[7..10]: the reader's safety sets (src/safety/keys.ts: safetyKeysOf), on the reader's database.
  if KEYS[10] then cfg.safety = {KEYS[7], KEYS[8], KEYS[9], KEYS[10]} end
  cfg.ttl = ARGV[a]
  cfg.postPrefix = ARGV[a + 1]
  cfg.counterPrefix = ARGV[a + 2]
  cfg.outboxPrefix = ARGV[a + 3]
  cfg.maxPulled = tonumber(ARGV[a + 4])
  local n = tonumber(ARGV[a + 5])
  cfg.fields = {}
  for i = 1, n do cfg.fields[i] = ARGV[a + 5 + i] end
  cfg.now = tonumber(ARGV[a + 6 + n]) -- ms, the safety clock (a mute's end)
  cfg.suspendedList = ARGV[a + 7 + n] -- src/safety's suspended users (ids joined by ','), from the Worker's copy
  cfg.nextArg = a + 8 + n
  return cfg
end

-- A timeline not built yet answers {cold}: the Worker marks it as building (MARK_BUILDING, a
-- write), reads Postgres and writes the build (INIT_TIMELINE). The reader's safety sets not cached
-- answer {safetyMiss, epoch}: the Worker rebuilds them from Postgres (src/safety/cache.ts) and reads again.
local function cold_unless_built(cfg)
  if cfg.safety and safety_missing(cfg.safety) then return cjson.encode({safetyMiss = true, epoch = redis.call('GET', cfg.safety[4]) or ''}) end
  if redis.call('ZSCORE', cfg.tl, '0') then return nil end
  return cjson.encode({cold = true})
end

-- A first page's view of the \`feed\` badge's marker (KEYS[6], feed:seen:{user}): the merged page's
-- newest post id the page saw and the marker, so the Worker moves the marker (RESET_UNSEEN) only
-- when they differ. Billed: ZRANGE + SMEMBERS (+ ZMSCORE) + GET.
local function marker_view(cfg, page)
  page.top = merged_top(cfg.tl, cfg.bigset, cfg.activity) or false
  page.marker = redis.call('GET', KEYS[6]) or false
  return page
end
`;
/** KEYS of every page script: timeline, flags, unfollow epoch, big-account set, activity, the \`feed\` badge's marker, then the reader's four safety keys. */
export const PAGE_KEY_COUNT = 10;

/**
 * The chronological home page: one read-only call serves a warm page (timeline merged with pulled
 * outboxes). ARGV: max ('+inf' | '(' .. cursor id), limit, first ('1': answer the marker view, see
 * marker_view; '' otherwise), then the config (see READ_CONFIG), then — a cold page answered from
 * its build — nbig, the build's big followees, and its rows below max (member, score), newest first.
 */
export const READ_PAGE = `${NO_WRITES}${PAGE_FUNCTIONS}${READ_CONFIG}
local max = ARGV[1]
local limit = tonumber(ARGV[2])
local first = ARGV[3] == '1'
local cfg = read_config(4)
local given
if #ARGV >= cfg.nextArg then
  local a = cfg.nextArg
  local nbig = tonumber(ARGV[a])
  given = {bigs = {unpack(ARGV, a + 1, a + nbig)}, rows = {unpack(ARGV, a + 1 + nbig)}}
  if cfg.safety and safety_missing(cfg.safety) then return cjson.encode({safetyMiss = true, epoch = redis.call('GET', cfg.safety[4]) or ''}) end
else
  local cold = cold_unless_built(cfg)
  if cold then return cold end
end
local page = serve_page(cfg, max, limit, given)
if first and not given then marker_view(cfg, page) end
return cjson.encode(page)
`;

/**
 * rank_candidates(cfg, members, now, at): what a ranked first page computes, over the candidates
 * one database holds — all of them at N = 1 (READ_RANKED), the reader's database's share at N > 1
 * (the Worker scores the others' the same way: `scoreOf` in timeline.ts). Needs cfg.postPrefix,
 * cfg.counterPrefix, cfg.fields (only their number).
 */
export const RANKING_FUNCTIONS = `
-- rank_candidates(cfg, members, now, at): the candidates (members, newest first) in ranked order
-- as indices into members, those whose post or counters are not cached, what was read for them
-- (post entries, packed counters), each ranked candidate's score (scoreOf[k] is order[k]'s) and the
-- tombstoned candidates (the Worker drops them from the timeline). It reads what a score needs and nothing more: the posts
-- (creation time, tombstones) and three counter fields (at: positions of likes, comments,
-- forwards) — no flags. Ties keep the newer post first, so the order is total and repeatable: the
-- distinct scores are sorted as plain numbers (no Lua comparator) and each score's candidates
-- follow in the order they came, newest first. Read-only: the caller drops the tombstoned ones.
-- Billed: MGET + counters' MGET.
local function rank_candidates(cfg, members, now, at)
  local match, tonum, max, sqrt = string.match, tonumber, math.max, math.sqrt
  local postKeys, counterKeys = {}, {}
  for i, m in ipairs(members) do
    local id = match(m, '^(%d+):')
    postKeys[i] = cfg.postPrefix .. id
    counterKeys[i] = cfg.counterPrefix .. id
  end
  local posts = redis.call('MGET', unpack(postKeys))
  local cols, packed = read_counter_columns(counterKeys, #cfg.fields, at)
  local likes, comments, forwards = cols[1], cols[2], cols[3]
  -- first[score]: the first candidate with that score; after[i]: the next one with i's score;
  -- tail[f]: the last one chained behind first f (ties are rare: only they pay for the chain).
  local first, after, tail, scores, nscores, gone, missing = {}, {}, {}, {}, 0, {}, {}
  for i = 1, #members do
    local post = posts[i]
    if post == 'd' then
      gone[#gone + 1] = members[i]
    elseif post and likes[i] then
      -- The cached post is JSON [authorId, text, createdAt, createdAtMs]: its last element, found
      -- from the end without decoding the text (an entry without it ages from now).
      local created = tonum(match(post, ',(%-?%d+)%]$', -24)) or now
      local ageHours = max(0, now - created) / 3600000
      local engagement = 1 + likes[i] + 2 * comments[i] + 3 * forwards[i]
      -- (age + 2)^1.5 as base · sqrt(base): IEEE operations only, so the Worker's rankScore
      -- computes the very same double (C's pow and V8's differ in the last bit for ~9% of inputs).
      local base = ageHours + 2
      local score = engagement / (base * sqrt(base))
      local f = first[score]
      if f then
        after[tail[f] or f] = i
        tail[f] = i
      else
        first[score] = i
        nscores = nscores + 1
        scores[nscores] = score
      end
    else
      missing[#missing + 1] = members[i]
    end
  end
  table.sort(scores)
  local order, scoreOf, n = {}, {}, 0
  for k = nscores, 1, -1 do
    local score = scores[k]
    local i = first[score]
    while i do
      n = n + 1
      order[n] = i
      scoreOf[n] = score
      i = after[i]
    end
  end
  return order, missing, posts, packed, scoreOf, gone
end

-- One database's ranking as the Worker merges it (N > 1): out.order (indices into the members
-- ranked), out.scores (each one's score as '%.17g' text: the exact double), and for the first
-- \`limit\` of them out.posts and out.counts (post entries, packed counters).
local function ranking_answer(out, order, scoreOf, posts, packed, limit)
  out.order, out.scores, out.posts, out.counts = order, {}, {}, {}
  for k = 1, #order do out.scores[k] = string.format('%.17g', scoreOf[k]) end
  for k = 1, math.min(limit, #order) do
    out.posts[k] = posts[order[k]]
    out.counts[k] = packed[order[k]]
  end
  return out
end

`;

/**
 * The ranked home page, read-only. A first page (no cursor) scores the RANKED_CANDIDATES newest
 * items of the merged timeline — `(1 + likes + 2·comments + 3·forwards) / (age_hours + 2)^1.5`
 * from the cached counters and the post's creation time — and answers its first page with the
 * ids of the rest of the ranking (\`rest\`, ranked order) and the tombstoned candidates (\`gone\`):
 * the Worker puts \`rest\` in the cursor (ranked-cursor.ts), and a later page (mode 'page') hydrates
 * exactly the ids of its slice, given after the config, so items never move between pages while
 * the user scrolls. Candidates whose post or counters are not cached come back as \`missing\` (the
 * caller fills them and asks again).
 * Mode 'members' (N > 1): the candidates' post ids (\`ids\`, newest first: the Worker needs no
 * more of them, and a page or an upkeep takes bare ids) and the reader's flags for them (\`flags\`:
 * the hash's f and x; \`on\`: 2p + 1 for a liked candidate at 0-based place p, 2p + 2 for a
 * favourited one), and this database's own share of the ranking (\`order\`, \`scores\`, \`posts\`,
 * \`counts\`, \`gone\`: see ranking_answer); the Worker scores the other databases' candidates
 * (from its copies, or one MGET per database) and merges them.
 * ARGV: mode ('new'|'page'|'members'), limit, first ('1': answer the marker view), now (ms),
 * candidates, likes/comments/forwards positions in the fields, then the config, then (mode 'page')
 * the ranking's post ids not shown yet: the page serves the first \`limit\` the reader's safety sets
 * let through (\`ranked_slice\`) and answers \`used\`, how many ids it took (a block or mute made
 * mid-walk holds on every later page; the sets not cached answer \`safetyMiss\`).
 */
export const READ_RANKED = `${NO_WRITES}${PAGE_FUNCTIONS}${READ_CONFIG}${RANKING_FUNCTIONS}
-- The first ranked page, hydrated from what the ranking read (the same call, so the same values
-- hydrate() would read again) and the reader's flags. Billed: HMGET.
local function ranked_page(cfg, members, order, posts, packed, limit)
  if #order == 0 then return {members = {}} end
  local page = {members = {}, posts = {}, counts = {}}
  local flagFields = {'f', 'x'}
  for k = 1, math.min(limit, #order) do
    local i = order[k]
    page.members[k] = members[i]
    page.posts[k] = posts[i]
    page.counts[k] = unpack_counters(packed[i], #cfg.fields) or false
    local id = string.match(members[i], '^(%d+):')
    flagFields[#flagFields + 1] = 'l' .. id
    flagFields[#flagFields + 1] = 'v' .. id
  end
  page.flags = redis.call('HMGET', cfg.flags, unpack(flagFields))
  return page
end

-- A later page's slice: the first \`limit\` of \`ids\` (the ranking's ids not shown yet, ranked)
-- whose author the reader's safety sets do not hide, as members, and how many ids that took — so
-- a block or mute made after the first page holds on every later one, in the call the page makes
-- anyway, and the page stays full. An id's author is found on this database (the reader's): its
-- member in the timeline (one range read over the ids' span), else in the outbox of a pulled
-- account the sets do not hide (one ZMSCORE per account that posted within the span), else the
-- post's cache entry (posts that live here). An id found in none has left the reader's merged
-- timeline (an unfollow, a block's purge) and is not cached here: it is left out, unchecked posts
-- are never shown. Nothing hidden (the common case): the first \`limit\` ids as they are.
-- Billed, with something hidden: ZRANGEBYSCORE + ≤ 3 ZSCOREs per distinct author met (+ SMEMBERS
-- + ZMSCORE + one ZMSCORE per outbox + MGET, only for ids the timeline does not hold).
local function ranked_slice(cfg, ids, limit)
  local hidden = safety_filter(cfg)
  if not hidden or #ids == 0 then
    local n = math.min(limit, #ids)
    return {unpack(ids, 1, n)}, n
  end
  local lo, hi = ids[1], ids[1]
  for i = 2, #ids do
    if tonumber(ids[i]) < tonumber(lo) then lo = ids[i] end
    if tonumber(ids[i]) > tonumber(hi) then hi = ids[i] end
  end
  local authorOf = {}
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', cfg.tl, lo, hi)) do
    local id, author = string.match(m, '^(%d+):(%d+)$')
    if id then authorOf[id] = author end
  end
  local unresolved = {}
  for _, id in ipairs(ids) do
    if not authorOf[id] then unresolved[#unresolved + 1] = id end
  end
  if #unresolved > 0 then
    local bigs = redis.call('SMEMBERS', cfg.bigset)
    if #bigs > 0 then
      -- The pulled accounts that posted within the span, most recently active first (as the merge reads them).
      local acts, order = redis.call('ZMSCORE', cfg.activity, unpack(bigs)), {}
      for i = 1, #bigs do
        if acts[i] and tonumber(acts[i]) >= tonumber(lo) and not hidden(bigs[i]) then order[#order + 1] = {bigs[i], tonumber(acts[i])} end
      end
      table.sort(order, by_score_desc)
      for i = 1, math.min(#order, cfg.maxPulled) do
        if #unresolved == 0 then break end
        local big, probe, left = order[i][1], {}, {}
        for k, id in ipairs(unresolved) do probe[k] = id .. ':' .. big end
        local found = redis.call('ZMSCORE', cfg.outboxPrefix .. big, unpack(probe))
        for k, id in ipairs(unresolved) do
          if found[k] then authorOf[id] = big else left[#left + 1] = id end
        end
        unresolved = left
      end
    end
  end
  if #unresolved > 0 then
    local keys = {}
    for k, id in ipairs(unresolved) do keys[k] = cfg.postPrefix .. id end
    local entries = redis.call('MGET', unpack(keys))
    for k, id in ipairs(unresolved) do
      -- A cached post is JSON [authorId, text, …]; a tombstone names no author.
      local author = entries[k] and string.match(entries[k], '^%["(%d+)"')
      if author then authorOf[id] = author end
    end
  end
  local members, used = {}, 0
  for i = 1, #ids do
    if #members >= limit then break end
    used = i
    local author = authorOf[ids[i]]
    if author and not hidden(author) then members[#members + 1] = ids[i] .. ':' .. author end
  end
  return members, used
end

local mode = ARGV[1]
local limit = tonumber(ARGV[2])
local first = ARGV[3] == '1'
local now = tonumber(ARGV[4])
local candidates = tonumber(ARGV[5])
local iLikes, iComments, iForwards = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local cfg = read_config(9)

if mode == 'page' then
  -- A later page: the ids its cursor gave (all those not shown yet), the first \`limit\` the
  -- reader's safety sets let through hydrated as any page is; \`used\` says how many ids it took.
  if cfg.safety and safety_missing(cfg.safety) then return cjson.encode({safetyMiss = true, epoch = redis.call('GET', cfg.safety[4]) or ''}) end
  local members, used = ranked_slice(cfg, {unpack(ARGV, cfg.nextArg)}, limit)
  local page = hydrate(cfg, members)
  page.used = used
  page.renew = renewal_due(cfg)
  return cjson.encode(page)
end

local cold = cold_unless_built(cfg)
if cold then return cold end
local members = merged_members(cfg, '+inf', candidates)
if #members == 0 then
  local page = {members = {}, more = false, renew = renewal_due(cfg)}
  if first then marker_view(cfg, page) end
  return cjson.encode(page)
end
if mode == 'members' then
  -- N > 1: the candidates' post ids and the reader's flags for them, and this database's own
  -- share of the ranking: the candidates whose post and counters are cached here (the posts that live here: a
  -- live post's cache entry and counters are on its own database only) scored (ranking_answer),
  -- tombstoned ones in \`gone\`. The Worker scores the others (rankAcrossDatabases); one request
  -- less than asking this one again.
  local flagFields, ids = {'f', 'x'}, {}
  for i, m in ipairs(members) do
    local id = string.match(m, '^(%d+):')
    ids[i] = id
    flagFields[2 * i + 1] = 'l' .. id
    flagFields[2 * i + 2] = 'v' .. id
  end
  local values
  if redis.call('HLEN', cfg.flags) <= #flagFields then
    -- A hash this small may be a listpack, where HMGET scans it once per field (600 fields × a
    -- few hundred entries: most of the page's Redis time); read it once and look the fields up here.
    local all, byField = redis.call('HGETALL', cfg.flags), {}
    for i = 1, #all, 2 do byField[all[i]] = all[i + 1] end
    values = {}
    for i, field in ipairs(flagFields) do values[i] = byField[field] or false end
  else
    values = redis.call('HMGET', cfg.flags, unpack(flagFields))
  end
  -- Only the marked candidates go back (2p + 1: liked, 2p + 2: favourited, p their 0-based place).
  local on = {}
  for i = 3, #values do
    if values[i] == '1' then on[#on + 1] = i - 2 end
  end
  local answer = {ids = ids, flags = {values[1], values[2]}, on = on, renew = renewal_due(cfg)}
  local order, _, posts, packed, scoreOf, gone = rank_candidates(cfg, members, now, {iLikes, iComments, iForwards})
  ranking_answer(answer, order, scoreOf, posts, packed, limit)
  answer.gone = gone
  if first then marker_view(cfg, answer) end
  return cjson.encode(answer)
end
local order, missing, posts, packed, _, gone = rank_candidates(cfg, members, now, {iLikes, iComments, iForwards})
if #missing > 0 then return cjson.encode({missing = missing}) end
local page = ranked_page(cfg, members, order, posts, packed, limit)
page.rest = {}
for k = limit + 1, #order do page.rest[k - limit] = string.match(members[order[k]], '^(%d+)') end
page.gone = gone
page.renew = renewal_due(cfg)
if first then marker_view(cfg, page) end
return cjson.encode(page)
`;

/**
 * Marks a timeline that is not built as building (sentinel \`b\`, short TTL) BEFORE the caller reads
 * Postgres, so a post fanned out while the build runs lands in it, and answers the unfollow epoch
 * the build must still see when it writes — read here, on the primary, not on a replica that may
 * lag. Answers \`ready\` when a build finished since the page's read (the caller reads again).
 * KEYS: feed:tl:{user}, feed:ep:{user}. ARGV: the building TTL. Billed: EVALSHA + ZSCORE + ZADD +
 * EXPIRE + GET.
 */
export const MARK_BUILDING = `
if redis.call('ZSCORE', KEYS[1], '0') then return cjson.encode({ready = true}) end
redis.call('ZADD', KEYS[1], 0, 'b')
redis.call('EXPIRE', KEYS[1], ARGV[1])
return cjson.encode({epoch = redis.call('GET', KEYS[2]) or '0'})
`;

/**
 * What a page read reported to write, sent as its own call and only when there is something:
 * tombstoned members it met leave the timeline (later pages skip them), and — when the read said
 * the TTLs are due (\`renewal_due\`) — the timeline (when it holds posts), the pulled set and a
 * usable flags hash (a floor and not overflowed) get their 7 days again.
 * KEYS: feed:tl:{user}, feed:bf:{user}, feed:rx:{user}. ARGV: TTL, renew ('1' | ''), then the members
 * to drop: \`postId:authorId\`, or a bare post id (a ranked next page knows only the ids its cursor
 * carries), dropped by its score, the post id. Billed: EVALSHA (+ ZREM) (+ ZREMRANGEBYSCORE per bare
 * id) (+ ZCARD + EXPIRE + EXPIRE + HMGET (+ EXPIRE)).
 */
export const UPKEEP_TIMELINE = `
local members = {}
for i = 3, #ARGV do
  if string.find(ARGV[i], ':', 1, true) then members[#members + 1] = ARGV[i]
  else redis.call('ZREMRANGEBYSCORE', KEYS[1], ARGV[i], ARGV[i]) end
end
if #members > 0 then redis.call('ZREM', KEYS[1], unpack(members)) end
if ARGV[2] == '1' then
  if redis.call('ZCARD', KEYS[1]) > 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
  redis.call('EXPIRE', KEYS[2], ARGV[1])
  local fx = redis.call('HMGET', KEYS[3], 'f', 'x')
  if fx[1] and not fx[2] then redis.call('EXPIRE', KEYS[3], ARGV[1]) end
end
return 1
`;
