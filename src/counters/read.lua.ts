import { readOnlyScript } from "../lib/read-only-scripts";

/**
 * The counters capability owns the layout of its cache (`ctr:c:*`, one packed string per entity:
 * see `keys.ts`), so it also owns the Lua that reads and writes it. Other capabilities' scripts
 * that need cached counters (the feed's page hydration, trending) include `COUNTER_CACHE_READER`
 * and call `read_counter_caches`, then decode the rows in TypeScript with `decodeCachedCounters`
 * (`counters.ts`): one cache, one reader, one rule.
 *
 * `COUNTER_PACKING` is the format alone (no Redis command), shared by the reader, the increment
 * and the warm so the three cannot disagree on it.
 */
export const COUNTER_PACKING = `
-- unpack_counters(s, nf): the nf decimal values of one packed cache value ("12,0,-3,…", registry
-- field order) as strings, or nil when s is not exactly nf integers joined by commas: a missing key,
-- or a value packed before the registry grew a field, is a miss (warmed again), never misread.
local function unpack_counters(s, nf)
  if type(s) ~= 'string' then return nil end
  local vals, pos = {}, 1
  for i = 1, nf do
    local v, after = string.match(s, '^(%-?%d+)()', pos)
    if not v then return nil end
    vals[i] = v
    if i < nf then
      if string.sub(s, after, after) ~= ',' then return nil end
      pos = after + 1
    elseif after <= #s then
      return nil
    end
  end
  return vals
end

-- pack_counters(vals): the packed value of nf numbers (exact integers up to 2^53; '%d' never
-- switches to exponent notation as tostring does above 1e14).
local function pack_counters(vals)
  local parts = {}
  for i = 1, #vals do parts[i] = string.format('%d', vals[i]) end
  return table.concat(parts, ',')
end
`;

export const COUNTER_CACHE_READER = `${COUNTER_PACKING}
-- read_counter_caches(keys, fields): for each ctr:c:{entity}:{id} key, the cached values in field
-- order (strings), or false when the entity is not completely cached (missing key, or a value
-- packed for another field list) — the decoder treats false as a miss.
-- Billed: ONE MGET for all keys (none for no keys).
local function read_counter_caches(keys, fields)
  local out = {}
  if #keys == 0 then return out end
  local packed = redis.call('MGET', unpack(keys))
  for i = 1, #keys do out[i] = unpack_counters(packed[i], #fields) or false end
  return out
end

-- read_counter_columns(keys, nfields, positions): for scripts that compute with a few fields of
-- many entities (the ranked feed scores 300 posts). ONE MGET; cols[j][i] is the value of field
-- positions[j] (registry order) of key i as a decimal string (Lua arithmetic reads it as the
-- number tonumber would), or false for every j when key i is not completely cached — the same rule
-- as unpack_counters (exactly nfields integers), checked by one anchored pattern per key rather
-- than one match per field. Also returns the packed values as read (for unpack_counters of the few
-- a caller then shows). Billed: ONE MGET (none for no keys).
local function read_counter_columns(keys, nfields, positions)
  local cols = {}
  for j = 1, #positions do cols[j] = {} end
  if #keys == 0 then return cols, {} end
  -- Captures come out in field order: capture k is the k-th smallest wanted position.
  local ascending, captureOf, parts = {}, {}, {}
  for j, p in ipairs(positions) do ascending[j] = p end
  table.sort(ascending)
  for k, p in ipairs(ascending) do captureOf[p] = k end
  for f = 1, nfields do parts[f] = captureOf[f] and '(%-?%d+)' or '%-?%d+' end
  local pattern = '^' .. table.concat(parts, ',') .. '$'
  local at = {}
  for j, p in ipairs(positions) do at[j] = captureOf[p] end
  local match, packed, none = string.match, redis.call('MGET', unpack(keys)), {}
  for i = 1, #keys do
    local s = packed[i]
    local got = s and {match(s, pattern)} or none
    for j = 1, #at do cols[j][i] = got[at[j]] or false end
  end
  return cols, packed
end
`;

/**
 * Reads the cached values of several entities of one kind in one call. Read-only (EVALSHA_RO): a
 * Global database's read region answers it, near the caller.
 * Billed: EVALSHA_RO + MGET (2, for any number of ids).
 */
export const READ_CACHED_COUNTERS = readOnlyScript(`${COUNTER_CACHE_READER}
-- KEYS[i]: ctr:c:{entity}:{id_i}; ARGV: the entity's fields in registry order
return read_counter_caches(KEYS, ARGV)
`);
