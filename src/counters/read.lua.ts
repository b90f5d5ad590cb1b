/**
 * The counters capability owns the layout of its cache (`ctr:v:*`), so it also owns the Lua that
 * reads it. Other capabilities' scripts that need cached counters (the feed's page hydration)
 * include `COUNTER_CACHE_READER` and call `read_counter_caches`, then decode the rows in
 * TypeScript with `decodeCachedCounters` (`counters.ts`): one cache, one reader, one rule.
 */
export const COUNTER_CACHE_READER = `
-- read_counter_caches(keys, fields): for each ctr:v:{entity}:{id} key, the cached values in
-- field order. A missing hash (or one lacking a field, e.g. after the registry grew) comes back
-- with nils and is treated as a miss by the decoder.
-- Billed: one HMGET per key.
local function read_counter_caches(keys, fields)
  local out = {}
  for i = 1, #keys do
    out[i] = redis.call('HMGET', keys[i], unpack(fields))
  end
  return out
end

-- counter_values(row, nfields): one row of read_counter_caches as numbers in field order, or nil
-- when the entity is not completely cached (for scripts that compute with the values).
local function counter_values(row, nfields)
  if type(row) ~= 'table' or #row ~= nfields then return nil end
  local values = {}
  for i = 1, nfields do
    if not row[i] then return nil end
    values[i] = tonumber(row[i])
  end
  return values
end
`;

/**
 * Reads the cached values of several entities of one kind in one call.
 * Billed: EVALSHA + what `read_counter_caches` runs.
 */
export const READ_CACHED_COUNTERS = `${COUNTER_CACHE_READER}
-- KEYS[i]: ctr:v:{entity}:{id_i}; ARGV: the entity's fields in registry order
return read_counter_caches(KEYS, ARGV)
`;
