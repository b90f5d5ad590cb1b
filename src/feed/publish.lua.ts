import { ADD_POSTS } from "./chunks.lua";

/**
 * A new post, on the request path: cached (so pages hydrate without Postgres) and on the author's
 * own timeline at once, if it exists (a missing one is built from Postgres, which has it). A big or
 * transitioning author's post also goes to their outbox, which readers pull. Returns the author's
 * state (`normal` | `to-big` | `big` | `to-normal`): followers get the post through the queue
 * unless the author is `big`.
 * The post counts in the author's own `feed` badge once it is on their timeline (read from it).
 * Billed: EVALSHA + SET + EXISTS + HGET (+ ZADD + ZREMRANGEBYRANK on the own timeline; + ZADD +
 * ZREMRANGEBYRANK + ZADD on the outbox and activity for big authors).
 */
export const PUBLISH_POST = `${ADD_POSTS}
local post = KEYS[1]          -- feed:post:{id}
local tl = KEYS[2]            -- feed:tl:{author}
local states = KEYS[3]        -- feed:big
local outbox = KEYS[4]        -- feed:ob:{author}
local activity = KEYS[5]      -- feed:act
local value = ARGV[1]         -- JSON [authorId, text, createdAt, createdAtMs]
local postTtl = ARGV[2]
local member = ARGV[3]
local score = ARGV[4]
local cap = tonumber(ARGV[5])
local outboxCap = tonumber(ARGV[6])
local author = ARGV[7]
-- NX: a delete that already tombstoned the post (a redelivery after it) must win.
redis.call('SET', post, value, 'EX', postTtl, 'NX')
if redis.call('EXISTS', tl) == 1 then add_posts(tl, cap, {member}, {score}) end
local state = redis.call('HGET', states, author)
if state then
  redis.call('ZADD', outbox, score, member)
  redis.call('ZREMRANGEBYRANK', outbox, 0, -(outboxCap + 1))
  redis.call('ZADD', activity, 'GT', score, author)
end
return state or 'normal'
`;

/**
 * A deleted post, on the request path: the tombstone hides it from every page from now on (pages
 * check the post cache), and it leaves the author's own timeline and outbox. Returns the author's
 * state: followers' timelines are cleaned through the queue unless the author is `big` (their posts
 * were not pushed; older pushed ones are hidden by the tombstone and dropped when a page meets them).
 * Billed: EVALSHA + SET + ZREM + ZREM + HGET.
 */
export const UNPUBLISH_POST = `
local post = KEYS[1]          -- feed:post:{id}
local tl = KEYS[2]            -- feed:tl:{author}
local states = KEYS[3]        -- feed:big
local outbox = KEYS[4]        -- feed:ob:{author}
redis.call('SET', post, ARGV[1], 'EX', ARGV[2]) -- tombstone, its TTL
redis.call('ZREM', tl, ARGV[3])                 -- member
redis.call('ZREM', outbox, ARGV[3])
return redis.call('HGET', states, ARGV[4]) or 'normal'
`;
