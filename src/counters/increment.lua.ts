/**
 * Adds deltas to the pending-delta hash and, for each entity whose values are cached, to its cached
 * hash too — atomically, so a reader never sees a cached value that disagrees with pending.
 * Several entities and fields in one call. With an idempotency key, the whole call is applied at
 * most once per key: `SET NX` claims the key in the same script that applies, so a retry racing
 * the first attempt cannot apply twice. Billed: EVALSHA + per entity EXISTS + per field 1–2 HINCRBY
 * (+ SET, or SET + GET on a replay) + one ZINCRBY per post whose weighted engagement moved
 * (`trending.ts`).
 *
 * Returns `{1}` when applied, `{0, stored}` when the key was already used (stored = its first value).
 */
export const INCREMENT_COUNTERS = `
local pending = KEYS[1]            -- ctr:pending
local groups = tonumber(ARGV[1])   -- number of entities; KEYS[2..groups+1] are their ctr:v:{entity}:{id}
local idemValue = ARGV[2]          -- fingerprint .. "\\n" .. answer, or "" without Idempotency-Key
local idemTtl = ARGV[3]            -- seconds the key is remembered
if idemValue ~= '' then
  local idem = KEYS[groups + 2]    -- ctr:idem:{caller}:{key}
  if not redis.call('SET', idem, idemValue, 'NX', 'EX', idemTtl) then
    return {0, redis.call('GET', idem)}
  end
end
local trending = KEYS[#KEYS]       -- ctr:trend:h:{hour} (the last key)
local a = 4                        -- ARGV[4..]: per entity: pending prefix "entity:id:", trending weight, n, then n x (field, delta)
for g = 1, groups do
  local cache = KEYS[g + 1]
  local prefix = ARGV[a]
  local weight = tonumber(ARGV[a + 1])
  local n = tonumber(ARGV[a + 2])
  a = a + 3
  local cached = redis.call('EXISTS', cache) == 1
  for _ = 1, n do
    redis.call('HINCRBY', pending, prefix .. ARGV[a], ARGV[a + 1])
    if cached then redis.call('HINCRBY', cache, ARGV[a], ARGV[a + 1]) end
    a = a + 2
  end
  -- A post's engagement moves its trending score in this hour's bucket (same call: no round trip).
  if weight ~= 0 then redis.call('ZINCRBY', trending, weight, string.match(prefix, ':(%d+):$')) end
end
return {1}
`;
