import { AUTHORS_UNREAD_SNIPPET } from "./authors.lua";
import { BROADCAST_UNREAD_SNIPPET } from "./broadcasts.lua";
import { INBOX_SNIPPET } from "./inbox.lua";
import { REDDOTS_SNIPPET } from "./reddots.lua";
import { STREAMS_UNREAD_SNIPPET } from "./streams.lua";
import { FEED_UNSEEN_CAP } from "../feed/keys";
import { FEED_UNSEEN_FUNCTION } from "../feed/unseen.lua";
import { ACTIVE_RECORD_EVERY_MS } from "./keys";

/**
 * Every badge of one user in one EVALSHA. Billed commands stay flat in the backlog and in the
 * user's follows and streams: 14 for a known user (EVALSHA; HGETALL of the notifications, red-dot
 * channels and seen stamps, follow cache, stream access and inbox hashes; HMGET of the markers, of
 * the followed authors' published counts (up to 5,000 authors per HMGET) and of the streams' last
 * item times; ZCOUNT of the broadcast ids; HGET of the DM total; the feed's GET of its read marker,
 * SMEMBERS of the big accounts followed and ZCOUNT of the timeline above the marker), 16 when some
 * stream has news (an
 * HMGET of those streams' versions). A stream with news costs a ZCOUNT only when its items or the
 * user's access changed since its count was remembered (then one HSET remembers the new counts); the active-set ZADD + HSET happen on the
 * first call of a minute, the EXPIREs on the first call of a day. Counting stops once a total
 * passes \`cap\`. Missing caches are reported (\`*Missing\`) so the caller rebuilds them.
 * A reader following big accounts with posts above the marker adds ZMSCORE, a ZRANGEBYSCORE of the
 * timeline and one per such outbox, most recently active first, until the count passes \`cap\`
 * (\`feed_unseen\` in the feed's \`unseen.lua.ts\`; at most MAX_PULLED_ACCOUNTS outboxes).
 */
export const GET_BADGES = `${FEED_UNSEEN_FUNCTION}
local notifications = KEYS[1]  -- badge:n:{user}
local markers = KEYS[2]        -- badge:m:{user}
local bcIds = KEYS[3]          -- badge:bc:window
local rdChannels = KEYS[4]     -- badge:rd:ch
local rdSeen = KEYS[5]         -- badge:rd:{user}
local auSeen = KEYS[6]         -- badge:au:{user}
local auPub = KEYS[7]          -- badge:au:pub
local stAccess = KEYS[8]       -- badge:st:u:{user}
local stLast = KEYS[9]         -- badge:st:last
local dms = KEYS[10]           -- badge:dm:{user}
local inbox = KEYS[11]         -- badge:ib:{user}
local active = KEYS[12]        -- badge:active
local feedSeenKey = KEYS[13]   -- feed:seen:{user}
local feedTimelineKey = KEYS[14] -- feed:tl:{user}
local feedBigSetKey = KEYS[15] -- feed:bf:{user}
local feedActivityKey = KEYS[16] -- feed:act
local limit = tonumber(ARGV[1])  -- cap: totals stop counting once above it
local userId = ARGV[2]
local now = ARGV[3]              -- ms: the active-users set, the day of the TTL renewal
local ttl = tonumber(ARGV[4])    -- per-user TTL (first-seen marker)
local itemPrefix = ARGV[5]       -- key prefix of stream item sets
local outboxPrefix = ARGV[6]     -- key prefix of big accounts' outboxes
local maxPulled = tonumber(ARGV[7]) -- big accounts merged at most (the feed page's bound)
local wantBigs = ARGV[8] == '1'  -- a live hub's snapshot: answer the big accounts followed too
local wantList = false
local lastReadId = false
-- The marker hash answers the broadcast marker and when this user's TTLs and activity were last
-- written, in one command: those writes happen only when due, not on every call.
local marks = redis.call('HMGET', markers, 'bc', 'ttlDay', 'act')
local bcMarker = marks[1]

local nFlat = redis.call('HGETALL', notifications)
local nBy, nTotal = {}, 0
for i = 1, #nFlat, 2 do
  if nFlat[i] == 'total' then nTotal = tonumber(nFlat[i + 1]) else nBy[nFlat[i]] = tonumber(nFlat[i + 1]) end
end
${BROADCAST_UNREAD_SNIPPET}
${REDDOTS_SNIPPET}
${AUTHORS_UNREAD_SNIPPET}
${STREAMS_UNREAD_SNIPPET}
local dmTotal = tonumber(redis.call('HGET', dms, 'total') or '0')
${INBOX_SNIPPET}
local feedUnseen, feedBigs = feed_unseen({seen = feedSeenKey, tl = feedTimelineKey, bigset = feedBigSetKey, activity = feedActivityKey, outboxPrefix = outboxPrefix, maxPulled = maxPulled}, math.min(${FEED_UNSEEN_CAP}, limit + 1))
-- The repair cron wants the recently active users, to the minute: a user is recorded in the
-- active set on their first call of each minute (\`act\` = when), not on every call.
-- Caches live 30 days after their last write; a user who only reads must not lose them (a
-- rebuilt author cache would start at current counts and drop their unread posts). Their TTLs are
-- renewed on the first call of each day (\`ttlDay\`).
local nowMs = tonumber(now)
local today = math.floor(nowMs / 86400000)
local stamps = {}
if not marks[3] or nowMs - tonumber(marks[3]) >= ${ACTIVE_RECORD_EVERY_MS} then
  redis.call('ZADD', active, now, userId)
  stamps[#stamps + 1] = 'act'; stamps[#stamps + 1] = now
end
local renew = tonumber(marks[2] or '-1') ~= today
if renew then stamps[#stamps + 1] = 'ttlDay'; stamps[#stamps + 1] = today end
if #stamps > 0 then redis.call('HSET', markers, unpack(stamps)) end
if renew then
  for _, key in ipairs({ notifications, markers, rdSeen, auSeen, stAccess, dms, inbox }) do
    redis.call('EXPIRE', key, ttl)
  end
end

return cjson.encode({
  notifications = { byType = nBy, total = nTotal },
  broadcasts = { missing = bcMissing, firstSeen = bcFirstSeen, unread = bcUnread },
  reddots = dots,
  authors = { missing = authorsMissing, total = authorsTotal },
  streams = { missing = streamsMissing, total = streamsTotal, byStream = streamsBy },
  dms = { total = dmTotal },
  inbox = { missing = inboxMissing, byType = inboxBy, total = inboxTotal },
  feed = feedUnseen,
  feedBigs = wantBigs and feedBigs or nil,
})
`;
