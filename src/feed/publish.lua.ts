import { ADD_POSTS } from "./chunks.lua";

/**
 * A new post, on the request path: cached (so followers' pages hydrate without Postgres) and on the
 * author's own timeline at once, if it exists (a missing one is built from Postgres, which has it).
 * Followers get it through the queue. Billed: EVALSHA + SET + EXISTS (+ ZADD + ZREMRANGEBYRANK).
 */
export const PUBLISH_POST = `${ADD_POSTS}
local post = KEYS[1]          -- feed:post:{id}
local tl = KEYS[2]            -- feed:tl:{author}
local value = ARGV[1]         -- JSON [authorId, text, createdAt]
local postTtl = ARGV[2]
local member = ARGV[3]
local score = ARGV[4]
local cap = tonumber(ARGV[5])
-- NX: a delete that already tombstoned the post (a redelivery after it) must win.
redis.call('SET', post, value, 'EX', postTtl, 'NX')
if redis.call('EXISTS', tl) == 1 then add_posts(tl, cap, {member}, {score}) end
return 1
`;

/**
 * A deleted post, on the request path: the tombstone hides it from every page from now on (pages
 * check the post cache), and it leaves the author's own timeline; followers' timelines are cleaned
 * through the queue. Billed: EVALSHA + SET + ZREM.
 */
export const UNPUBLISH_POST = `
local post = KEYS[1]          -- feed:post:{id}
local tl = KEYS[2]            -- feed:tl:{author}
redis.call('SET', post, ARGV[1], 'EX', ARGV[2]) -- tombstone, its TTL
redis.call('ZREM', tl, ARGV[3])                 -- member
return 1
`;
