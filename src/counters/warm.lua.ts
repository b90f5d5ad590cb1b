import { COUNTER_PACKING } from "./read.lua";

/**
 * Completes Postgres values read at flush watermark W into true values, and (mode "warm") caches
 * them where no complete cache entry exists yet (one MGET for all, one SET … EX per entity written,
 * so each entity starts its own 12 h life):
 *
 *   true value = Postgres value at W + Σ batches numbered above W still in Redis + pending delta
 *
 * Batches are numbered consecutively by the cut and applied in order, and a batch leaves Redis only
 * after its Postgres commit. So if the unapplied set does not hold every number in (W, seq], a batch
 * above W was applied and dropped after the Postgres snapshot was taken: the snapshot is stale and
 * the script answers `{0}` so the caller re-reads Postgres (adding that batch from nowhere would
 * miss it; it is in Postgres, but not in the snapshot).
 *
 * Mode "peek" computes the same numbers without caching (reconcile). Returns `{1, vals_1, …}` with
 * each vals_i in field order: what was written, or what a concurrent request cached first.
 */
export const WARM_COUNTERS = `${COUNTER_PACKING}
local pending = KEYS[1]            -- ctr:pending
local unapplied = KEYS[2]          -- ctr:batches (zset of batch numbers)
local seqKey = KEYS[3]             -- ctr:batch:seq
-- KEYS[4..]: ctr:c:{entity}:{id} per entity, in the order of the ARGV groups
local W = tonumber(ARGV[1])        -- watermark of the Postgres snapshot (max applied batch)
local ttl = ARGV[2]                -- cache TTL, seconds
local warm = ARGV[3] == 'warm'     -- 'warm' caches; 'peek' only computes
local batchPrefix = ARGV[4]        -- ctr:batch: (batch n lives at prefix .. n)
local nf = tonumber(ARGV[5])       -- fields per entity; ARGV[6..5+nf] are their names
local fields = {}
for i = 1, nf do fields[i] = ARGV[5 + i] end
local seq = tonumber(redis.call('GET', seqKey) or '0')
local batches = redis.call('ZRANGEBYSCORE', unapplied, '(' .. W, '+inf')
if #batches ~= math.max(seq - W, 0) then return {0} end
local out = {1}
local cached = {}
if warm and #KEYS >= 4 then
  local caches = {}
  for k = 4, #KEYS do caches[#caches + 1] = KEYS[k] end
  cached = redis.call('MGET', unpack(caches))
end
local a = 6 + nf                   -- per entity: pending prefix "entity:id:", then nf Postgres values
for k = 4, #KEYS do
  local cache = KEYS[k]
  local prefix = ARGV[a]
  -- A complete entry cached since the caller's read (a concurrent warm) wins: it already holds
  -- every increment made since; a wrong-length one (older field list) is overwritten.
  local existing = unpack_counters(cached[k - 3], nf)
  if existing then
    out[#out + 1] = existing
  else
    local names = {}
    for i = 1, nf do names[i] = prefix .. fields[i] end
    local vals = {}
    for i = 1, nf do vals[i] = tonumber(ARGV[a + i]) end
    local p = redis.call('HMGET', pending, unpack(names))
    for i = 1, nf do vals[i] = vals[i] + (tonumber(p[i]) or 0) end
    for _, b in ipairs(batches) do
      local d = redis.call('HMGET', batchPrefix .. b, unpack(names))
      for i = 1, nf do vals[i] = vals[i] + (tonumber(d[i]) or 0) end
    end
    if warm then redis.call('SET', cache, pack_counters(vals), 'EX', ttl) end
    out[#out + 1] = vals
  end
  a = a + 1 + nf
end
return out
`;
