/**
 * Every Redis figure of `GET /v1/admin/status` in one call, from keys that exist anyway or that
 * background jobs record — no per-user key, no scan. Answers
 * `{pending fields, unapplied batches, oldest unapplied batch or false, its cut time (ms) or false,
 *   reconcile cursor JSON or false, ops:runs as [field, value, …], last fan-outs [[id, [k, v, …]], …]}`.
 *
 * KEYS: ctr:pending, ctr:batches, ctr:reconcile:cursor, ops:runs, ops:fanouts.
 * Billed: EVALSHA + HLEN + ZCARD + ZRANGE + (HGET when a batch waits) + GET + HGETALL + XREVRANGE = at most 8.
 */
export const READ_STATUS = `
local pending = KEYS[1]            -- ctr:pending (hash of deltas since the last cut)
local batches = KEYS[2]            -- ctr:batches (zset of unapplied batch numbers)
local cursor = KEYS[3]             -- ctr:reconcile:cursor (JSON, while a pass runs)
local runs = KEYS[4]               -- ops:runs (hash: each job's last run)
local fanouts = KEYS[5]            -- ops:fanouts (stream of the last fan-out completions)
local batchPrefix = ARGV[1]        -- ctr:batch: (batch n lives at prefix .. n)
local cutField = ARGV[2]           -- @cut (the batch's cut time, ms)
local samples = ARGV[3]            -- fan-outs to read, newest first
local oldest = redis.call('ZRANGE', batches, 0, 0)[1] or false
local cutAt = false
if oldest then cutAt = redis.call('HGET', batchPrefix .. oldest, cutField) end
return {
  redis.call('HLEN', pending),
  redis.call('ZCARD', batches),
  oldest,
  cutAt,
  redis.call('GET', cursor),
  redis.call('HGETALL', runs),
  redis.call('XREVRANGE', fanouts, '+', '-', 'COUNT', samples),
}
`;
