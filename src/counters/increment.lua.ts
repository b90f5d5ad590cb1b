import { COUNTER_PACKING } from "./read.lua";

/**
 * Adds deltas to the pending-delta hash and, for each entity whose values are cached, to its cached
 * packed value too — atomically, so a reader never sees a cached value that disagrees with pending.
 * Several entities and fields in one call. The cache is read once (GET) and rewritten once
 * (SET … KEEPTTL: the entity keeps the expiry its warm gave it) whatever the number of fields; an
 * entity not cached (or cached for another field list) is left alone — an increment never creates
 * a cache entry, only a warm does (from Postgres at W + batches + pending). The whole call is
 * applied at most once per key (the Idempotency-Key's, the event's, or the call's own id:
 * `counters.ts`): `SET NX` claims the key in the same script that applies, so a retry of a call
 * whose answer was lost, or one racing the first attempt, cannot apply twice.
 * Billed: EVALSHA + the key's SET + per entity GET + 1 HINCRBY per field (+ SET when cached) + one
 * ZINCRBY per post whose weighted engagement moved (`trending.ts`); a key already claimed: SET +
 * GET + one GET per entity, nothing applied. One field of a cached entity: 5.
 *
 * Returns `{1, row_1, …, row_groups}` when applied, `{0, stored, row_1, …}` when the key was already
 * claimed (stored = its value); row_g is entity g's values after the call (registry field order),
 * or false when it is not cached — what the caller answers as the counts it now has, without a
 * second read.
 */
export const INCREMENT_COUNTERS = `${COUNTER_PACKING}
local pending = KEYS[1]            -- ctr:pending
local groups = tonumber(ARGV[1])   -- number of entities; KEYS[2..groups+1] are their ctr:c:{entity}:{id}
local idemValue = ARGV[2]          -- the key's value (an Idempotency-Key's: fingerprint, answer, call id); "": no key
local idemTtl = ARGV[3]            -- seconds the key is remembered
if idemValue ~= '' then
  local idem = KEYS[groups + 2]    -- ctr:idem:{caller}:{key}, ctr:ev:{event} or ctr:once:{call}
  if not redis.call('SET', idem, idemValue, 'NX', 'EX', idemTtl) then
    local replay = {0, redis.call('GET', idem)}
    local a = 4
    for g = 1, groups do
      replay[g + 2] = unpack_counters(redis.call('GET', KEYS[g + 1]), tonumber(ARGV[a + 2])) or false
      a = a + 4 + 3 * tonumber(ARGV[a + 3])
    end
    return replay
  end
end
local trending = KEYS[#KEYS]       -- ctr:trend:h:{hour} (the last key)
local rows = {1}
local a = 4                        -- ARGV[4..]: per entity: pending prefix "entity:id:", trending weight,
                                   -- number of registry fields, n, then n x (field, its 1-based position, delta)
for g = 1, groups do
  local cache = KEYS[g + 1]
  local prefix = ARGV[a]
  local weight = tonumber(ARGV[a + 1])
  local nf = tonumber(ARGV[a + 2])
  local n = tonumber(ARGV[a + 3])
  a = a + 4
  local values = unpack_counters(redis.call('GET', cache), nf)
  for _ = 1, n do
    redis.call('HINCRBY', pending, prefix .. ARGV[a], ARGV[a + 2])
    if values then
      local i = tonumber(ARGV[a + 1])
      values[i] = tonumber(values[i]) + tonumber(ARGV[a + 2])
    end
    a = a + 3
  end
  if values then redis.call('SET', cache, pack_counters(values), 'KEEPTTL') end
  rows[g + 1] = values or false
  -- A post's engagement moves its trending score in this hour's bucket (same call: no round trip).
  if weight ~= 0 then redis.call('ZINCRBY', trending, weight, string.match(prefix, ':(%d+):$')) end
end
return rows
`;
