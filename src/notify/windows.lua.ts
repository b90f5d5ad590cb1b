/**
 * Counts one event in the user's batch window on a thread: 1 means this event opened the window
 * (its caller enqueues the delayed push); more means a push is already waiting and will say
 * "… and N others". The TTL is set by the opener only, so a stream of events cannot keep a window
 * open past its push.
 */
export const COUNT_IN_WINDOW = `
local key = KEYS[1]               -- ntf:win:{user}:{thread}
local ttl = tonumber(ARGV[1])     -- the window plus slack
local n = redis.call('INCR', key)
if n == 1 then redis.call('EXPIRE', key, ttl) end
return n
`;
