/**
 * A like/favourite change, on the request path: always writes the reader's flag field ("1"/"0"),
 * creating the hash if needed, so a flags build racing it cannot undo it (builds only add missing
 * fields). Past FLAGS_CAP fields the hash is marked overflowed: pages then read flags from Postgres
 * until it expires. Billed: EVALSHA + HSET + TTL (+ EXPIRE) + HLEN.
 */
export const SET_REACTION_FLAG = `
local flags = KEYS[1]         -- feed:rx:{user}
redis.call('HSET', flags, ARGV[1], ARGV[2]) -- field l{postId}|v{postId}, "1"|"0"
if redis.call('TTL', flags) < 0 then redis.call('EXPIRE', flags, ARGV[3]) end
if redis.call('HLEN', flags) > tonumber(ARGV[4]) then redis.call('HSET', flags, 'x', '1') end
return 1
`;
