import { readOnlyScript } from "../lib/read-only-scripts";

/** Red-dot scripts. Stamps come from Redis TIME (µs) so a refresh and a seen are ordered by one clock. */

/**
 * Stamps a channel "refreshed now"; refuses a new channel beyond the cap. At N > 1 it also records
 * the refresh's id (the same in every database), so the repair can tell a refresh a database missed
 * from the same refresh stamped by another database's clock; at N = 1 no id is written.
 */
export const REFRESH_CHANNEL = `
local channels = KEYS[1]            -- badge:rd:ch
local refreshIds = KEYS[2]          -- badge:rd:ids
local channel = ARGV[1]
local maxChannels = tonumber(ARGV[2])
local refreshId = ARGV[3]           -- '' at N = 1
if redis.call('HEXISTS', channels, channel) == 0 and redis.call('HLEN', channels) >= maxChannels then
  return cjson.encode({ full = true })
end
local t = redis.call('TIME')
local now = t[1] .. string.format('%06d', tonumber(t[2]))
redis.call('HSET', channels, channel, now)
if refreshId ~= '' then redis.call('HSET', refreshIds, channel, refreshId) end
return cjson.encode({ full = false, at = now })
`;

/**
 * The repair of a database that missed refreshes (it was down): ARGV = (channel, stamp, refresh
 * id, the refresh id this database held when read) per channel, the newest refresh another
 * database holds. Taken where this database still holds what the repair read (a refresh since
 * then wins). Answers the channels raised.
 */
export const CATCH_UP_CHANNELS = `
local channels = KEYS[1]        -- badge:rd:ch
local refreshIds = KEYS[2]      -- badge:rd:ids
local raised = 0
for i = 1, #ARGV, 4 do
  if (redis.call('HGET', refreshIds, ARGV[i]) or '') == ARGV[i + 3] then
    redis.call('HSET', channels, ARGV[i], ARGV[i + 1])
    redis.call('HSET', refreshIds, ARGV[i], ARGV[i + 2])
    raised = raised + 1
  end
end
return raised
`;

/** Every channel's refreshed-at stamp and refresh id, as strings: {channels = {flat}, ids = {flat}}. */
export const READ_CHANNELS = `
return cjson.encode({ channels = redis.call('HGETALL', KEYS[1]), ids = redis.call('HGETALL', KEYS[2]) })  -- badge:rd:ch, badge:rd:ids
`;

/** Stamps the user "seen now" on a channel that exists. */
export const SEE_CHANNEL = `
local channels = KEYS[1]        -- badge:rd:ch
local seen = KEYS[2]            -- badge:rd:{user}
local channel = ARGV[1]
local ttl = tonumber(ARGV[2])
if redis.call('HEXISTS', channels, channel) == 0 then return cjson.encode({ exists = false }) end
local t = redis.call('TIME')
local now = t[1] .. string.format('%06d', tonumber(t[2]))
redis.call('HSET', seen, channel, now)
redis.call('EXPIRE', seen, ttl)
return cjson.encode({ exists = true, at = now })
`;

/** Shared Lua: defines \`dots\` (channel → true/false) from channels and the user's seen stamps. */
export const REDDOTS_SNIPPET = `
local dots = {}
local chFlat = redis.call('HGETALL', rdChannels)
if #chFlat > 0 then
  local seenFlat = redis.call('HGETALL', rdSeen)
  local seenAt = {}
  for i = 1, #seenFlat, 2 do seenAt[seenFlat[i]] = tonumber(seenFlat[i + 1]) end
  for i = 1, #chFlat, 2 do
    local s = seenAt[chFlat[i]]
    dots[chFlat[i]] = (s == nil) or (s < tonumber(chFlat[i + 1]))
  end
end
`;

export const GET_REDDOTS = readOnlyScript(`local rdChannels = KEYS[1]  -- badge:rd:ch
local rdSeen = KEYS[2]      -- badge:rd:{user}
${REDDOTS_SNIPPET}
return cjson.encode({ dots = dots })
`);
