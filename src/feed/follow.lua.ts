import { ADD_POSTS, REMOVE_AUTHOR } from "./chunks.lua";

/** A follow, on the request path: records the intent the queued sync will act on. Billed: EVALSHA + SET. */
export const MARK_FOLLOW = `
redis.call('SET', KEYS[1], '1', 'EX', ARGV[1]) -- feed:fi:{follower}:{followee}, TTL
return 1
`;

/**
 * An unfollow, on the request path: the followee's posts leave the timeline now (no Postgres: the
 * members name their author) and the followee leaves the pulled set; the intent turns "0" so a late
 * sync of an earlier follow removes instead of adding, and the epoch moves so a build that read
 * Postgres before this does not write the followee back.
 * Billed: EVALSHA + SET + INCR + EXPIRE + SREM + EXISTS (+ ZRANGE + ZREM).
 */
export const UNFOLLOW = `${REMOVE_AUTHOR}
local tl = KEYS[1]            -- feed:tl:{follower}
local intent = KEYS[2]        -- feed:fi:{follower}:{followee}
local epoch = KEYS[3]         -- feed:ep:{follower}
local bigset = KEYS[4]        -- feed:bf:{follower}
local followee = ARGV[1]
redis.call('SET', intent, '0', 'EX', ARGV[2])
redis.call('INCR', epoch)
redis.call('EXPIRE', epoch, ARGV[3])
redis.call('SREM', bigset, followee)
if redis.call('EXISTS', tl) == 1 then remove_author(tl, followee) end
return 1
`;

/**
 * A queued sync of one follow pair: makes the follower's timeline (if it exists) agree with the
 * latest intent. Following a big (or to-big) account puts it in the pulled set; following a normal
 * one copies its newest posts (read from Postgres by the consumer); not following removes both.
 * Acting on the intent rather than on the message makes redelivered and reordered syncs end the same.
 * Answers 'unchanged' when the timeline and the pulled set already held what the sync brings (a
 * build after the follow copied it, or a redelivery): nothing moved, so no badge is re-read.
 * A followee the follower's safety sets hide (blocked either way, muted: src/safety; KEYS[5..7])
 * is neither copied nor pulled ('hidden'): what they posted does not come back when the mute ends.
 * Billed: EVALSHA + GET + EXISTS (+ 3 ZSCORE) + HGET + (SADD + EXPIRE | ZADD + ZREMRANGEBYRANK | SREM + ZRANGE + ZREM).
 */
export const SYNC_FOLLOW = `${ADD_POSTS}${REMOVE_AUTHOR}
local tl = KEYS[1]            -- feed:tl:{follower}
local intent = redis.call('GET', KEYS[2]) -- feed:fi:{follower}:{followee}
local bigset = KEYS[3]        -- feed:bf:{follower}
local states = KEYS[4]        -- feed:big
local followee = ARGV[1]
local cap = tonumber(ARGV[2])
local ttl = ARGV[3]
local now = tonumber(ARGV[4])  -- ms, the safety clock
if redis.call('EXISTS', tl) == 0 then return 'none' end
-- The follower's safety sets (KEYS[5..7]) hiding the followee: nothing is copied (src/safety's \`safety_hides\`).
local function hidden()
  if redis.call('ZSCORE', KEYS[5], followee) or redis.call('ZSCORE', KEYS[6], followee) then return true end
  local till = redis.call('ZSCORE', KEYS[7], followee)
  return till ~= false and tonumber(till) > now
end
if intent == '1' and hidden() then return 'hidden' end
if intent == '1' then
  local state = redis.call('HGET', states, followee)
  if state == 'big' or state == 'to-big' then
    local newly = redis.call('SADD', bigset, followee)
    redis.call('EXPIRE', bigset, ttl)
    if newly == 1 then return 'pulled' end
    return 'unchanged'
  end
  local members, scores = {}, {} -- ARGV[5..]: pairs (member, score)
  for i = 5, #ARGV, 2 do
    members[#members + 1] = ARGV[i]
    scores[#scores + 1] = ARGV[i + 1]
  end
  if add_posts(tl, cap, members, scores) > 0 then return 'added' end
  return 'unchanged'
elseif intent == '0' then
  redis.call('SREM', bigset, followee)
  remove_author(tl, followee)
  return 'removed'
end
return 'expired'
`;
