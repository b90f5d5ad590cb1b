import { ADD_POSTS } from "./chunks.lua";

/**
 * A transition starts: from now on the author's posts go to the outbox (`to-big`: and are still
 * pushed; `to-normal`: and are pushed again). Written BEFORE the outbox is read from Postgres, so a
 * post published meanwhile is either in that read or in the outbox by its own publish.
 * Billed: EVALSHA + HSET + PERSIST.
 */
export const BEGIN_TRANSITION = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) -- feed:big: author → to-big | to-normal
redis.call('PERSIST', KEYS[2])                 -- feed:ob:{author}: the only copy while big
return 1
`;

/**
 * The outbox of an account becoming big, from Postgres (its newest OUTBOX_CAP live posts), merged
 * with what its publishes already added. Billed: EVALSHA + ZADD + ZREMRANGEBYRANK + ZADD.
 */
export const FILL_OUTBOX = `
local outbox = KEYS[1]        -- feed:ob:{author}
local activity = KEYS[2]      -- feed:act
local author = ARGV[1]
local cap = tonumber(ARGV[2])
local args, newest = {}, 0
for i = 3, #ARGV, 2 do
  args[#args + 1] = ARGV[i + 1]
  args[#args + 1] = ARGV[i]
  newest = math.max(newest, tonumber(ARGV[i + 1]))
end
if #args > 0 then
  redis.call('ZADD', outbox, unpack(args))
  redis.call('ZREMRANGEBYRANK', outbox, 0, -(cap + 1))
end
redis.call('ZADD', activity, 'GT', newest, author)
return 1
`;

/**
 * One page (up to 1,000 followers) of a transition, for followers whose timeline exists:
 * `to-big` puts the author in their pulled set; `to-normal` copies the outbox into their timeline
 * and takes the author out of the set. Idempotent. A follower who unfollowed the author since the
 * page was read from Postgres (follow intent "0", as in DELIVER_PAGE) gets neither; one whose
 * safety sets hide the author (blocked either way, muted: src/safety) gets no outbox copy, as a
 * fan-out skips them. KEYS: outbox, then per follower its timeline, its pulled set, its follow
 * intent and its three safety sets (\`safetyKeysOf\`'s first three). ARGV: op, author, cap, ttl,
 * the safety clock (ms). Billed: EVALSHA (+ ZRANGE) + per follower EXISTS + per existing timeline
 * GET (intent) + (SADD + EXPIRE | 3 ZSCORE + ZADD + ZREMRANGEBYRANK + SREM).
 */
export const TRANSITION_PAGE = `${ADD_POSTS}
local outbox = KEYS[1]
local op = ARGV[1]            -- 'to-big' | 'to-normal'
local author = ARGV[2]
local cap = tonumber(ARGV[3])
local ttl = ARGV[4]
local members, scores = {}, {}
if op == 'to-normal' then
  local rows = redis.call('ZRANGE', outbox, 0, -1, 'WITHSCORES')
  for i = 1, #rows, 2 do
    members[#members + 1] = rows[i]
    scores[#scores + 1] = rows[i + 1]
  end
end
local now = tonumber(ARGV[5] or '0')
-- The rule of src/safety's \`safety_hides\` over the follower's three sets at KEYS[j..j+2].
local function hidden(j)
  if redis.call('ZSCORE', KEYS[j], author) or redis.call('ZSCORE', KEYS[j + 1], author) then return true end
  local till = redis.call('ZSCORE', KEYS[j + 2], author)
  return till ~= false and tonumber(till) > now
end
local touched = 0
for i = 2, #KEYS, 6 do
  local tl, bigset, intent = KEYS[i], KEYS[i + 1], KEYS[i + 2]
  if redis.call('EXISTS', tl) == 1 and redis.call('GET', intent) ~= '0' then
    if op == 'to-big' then
      redis.call('SADD', bigset, author)
      redis.call('EXPIRE', bigset, ttl)
    else
      if not hidden(i + 3) then add_posts(tl, cap, members, scores) end
      redis.call('SREM', bigset, author)
    end
    touched = touched + 1
  end
end
return touched
`;

/**
 * A transition reached every follower: `big` (posts only go to the outbox from now on) or normal
 * (no state: posts are only pushed; the outbox expires). Billed: EVALSHA + HSET | HDEL + ZREM + EXPIRE.
 */
export const END_TRANSITION = `
local states, outbox, activity = KEYS[1], KEYS[2], KEYS[3]
local author, final, outboxTtl = ARGV[1], ARGV[2], ARGV[3]
if final == 'big' then
  redis.call('HSET', states, author, 'big')
else
  redis.call('HDEL', states, author)
  redis.call('ZREM', activity, author)
  redis.call('EXPIRE', outbox, outboxTtl)
end
return 1
`;

/**
 * The per-minute repair of `feed:big` from Postgres (a lost hash would push big accounts' posts):
 * settled `big` rows are (re)written, fields of authors Postgres no longer lists are dropped, and
 * authors in a transition are left to it — their consumer writes `to-…` when it begins and the
 * final state when it ends, and a snapshot read before that end must not overwrite it (a stuck
 * transition is re-sent after an hour and begins again). Billed: EVALSHA + HKEYS + one HDEL per
 * dropped field + one HSET per 500 big accounts.
 */
export const SYNC_BIG_STATES = `
local states = KEYS[1]
local nBig = tonumber(ARGV[1])            -- ARGV[2..nBig+1]: settled big authors; the rest: authors in a transition
local listed = {}
for i = 2, #ARGV do listed[ARGV[i]] = true end
for _, author in ipairs(redis.call('HKEYS', states)) do
  if not listed[author] then redis.call('HDEL', states, author) end
end
-- HSET in chunks: unpack() of more than a few thousand values overflows Lua's C stack.
for first = 2, nBig + 1, 500 do
  local fields = {}
  for i = first, math.min(first + 499, nBig + 1) do
    fields[#fields + 1] = ARGV[i]
    fields[#fields + 1] = 'big'
  end
  redis.call('HSET', states, unpack(fields))
end
return nBig
`;
