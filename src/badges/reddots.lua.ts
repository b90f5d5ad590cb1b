/** Red-dot scripts. Stamps come from Redis TIME (µs) so a refresh and a seen are ordered by one clock. */

/** Stamps a channel "refreshed now"; refuses a new channel beyond the cap. */
export const REFRESH_CHANNEL = `
local channels = KEYS[1]            -- badge:rd:ch
local channel = ARGV[1]
local maxChannels = tonumber(ARGV[2])
if redis.call('HEXISTS', channels, channel) == 0 and redis.call('HLEN', channels) >= maxChannels then
  return cjson.encode({ full = true })
end
local t = redis.call('TIME')
local now = t[1] .. string.format('%06d', tonumber(t[2]))
redis.call('HSET', channels, channel, now)
return cjson.encode({ full = false, at = now })
`;

/**
 * The repair of a database that missed refreshes (it was down): raises each channel given
 * (ARGV = channel, refreshed-at pairs: the newest stamp any database holds) where this database's
 * stamp is missing or older by more than \`margin\` µs. Each database stamps a refresh from its own
 * clock, so equal refreshes differ by the clocks' skew: the margin keeps those as they are (raising
 * one could light a dot its users saw within that skew). Answers the channels raised.
 */
export const CATCH_UP_CHANNELS = `
local channels = KEYS[1]        -- badge:rd:ch
local margin = tonumber(ARGV[1])
local raised = 0
for i = 2, #ARGV, 2 do
  local mine = redis.call('HGET', channels, ARGV[i])
  if not mine or tonumber(mine) + margin < tonumber(ARGV[i + 1]) then
    redis.call('HSET', channels, ARGV[i], ARGV[i + 1])
    raised = raised + 1
  end
end
return raised
`;

/** Every channel and its refreshed-at stamp, as strings (flat: channel, stamp, …). */
export const READ_CHANNELS = `
return cjson.encode(redis.call('HGETALL', KEYS[1]))  -- badge:rd:ch
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

export const GET_REDDOTS = `
local rdChannels = KEYS[1]  -- badge:rd:ch
local rdSeen = KEYS[2]      -- badge:rd:{user}
${REDDOTS_SNIPPET}
return cjson.encode({ dots = dots })
`;
