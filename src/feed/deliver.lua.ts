import { ADD_POSTS } from "./chunks.lua";

/**
 * One fan-out page (up to 1,000 followers) in one call: adds the post to (or removes it from)
 * every follower timeline that exists; missing timelines are skipped (they are built from Postgres
 * on their next read). Idempotent: ZADD/ZREM of the same member change nothing the second time,
 * and an "add" of a post whose tombstone is set does nothing, so a late redelivery never brings a
 * deleted post back. Billed: EVALSHA + GET + per follower EXISTS (+ ZADD + ZREMRANGEBYRANK | ZREM).
 */
export const DELIVER_PAGE = `${ADD_POSTS}
local post = KEYS[1]          -- feed:post:{id}; KEYS[2..]: feed:tl:{follower}
local op = ARGV[1]            -- 'add' | 'remove'
local member = ARGV[2]
local score = ARGV[3]
local cap = tonumber(ARGV[4])
local tombstone = ARGV[5]
if op == 'add' and redis.call('GET', post) == tombstone then return 0 end
local touched = 0
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    if op == 'add' then add_posts(KEYS[i], cap, {member}, {score}) else redis.call('ZREM', KEYS[i], member) end
    touched = touched + 1
  end
end
return touched
`;
