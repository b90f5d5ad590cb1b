/**
 * Keeps the last hours' trending buckets bounded: the top `top` posts each, and a TTL.
 * Billed: EVALSHA + per bucket ZREMRANGEBYRANK + EXPIRE.
 */
export const TRIM_TRENDING = `
local top, ttl = tonumber(ARGV[1]), ARGV[2]
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYRANK', KEYS[i], 0, -(top + 1))
  redis.call('EXPIRE', KEYS[i], ttl)
end
return #KEYS
`;
