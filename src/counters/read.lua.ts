/**
 * Reads the cached values of several entities of one kind in one call. A hash that is missing (or
 * lacks a field, e.g. after the registry grew) comes back with nils and is treated as a miss.
 * Billed: EVALSHA + one HMGET per entity.
 */
export const READ_CACHED_COUNTERS = `
-- KEYS[i]: ctr:v:{entity}:{id_i}; ARGV: the entity's fields in registry order
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('HMGET', KEYS[i], unpack(ARGV))
end
return out
`;
