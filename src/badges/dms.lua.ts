/** Direct-message badge scripts: per-peer counts and `total` (= Σ peers) move together, atomically. */

export const ADD_DM = `
local hash = KEYS[1]             -- badge:dm:{user}
local peer = ARGV[1]             -- sender id
local count = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local n = redis.call('HINCRBY', hash, peer, count)
local total = redis.call('HINCRBY', hash, 'total', count)
redis.call('EXPIRE', hash, ttl)
return cjson.encode({ count = n, total = total })
`;

export const READ_DM_PEER = `
local hash = KEYS[1]   -- badge:dm:{user}
local peer = ARGV[1]
local n = tonumber(redis.call('HGET', hash, peer) or '0')
local total = tonumber(redis.call('HGET', hash, 'total') or '0')
if n > 0 then
  redis.call('HDEL', hash, peer)
  total = redis.call('HINCRBY', hash, 'total', -n)
  if total <= 0 then redis.call('HDEL', hash, 'total'); total = 0 end
end
return cjson.encode({ cleared = n, total = total })
`;

export const GET_DMS = `
local hash = KEYS[1]   -- badge:dm:{user}
local flat = redis.call('HGETALL', hash)
local byPeer, total = {}, 0
for i = 1, #flat, 2 do
  if flat[i] == 'total' then total = tonumber(flat[i + 1]) else byPeer[flat[i]] = tonumber(flat[i + 1]) end
end
return cjson.encode({ byPeer = byPeer, total = total })
`;
