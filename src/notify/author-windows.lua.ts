/**
 * Counts one post of a chosen author in a chooser's batch window, where the post's alert named a
 * thread of its own (`author:{author}:{thread}`). The author picks the thread, so a new thread per
 * post would open a window (and a push) per post: at most ARGV[2] of an author's threads have a
 * window open at once per chooser; past that, the post counts in the author's own window
 * (`author:{author}`), where the author's plain posts count.
 *
 * KEYS[3] is the set of that author's open thread windows for this user (their window keys, at
 * most ARGV[2]). A window is open while its key exists (its push takes it with GETDEL): members
 * whose key is gone are dropped here, so the set never holds more than the cap and needs no clock.
 * The set's members are keys of the same user, on the same database, read with EXISTS only.
 *
 * Returns {n, inThread}: n = 1 when this post opened the window it counted in (its caller then
 * enqueues the delayed push); inThread = 1 for the thread's window, 0 for the author's.
 */
export const COUNT_IN_AUTHOR_WINDOW = `
local thread_key = KEYS[1]        -- ntf:win:{user}:author:{author}:{thread}
local author_key = KEYS[2]        -- ntf:win:{user}:author:{author}
local open_key = KEYS[3]          -- ntf:athr:{user}:{author}
local ttl = tonumber(ARGV[1])     -- the window (or the quiet hours' hold) plus slack
local cap = tonumber(ARGV[2])     -- open thread windows per author and user
local function count(key)
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('EXPIRE', key, ttl) end
  return n
end
if redis.call('EXISTS', thread_key) == 1 then return {count(thread_key), 1} end
local open = 0
for _, key in ipairs(redis.call('SMEMBERS', open_key)) do
  if redis.call('EXISTS', key) == 1 then open = open + 1 else redis.call('SREM', open_key, key) end
end
if open < cap then
  redis.call('SADD', open_key, thread_key)
  if redis.call('TTL', open_key) < ttl then redis.call('EXPIRE', open_key, ttl) end
  return {count(thread_key), 1}
end
return {count(author_key), 0}
`;
