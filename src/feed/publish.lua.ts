import { ADD_POSTS } from "./chunks.lua";

/**
 * A new post, on the request path: cached (so pages hydrate without Postgres) and on the author's
 * own timeline at once, if it exists (a missing one is built from Postgres, which has it). A big or
 * transitioning author's post also goes to their outbox, which readers pull. Returns the author's
 * state (`normal` | `to-big` | `big` | `to-normal`): followers get the post through the queue
 * unless the author is `big`.
 * The post counts in the author's own `feed` badge once it is on their timeline (read from it).
 * Runs on the AUTHOR's database (timeline; the states, outbox and activity are on every database).
 * ARGV[8] = '0' when the post's cache lives on another database (CACHE_POST runs there, in parallel).
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
local cacheHere = ARGV[8] ~= '0' -- '0' at N > 1 when the post lives on another database (CACHE_POST there)
-- NX: a delete that already tombstoned the post (a redelivery after it) must win.
if cacheHere then redis.call('SET', post, value, 'EX', postTtl, 'NX') end
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

/**
 * At N > 1, a new post's cache on the POST's database (when the author's is another one). NX: a
 * tombstone written first wins. Billed: EVALSHA + SET.
 */
export const CACHE_POST = `
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') -- feed:post:{id}, JSON, TTL
return 1
`;

/**
 * At N > 1, a big (or transitioning) account's post on the copy of its outbox and of the activity
 * set that every other database keeps (readers merge the outbox of their own database). Idempotent.
 * KEYS: feed:ob:{author}, feed:act. ARGV: member, score, cap, author. Billed: EVALSHA + ZADD +
 * ZREMRANGEBYRANK + ZADD.
 */
export const ADD_TO_OUTBOX = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[3]) + 1))
redis.call('ZADD', KEYS[2], 'GT', ARGV[2], ARGV[4])
return 1
`;

/**
 * At N > 1, a deleted post on every database but its author's (where UNPUBLISH_POST runs): the
 * tombstone (so a reader's first round drops it, and a fan-out page on any database refuses a late
 * "add" of it) and its member out of that database's copy of the outbox.
 * KEYS: feed:post:{id}, feed:ob:{author}. ARGV: tombstone, its TTL, member. Billed: EVALSHA + SET + ZREM.
 */
export const TOMBSTONE_COPY = `
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[3])
return 1
`;
