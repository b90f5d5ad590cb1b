import { ADD_POSTS, REMOVE_AUTHOR } from "./chunks.lua";

/** A follow, on the request path: records the intent the queued sync will act on. Billed: EVALSHA + SET. */
export const MARK_FOLLOW = `
redis.call('SET', KEYS[1], '1', 'EX', ARGV[1]) -- feed:fi:{follower}:{followee}, TTL
return 1
`;

/**
 * An unfollow, on the request path: the followee's posts leave the timeline now (no Postgres: the
 * members name their author), the intent turns "0" so a late sync of an earlier follow removes
 * instead of adding, and the epoch moves so a build that read Postgres before this does not write
 * the followee's posts back. Billed: EVALSHA + SET + INCR + EXPIRE + EXISTS (+ ZRANGE + ZREM).
 */
export const UNFOLLOW = `${REMOVE_AUTHOR}
local tl = KEYS[1]            -- feed:tl:{follower}
local intent = KEYS[2]        -- feed:fi:{follower}:{followee}
local epoch = KEYS[3]         -- feed:ep:{follower}
local followee = ARGV[1]
redis.call('SET', intent, '0', 'EX', ARGV[2])
redis.call('INCR', epoch)
redis.call('EXPIRE', epoch, ARGV[3])
if redis.call('EXISTS', tl) == 1 then remove_author(tl, followee) end
return 1
`;

/**
 * A queued sync of one follow pair: makes the follower's timeline (if it exists) agree with the
 * latest intent — the followee's newest posts (read from Postgres by the consumer) when following,
 * none of them when not. Acting on the intent rather than on the message makes redelivered and
 * reordered syncs end the same. Billed: EVALSHA + GET + EXISTS + (ZADD + ZREMRANGEBYRANK | ZRANGE + ZREM).
 */
export const SYNC_FOLLOW = `${ADD_POSTS}${REMOVE_AUTHOR}
local tl = KEYS[1]            -- feed:tl:{follower}
local intent = redis.call('GET', KEYS[2]) -- feed:fi:{follower}:{followee}
local followee = ARGV[1]
local cap = tonumber(ARGV[2])
if redis.call('EXISTS', tl) == 0 then return 'none' end
if intent == '1' then
  local members, scores = {}, {} -- ARGV[3..]: pairs (member, score)
  for i = 3, #ARGV, 2 do
    members[#members + 1] = ARGV[i]
    scores[#scores + 1] = ARGV[i + 1]
  end
  add_posts(tl, cap, members, scores)
  return 'added'
elseif intent == '0' then
  remove_author(tl, followee)
  return 'removed'
end
return 'expired'
`;
