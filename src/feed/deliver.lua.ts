import { ADD_POSTS, COUNT_UNSEEN } from "./chunks.lua";

/**
 * One fan-out page (up to 1,000 followers) in one call: adds the post to (or removes it from)
 * every follower timeline that exists; missing timelines are skipped (they are built from Postgres
 * on their next read). Idempotent: ZADD/ZREM of the same member change nothing the second time,
 * and an "add" of a post whose tombstone is set does nothing, so a late redelivery never brings a
 * deleted post back. A post new to a timeline also counts in its owner's `feed` badge; the answer is
 * `{touched, i, j, …}`: the count, then the 1-based positions (in the page) of the followers whose
 * badge moved, so the caller pushes to those of them who are online without reading anything.
 * Billed: EVALSHA + GET + per follower EXISTS (+ ZADD + ZREMRANGEBYRANK + INCR + EXPIRE | ZREM).
 */
export const DELIVER_PAGE = `${ADD_POSTS}${COUNT_UNSEEN}
local post = KEYS[1]          -- feed:post:{id}; KEYS[2..]: feed:tl:{follower}
local op = ARGV[1]            -- 'add' | 'remove'
local member = ARGV[2]
local score = ARGV[3]
local cap = tonumber(ARGV[4])
local tombstone = ARGV[5]
local tlPrefix = ARGV[6]       -- feed:tl:  (a follower id is what follows it)
local unseenPrefix = ARGV[7]   -- feed:new:
local unseenCap = tonumber(ARGV[8])
local ttl = tonumber(ARGV[9])
if op == 'add' and redis.call('GET', post) == tombstone then return {0} end
local answer = {0}
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    if op == 'add' then
      if add_posts(KEYS[i], cap, {member}, {score}) == 1 then
        count_unseen(unseenPrefix .. string.sub(KEYS[i], #tlPrefix + 1), unseenCap, ttl)
        answer[#answer + 1] = i - 1
      end
    else
      redis.call('ZREM', KEYS[i], member)
    end
    answer[1] = answer[1] + 1
  end
end
return answer
`;
