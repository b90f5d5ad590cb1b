/**
 * The flush's cut: renames the pending-delta hash to batch n (n = INCR seq) and records n as
 * unapplied, atomically — an increment lands either before the cut (in batch n) or after it (in a
 * fresh pending hash), never in both or neither. Returns `{n or 0, unapplied batch numbers
 * ascending (at most `limit`)}`.
 *
 * `seq` is raised to the Postgres watermark first: if Redis lost the sequence, new batches must not
 * reuse numbers Postgres already marks applied (they would be skipped as duplicates).
 */
export const CUT_PENDING = `
local pending = KEYS[1]            -- ctr:pending
local seqKey = KEYS[2]             -- ctr:batch:seq
local unapplied = KEYS[3]          -- ctr:batches
local W = tonumber(ARGV[1])        -- max batch number Postgres has applied
local batchPrefix = ARGV[2]        -- ctr:batch: (the new batch is prefix .. n)
local limit = tonumber(ARGV[3])    -- how many unapplied numbers to return
local n = 0
if redis.call('EXISTS', pending) == 1 then
  if tonumber(redis.call('GET', seqKey) or '0') < W then redis.call('SET', seqKey, W) end
  n = redis.call('INCR', seqKey)
  redis.call('RENAME', pending, batchPrefix .. n)
  redis.call('ZADD', unapplied, n, n)
end
return {n, redis.call('ZRANGE', unapplied, 0, limit - 1)}
`;
