import { readOnlyScript } from "../lib/read-only-scripts";
import { SAFETY_LUA } from "../safety/verdict.lua";

/**
 * Per-author unread scripts. One hash holds every author's published count; each user keeps a
 * hash of followed author → seen count (+ sentinel "_"). Unread = Σ max(0, published − seen),
 * read with HGETALL + chunked HMGET: a handful of commands for 2,000 authors, not 2,000.
 */

/** Followees a rebuild writes per HMGET + HSET (the HSET unpacks twice as many values). */
export const HMGET_CHUNK = 1000;
/**
 * Followed authors read per HMGET of `badge:au:pub` by the unread count: MAX_FOLLOWED_AUTHORS, so
 * a cache built from Postgres costs one HMGET (Lua's unpack takes up to ~8,000 values).
 */
export const UNREAD_HMGET_CHUNK = 5000;

/**
 * Shared Lua: defines \`authorsMissing\`, \`authorsTotal\` (stops past \`limit\`) and, when \`wantList\`, \`authorsList\`.
 * An author in \`authorsHidden\` (the including script's: src/safety's \`safety_hidden\` table of
 * the reader, or nil) counts nothing: the reader blocked them, was blocked by them or mutes them.
 * The HGETALL's fields are asked of \`badge:au:pub\` as they come, sentinel included (no author
 * has that id: it answers nil and is skipped), so field j's seen count is \`seenFlat[2j]\` with no
 * table built per author; an author whose published count is the very string of their seen count
 * (the common case: nothing new) is skipped without a number conversion.
 */
export const AUTHORS_UNREAD_SNIPPET = `
local authorsMissing, authorsTotal, authorsList = false, 0, {}
local seenFlat = redis.call('HGETALL', auSeen)
local fieldCount = #seenFlat / 2
if fieldCount == 0 then
  authorsMissing = true
else
  local from = 1
  while from <= fieldCount and (wantList or authorsTotal <= limit) do
    local to = math.min(from + ${UNREAD_HMGET_CHUNK} - 1, fieldCount)
    local ids = {}
    for j = from, to do ids[j - from + 1] = seenFlat[2 * j - 1] end
    local published = redis.call('HMGET', auPub, unpack(ids))
    for j = from, to do
      local p, s = published[j - from + 1], seenFlat[2 * j]
      if p and p ~= s and not (authorsHidden and authorsHidden[seenFlat[2 * j - 1]]) then
        local d = tonumber(p) - tonumber(s)
        if d > 0 then
          authorsTotal = authorsTotal + d
          if wantList then authorsList[#authorsList + 1] = { seenFlat[2 * j - 1], d } end
        end
      end
    end
    from = to + 1
  end
end
`;

/**
 * Per-author unread of one user (the list endpoint), or missing when the follow cache is lost,
 * with the follow epoch its rebuild must still see then; the authors the user's blocks and mutes
 * hide left out (\`safetyMiss\` with the safety epoch when those sets are not cached: the caller
 * rebuilds them and reads again).
 */
export const LIST_AUTHOR_UNREAD = readOnlyScript(`${SAFETY_LUA}
local auSeen = KEYS[1]  -- badge:au:{user}
local auPub = KEYS[2]   -- badge:au:pub
local auEpoch = KEYS[3] -- badge:au:ep:{user} (read only when the follow cache is missing)
-- KEYS[4..7]: the reader's safety sets (src/safety: safetyKeysOf); ARGV[1]: the safety clock (ms);
-- ARGV[2]: the suspended users (ids joined by ','), who count for nobody.
local authorsHidden = safety_hidden({KEYS[4], KEYS[5], KEYS[6], KEYS[7]}, tonumber(ARGV[1]))
if authorsHidden == 'miss' then return cjson.encode({ safetyMiss = true, epoch = redis.call('GET', KEYS[7]) or '' }) end
authorsHidden = safety_add_suspended(authorsHidden, ARGV[2])
local wantList, limit = true, 0
${AUTHORS_UNREAD_SNIPPET}
local epoch = authorsMissing and (redis.call('GET', auEpoch) or '0') or nil
return cjson.encode({ missing = authorsMissing, total = authorsTotal, list = authorsList, epoch = epoch })
`);

/**
 * Builds the user's follow cache from Postgres' followee ids, each starting at its current count.
 * The sentinel says whether the build read every follow (`all`: a missing author is not followed)
 * or stopped at the cap (`some`). Refused (-1) when a follow or unfollow moved the epoch since the
 * build read it: the rows may predate that change, and writing them would resurrect an unfollow or
 * lose a follow.
 */
export const WARM_AUTHOR_SEEN = `
local auSeen = KEYS[1]          -- badge:au:{user}
local auPub = KEYS[2]           -- badge:au:pub
local epoch = KEYS[3]           -- badge:au:ep:{user}
local ttl = tonumber(ARGV[1])   -- per-user TTL
local seenEpoch = ARGV[2]       -- the epoch read before the Postgres read
local sentinel = ARGV[3]        -- 'all' or 'some'; ARGV[4..] = followee ids
if redis.call('EXISTS', auSeen) == 1 then return 0 end
if (redis.call('GET', epoch) or '0') ~= seenEpoch then return -1 end
redis.call('HSET', auSeen, '_', sentinel)
for from = 4, #ARGV, ${HMGET_CHUNK} do
  local to = math.min(from + ${HMGET_CHUNK} - 1, #ARGV)
  local published = redis.call('HMGET', auPub, unpack(ARGV, from, to))
  local kv = {}
  for j = 1, #published do kv[#kv + 1] = ARGV[from + j - 1]; kv[#kv + 1] = published[j] or '0' end
  redis.call('HSET', auSeen, unpack(kv))
end
redis.call('EXPIRE', auSeen, ttl)
return 1
`;

/** The follow epoch a rebuild must still see when it writes (read before its Postgres read). */
export const READ_AUTHOR_EPOCH = readOnlyScript(`local epoch = KEYS[1]  -- badge:au:ep:{user}
return redis.call('GET', epoch) or '0'
`);

/**
 * Follow: start the followee at their current count (no flood of old posts). Only into a built
 * cache; the epoch moves either way so a rebuild that read Postgres before this follow does not
 * write. Answers `{added, epoch}` (the epoch a rebuild started now must see).
 */
export const FOLLOW_AUTHOR = `
local auSeen = KEYS[1]   -- badge:au:{user}
local auPub = KEYS[2]    -- badge:au:pub
local epoch = KEYS[3]    -- badge:au:ep:{user}
local author = ARGV[1]
local ttl = tonumber(ARGV[2])
local epochTtl = tonumber(ARGV[3])
local now = tostring(redis.call('INCR', epoch))
redis.call('EXPIRE', epoch, epochTtl)
if redis.call('HEXISTS', auSeen, '_') == 0 then return cjson.encode({ added = false, epoch = now }) end
redis.call('HSET', auSeen, author, redis.call('HGET', auPub, author) or '0')
redis.call('EXPIRE', auSeen, ttl)
return cjson.encode({ added = true, epoch = now })
`;

/** Catch up on one followed author: seen := published. Answers -1 when the cache is missing, 0 when not followed. */
export const SEE_AUTHOR = `
local auSeen = KEYS[1]   -- badge:au:{user}
local auPub = KEYS[2]    -- badge:au:pub
local author = ARGV[1]
local ttl = tonumber(ARGV[2])
if redis.call('HEXISTS', auSeen, '_') == 0 then return -1 end
if redis.call('HEXISTS', auSeen, author) == 0 then return 0 end
redis.call('HSET', auSeen, author, redis.call('HGET', auPub, author) or '0')
redis.call('EXPIRE', auSeen, ttl)
return 1
`;

/** A post was deleted: one less published, never below zero. */
export const UNPUBLISH = `
local auPub = KEYS[1]  -- badge:au:pub
local author = ARGV[1]
if tonumber(redis.call('HGET', auPub, author) or '0') > 0 then return redis.call('HINCRBY', auPub, author, -1) end
return 0
`;

/** A post was published: one more for its author. */
export const PUBLISH = `
local auPub = KEYS[1]  -- badge:au:pub
return redis.call('HINCRBY', auPub, ARGV[1], 1)
`;

/** Unfollow: the author no longer counts; the epoch moves so a rebuild that read Postgres before it does not write. */
export const UNFOLLOW_AUTHOR = `
local auSeen = KEYS[1]   -- badge:au:{user}
local epoch = KEYS[2]    -- badge:au:ep:{user}
local author = ARGV[1]
local epochTtl = tonumber(ARGV[2])
redis.call('INCR', epoch)
redis.call('EXPIRE', epoch, epochTtl)
return redis.call('HDEL', auSeen, author)
`;
