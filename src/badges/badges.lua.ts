import { AUTHORS_UNREAD_SNIPPET } from "./authors.lua";
import { BROADCAST_UNREAD_SNIPPET, FIRST_SEEN_SNIPPET } from "./broadcasts.lua";
import { INBOX_SNIPPET } from "./inbox.lua";
import { REDDOTS_SNIPPET } from "./reddots.lua";
import { REMEMBER_COUNTS_SNIPPET, STREAMS_UNREAD_SNIPPET } from "./streams.lua";
import { FEED_UNSEEN_CAP } from "../feed/keys";
import { FEED_UNSEEN_FUNCTION } from "../feed/unseen.lua";
import { ACTIVE_RECORD_EVERY_MS } from "./keys";
import { readOnlyScript } from "../lib/read-only-scripts";
import { SAFETY_LUA } from "../safety/verdict.lua";

/**
 * Every badge of one user in one EVALSHA_RO: READ-ONLY (\`#!lua flags=no-writes\`), so a read
 * region of a Global database answers it without a round trip to the primary. Billed commands stay
 * flat in the backlog and in the user's follows and streams: 14 for a known user (EVALSHA_RO;
 * HGETALL of the notifications, red-dot channels and seen stamps, follow cache, stream access and
 * inbox hashes; HMGET of the markers, of the followed authors' published counts (up to 5,000
 * authors per HMGET) and of the streams' last item times; ZCOUNT of the broadcast ids; HGET of the
 * DM total; the feed's GET of its read marker, SMEMBERS of the big accounts followed and ZCOUNT of
 * the timeline above the marker), 16 when some stream has news (an HMGET of those streams'
 * versions). A stream with news costs a ZCOUNT only when its items or the user's access changed
 * since its count was remembered. Counting stops once a total passes \`cap\`. A reader following
 * big accounts with posts above the marker adds ZMSCORE, a ZRANGEBYSCORE of the timeline and one
 * per such outbox, most recently active first, until the count passes \`cap\` (\`feed_unseen\` in
 * the feed's \`unseen.lua.ts\`; at most MAX_PULLED_ACCOUNTS outboxes). The user's safety sets
 * (src/safety) add EXISTS + ZUNION (\`safety_hidden\`): the authors they hide count in neither
 * \`authors\` nor \`feed\` (for \`feed\` the ZCOUNT becomes a ZRANGEBYSCORE when some are hidden).
 *
 * What the read used to write itself it now reports, for AFTER_BADGES_READ to write afterwards
 * (\`due\`, only when something is): the first-seen broadcast marker, the stream counts to
 * remember, the TTL renewal (first call of a day) and the active-set record (first call of a
 * minute; with read regions on, only with the renewal: the user's own writes
 * carry it, \`active.ts\`). Missing caches are reported (\`*Missing\`; with the follow epoch a rebuild of the author
 * cache must still see, one GET more) so the caller answers from Postgres and rebuilds them.
 */
export const GET_BADGES = readOnlyScript(`${FEED_UNSEEN_FUNCTION}${SAFETY_LUA}
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
local feedSeenKey = KEYS[12]   -- feed:seen:{user}
local feedTimelineKey = KEYS[13] -- feed:tl:{user}
local feedBigSetKey = KEYS[14] -- feed:bf:{user}
local feedActivityKey = KEYS[15] -- feed:act
local auEpoch = KEYS[16]       -- badge:au:ep:{user} (read only when the follow cache is missing)
local safetyKeys = { KEYS[17], KEYS[18], KEYS[19], KEYS[20] } -- the user's safety sets (src/safety: safetyKeysOf)
local limit = tonumber(ARGV[1])  -- cap: totals stop counting once above it
local now = ARGV[2]              -- ms: is the active-set record or the TTL renewal due
local itemPrefix = ARGV[3]       -- key prefix of stream item sets
local outboxPrefix = ARGV[4]     -- key prefix of big accounts' outboxes
local maxPulled = tonumber(ARGV[5]) -- big accounts merged at most (the feed page's bound)
local wantBigs = ARGV[6] == '1'  -- a live hub's snapshot: answer the big accounts followed too
local everyMinute = ARGV[7] == '1' -- reads record the active set each minute; '0' (read regions on): only with the day's TTL renewal, the user's writes carry it
local safetyClock = tonumber(ARGV[8]) -- ms: a mute's end
local suspended = ARGV[9]        -- src/safety's suspended users (ids joined by ','; '' none), from the isolate's copy
local wantList = false
local lastReadId = false
-- Authors the user's blocks and mutes hide leave "N new posts" and unread per author. Sets not
-- cached: counted unfiltered and answered with \`safetyMiss\` (and the safety epoch); the Worker
-- rebuilds them from Postgres and reads again only if they hide someone (a new user's first read
-- pays the rebuild, not a second read).
local authorsHidden = safety_hidden(safetyKeys, safetyClock)
local safetyMiss = authorsHidden == 'miss'
if safetyMiss or next(authorsHidden) == nil then authorsHidden = nil end
-- Suspended users' posts count for nobody, whether or not the sets are cached.
authorsHidden = safety_add_suspended(authorsHidden, suspended)
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
local authorsEpoch = authorsMissing and (redis.call('GET', auEpoch) or '0') or nil
local accFlat = redis.call('HGETALL', stAccess)
${STREAMS_UNREAD_SNIPPET}
local dmTotal = tonumber(redis.call('HGET', dms, 'total') or '0')
${INBOX_SNIPPET}
local feedUnseen, feedBigs = feed_unseen({seen = feedSeenKey, tl = feedTimelineKey, bigset = feedBigSetKey, activity = feedActivityKey, outboxPrefix = outboxPrefix, maxPulled = maxPulled, hidden = authorsHidden}, math.min(${FEED_UNSEEN_CAP}, limit + 1))
-- Caches live 30 days after their last write, so a user who only reads has them renewed on their
-- first call of a day (\`ttlDay\`). The repair cron wants the recently active users: to the minute
-- (\`act\`) when reads record them (\`everyMinute\`), else with that renewal only, so a warm read of
-- a deployment with read regions sends nothing to the primary. Both are AFTER_BADGES_READ's to write.
local nowMs = tonumber(now)
local renew = tonumber(marks[2] or '-1') ~= math.floor(nowMs / 86400000)
local recordActive = (everyMinute or renew) and (not marks[3] or nowMs - tonumber(marks[3]) >= ${ACTIVE_RECORD_EVERY_MS})
local due = nil
if recordActive or renew or bcFirstSeen or #streamsRemember > 0 then
  due = { firstSeen = bcFirstSeen, remember = streamsRemember }
end

return cjson.encode({
  notifications = { byType = nBy, total = nTotal },
  broadcasts = { missing = bcMissing, unread = bcUnread },
  reddots = dots,
  authors = { missing = authorsMissing, total = authorsTotal, epoch = authorsEpoch },
  streams = { missing = streamsMissing, total = streamsTotal, byStream = streamsBy },
  dms = { total = dmTotal },
  inbox = { missing = inboxMissing, byType = inboxBy, total = inboxTotal },
  feed = feedUnseen,
  feedBigs = wantBigs and feedBigs or nil,
  due = due,
  safetyMiss = safetyMiss or nil,
  safetyEpoch = safetyMiss and (redis.call('GET', safetyKeys[4]) or '') or nil,
})
`);

/**
 * What a badges read found due, written as a call of its own after the answer (\`waitUntil\`), to
 * the primary: the first-seen broadcast marker (only if still absent: FIRST_SEEN_SNIPPET), the
 * stream counts to remember (only where the access is unchanged: REMEMBER_COUNTS_SNIPPET), the
 * active-set record (first call of a minute; of a day with read regions on) and the renewal of every per-user key's TTL (first
 * call of a day). Each is checked again here, against the primary's state: a read answered by a
 * lagging region may find due what another call has done meanwhile, and writing it twice would
 * only cost commands. Answers 1 when the first-seen marker was recorded (Postgres is told then).
 * Billed: EVALSHA + HMGET of the markers, + ZADD + HSET when recording, + HSETNX (+ EXPIRE), +
 * HMGET + HSET of the counts, + 7 EXPIRE when renewing.
 */
export const AFTER_BADGES_READ = `
local markers = KEYS[1]          -- badge:m:{user}
local active = KEYS[2]           -- badge:active
local stAccess = KEYS[3]         -- badge:st:u:{user}; KEYS[3..]: the user's other keys, whose TTLs are renewed with the markers'
local userId = ARGV[1]
local now = ARGV[2]              -- ms
local ttl = tonumber(ARGV[3])    -- per-user TTL
local firstSeen = ARGV[4]        -- '' or the first-seen broadcast id the read answered from
local remember = { unpack(ARGV, 5) } -- stream counts: field, value pairs
local marks = redis.call('HMGET', markers, 'act', 'ttlDay')
local nowMs = tonumber(now)
local today = math.floor(nowMs / 86400000)
local stamps = {}
if not marks[1] or nowMs - tonumber(marks[1]) >= ${ACTIVE_RECORD_EVERY_MS} then
  redis.call('ZADD', active, now, userId)
  stamps[#stamps + 1] = 'act'; stamps[#stamps + 1] = now
end
local renew = tonumber(marks[2] or '-1') ~= today
if renew then stamps[#stamps + 1] = 'ttlDay'; stamps[#stamps + 1] = today end
${FIRST_SEEN_SNIPPET}
if #stamps > 0 then redis.call('HSET', markers, unpack(stamps)) end
${REMEMBER_COUNTS_SNIPPET}
if renew then
  redis.call('EXPIRE', markers, ttl)
  for i = 3, #KEYS do redis.call('EXPIRE', KEYS[i], ttl) end
end
return firstSeenSet and 1 or 0
`;
