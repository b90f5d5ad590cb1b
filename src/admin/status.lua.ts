/**
 * The Redis figures of `GET /v1/admin/status` on ONE database, in one call, from keys that exist
 * anyway or that background jobs record — no per-user key, no scan. Run once per database, in
 * parallel: every database has its own counters pending hash and batches; the operations keys
 * (reconcile cursor, `ops:runs`, `ops:fanouts`) live on database 0 only, so only database 0's call
 * names them (5 keys) and the others' name just the counter keys (2 keys).
 *
 * Answers `{pending fields, unapplied batches, oldest unapplied batch or false, its cut time (ms) or false}`,
 * and on database 0 also `{…, reconcile cursor JSON or false, ops:runs as [field, value, …],
 * last fan-outs [[id, [k, v, …]], …]}`.
 *
 * On database 0 also the newest push broadcasts' progress: `[[id, [field, value, …]], …]`, newest
 * first (their hashes are named from the ids the sorted set holds: `ops:broadcast:{id}`).
 *
 * KEYS: ctr:pending, ctr:batches[, ctr:reconcile:cursor, ops:runs, ops:fanouts, ops:broadcasts].
 * Billed: EVALSHA + HLEN + ZCARD + ZRANGE + (HGET when a batch waits) = at most 5, plus
 * GET + HGETALL + XREVRANGE + ZREVRANGE + one HGETALL per broadcast shown (≤ BROADCAST_PROGRESS_SHOWN)
 * on database 0 = at most 9 + 5 there.
 */
export const READ_STATUS = `
local pending = KEYS[1]            -- ctr:pending (hash of deltas since the last cut)
local batches = KEYS[2]            -- ctr:batches (zset of unapplied batch numbers)
local batchPrefix = ARGV[1]        -- ctr:batch: (batch n lives at prefix .. n)
local cutField = ARGV[2]           -- @cut (the batch's cut time, ms)
local oldest = redis.call('ZRANGE', batches, 0, 0)[1] or false
local cutAt = false
if oldest then cutAt = redis.call('HGET', batchPrefix .. oldest, cutField) end
local out = { redis.call('HLEN', pending), redis.call('ZCARD', batches), oldest, cutAt }
if #KEYS >= 5 then
  local cursor = KEYS[3]           -- ctr:reconcile:cursor (JSON, while a pass runs)
  local runs = KEYS[4]             -- ops:runs (hash: each job's last run)
  local fanouts = KEYS[5]          -- ops:fanouts (stream of the last fan-out completions)
  local samples = ARGV[3]          -- fan-outs to read, newest first
  out[5] = redis.call('GET', cursor)
  out[6] = redis.call('HGETALL', runs)
  out[7] = redis.call('XREVRANGE', fanouts, '+', '-', 'COUNT', samples)
  local broadcasts = KEYS[6]       -- ops:broadcasts (zset: push broadcasts by start time)
  local broadcastPrefix = ARGV[4]  -- ops:broadcast: (a broadcast's progress hash is prefix .. id)
  local shown = tonumber(ARGV[5])  -- broadcasts to read, newest first
  local progress = {}
  for _, id in ipairs(redis.call('ZREVRANGE', broadcasts, 0, shown - 1)) do
    progress[#progress + 1] = { id, redis.call('HGETALL', broadcastPrefix .. id) }
  end
  out[8] = progress
end
return out
`;
