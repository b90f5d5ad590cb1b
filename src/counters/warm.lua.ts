import { readOnlyScript } from "../lib/read-only-scripts";
import { COUNTER_PACKING } from "./read.lua";

/**
 * The completion both scripts below share: Postgres values read at flush watermark W, plus what
 * Redis still holds above W,
 *
 *   true value = Postgres value at W + Σ batches numbered above W still in Redis + pending delta
 *
 * KEYS: ctr:pending, ctr:batches, ctr:batch:seq, then ctr:c:{entity}:{id} per entity. ARGV: W,
 * cache TTL, mode, batch prefix, nf, the nf field names, then per entity its pending prefix
 * "entity:id:" and its nf Postgres values. `complete(a)` answers the true values of the entity
 * whose ARGV group starts at `a`. Billed: GET + ZRANGEBYSCORE, and per entity HMGET pending + one
 * HMGET per unapplied batch.
 */
const COMPLETE_COUNTERS = `
local pending = KEYS[1]            -- ctr:pending
local unapplied = KEYS[2]          -- ctr:batches (zset of batch numbers)
local seqKey = KEYS[3]             -- ctr:batch:seq
-- KEYS[4..]: ctr:c:{entity}:{id} per entity, in the order of the ARGV groups
local W = tonumber(ARGV[1])        -- watermark of the Postgres snapshot (max applied batch)
local ttl = ARGV[2]                -- cache TTL, seconds
local mode = ARGV[3]               -- WARM_COUNTERS: 'warm' caches, 'peek' only computes
local batchPrefix = ARGV[4]        -- ctr:batch: (batch n lives at prefix .. n)
local nf = tonumber(ARGV[5])       -- fields per entity; ARGV[6..5+nf] are their names
local fields = {}
for i = 1, nf do fields[i] = ARGV[5 + i] end
local seq = tonumber(redis.call('GET', seqKey) or '0')
local batches = redis.call('ZRANGEBYSCORE', unapplied, '(' .. W, '+inf')
local function complete(a)
  local prefix = ARGV[a]
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
  return vals
end
local FIRST_GROUP = 6 + nf
`;

/**
 * Completes Postgres values read at flush watermark W into true values (`COMPLETE_COUNTERS`), and
 * (mode "warm") caches them where no complete cache entry exists yet (one MGET for all, one
 * SET … EX per entity written, so each entity starts its own 12 h life).
 *
 * Batches are numbered consecutively by the cut and applied in order, and a batch leaves Redis only
 * after its Postgres commit. So if the unapplied set does not hold every number in (W, seq], a batch
 * above W was applied and dropped after the Postgres snapshot was taken: the snapshot is stale and
 * the script answers `{0}` so the caller re-reads Postgres (adding that batch from nowhere would
 * miss it; it is in Postgres, but not in the snapshot).
 *
 * Mode "peek" computes the same numbers without caching (reconcile). Returns `{1, vals_1, …}` with
 * each vals_i in field order: what was written, or what a concurrent request cached first. Runs on
 * the primary (EVALSHA).
 */
export const WARM_COUNTERS = `${COUNTER_PACKING}${COMPLETE_COUNTERS}
if #batches ~= math.max(seq - W, 0) then return {0} end
local warm = mode == 'warm'
local out = {1}
local cached = {}
if warm and #KEYS >= 4 then
  local caches = {}
  for k = 4, #KEYS do caches[#caches + 1] = KEYS[k] end
  cached = redis.call('MGET', unpack(caches))
end
local a = FIRST_GROUP
for k = 4, #KEYS do
  -- A complete entry cached since the caller's read (a concurrent warm) wins: it already holds
  -- every increment made since; a wrong-length one (older field list) is overwritten.
  local existing = unpack_counters(cached[k - 3], nf)
  if existing then
    out[#out + 1] = existing
  else
    local vals = complete(a)
    if warm then redis.call('SET', KEYS[k], pack_counters(vals), 'EX', ttl) end
    out[#out + 1] = vals
  end
  a = a + 1 + nf
end
return out
`;

/**
 * The read-only twin of WARM_COUNTERS' "peek", for a read that found entities not cached: the true
 * values as the server it runs on has them (a read region's replica, EVALSHA_RO), cached by nobody
 * (the caller sends the warm to the primary after answering). Same KEYS and ARGV (the mode is not
 * read). Answers `{0}` when the snapshot and this server do not fit together:
 * - a batch above W was applied and dropped since the snapshot (as WARM_COUNTERS), or
 * - this server is behind the snapshot (a replica lagging: its batch sequence is below W). Its
 *   pending hash may then still hold deltas that batches up to W, already in the Postgres values,
 *   were cut from: adding them would count them twice. (On the primary the sequence never stays
 *   below W: a cut continues above W, `cut.lua.ts`; until a lost sequence's first cut, the read
 *   is refused here and the caller's fallback warms on the primary, as before.)
 * When both hold, every batch up to W was cut on this server and is in the Postgres values, every
 * batch in (W, seq] is listed and not yet applied, and pending holds what came after: the sum is
 * exact as of the moment the server ran the script.
 * Billed: EVALSHA_RO + what COMPLETE_COUNTERS runs.
 */
export const READ_UNCACHED_COUNTERS = readOnlyScript(`${COMPLETE_COUNTERS}
if seq < W or #batches ~= seq - W then return {0} end
local out = {1}
local a = FIRST_GROUP
for k = 4, #KEYS do
  out[#out + 1] = complete(a)
  a = a + 1 + nf
end
return out
`);
