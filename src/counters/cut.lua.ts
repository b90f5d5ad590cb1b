/**
 * The flush's cut: renames the pending-delta hash to batch n (n = INCR seq) and records n as
 * unapplied, atomically — an increment lands either before the cut (in batch n) or after it (in a
 * fresh pending hash), never in both or neither. Returns `{n or 0, unapplied batch numbers
 * ascending (at most `limit`)}`.
 *
 * If Redis lost the sequence (a restart without persistence), new batches must not reuse numbers
 * Postgres already marks applied (they would be skipped as duplicates): without the watermark the
 * script then answers `{-1}` and the caller retries with it, and `seq` is raised to it first.
 *
 * The batch also keeps when it was cut, in field `@cut` (not a counter field: the flush's parse and
 * the reads' HMGET of named fields never see it), so the status reads the flush lag — the age of
 * the oldest unapplied batch — without anything written per increment. One HSET per cut.
 */
/** Field of a batch hash holding its cut time (ms). */
export const CUT_AT_FIELD = "@cut";

export const CUT_PENDING = `
local CUT_AT_FIELD = "${CUT_AT_FIELD}"
local pending = KEYS[1]            -- ctr:pending
local seqKey = KEYS[2]             -- ctr:batch:seq
local unapplied = KEYS[3]          -- ctr:batches
local W = tonumber(ARGV[1])        -- max batch number Postgres has applied, or nil when not read
local batchPrefix = ARGV[2]        -- ctr:batch: (the new batch is prefix .. n)
local limit = tonumber(ARGV[3])    -- how many unapplied numbers to return
local cutAt = ARGV[4]              -- now (ms), kept in the batch as field '@cut' (its age is the flush lag)
local n = 0
if redis.call('EXISTS', pending) == 1 then
  local seq = redis.call('GET', seqKey)
  if not seq then
    if not W then return {-1, {}} end
    -- Continue above both the applied batches and any batch still listed here.
    local top = redis.call('ZRANGE', unapplied, -1, -1)
    redis.call('SET', seqKey, math.max(W, tonumber(top[1] or '0')))
  end
  n = redis.call('INCR', seqKey)
  redis.call('RENAME', pending, batchPrefix .. n)
  if cutAt then redis.call('HSET', batchPrefix .. n, CUT_AT_FIELD, cutAt) end
  redis.call('ZADD', unapplied, n, n)
end
return {n, redis.call('ZRANGE', unapplied, 0, limit - 1)}
`;
