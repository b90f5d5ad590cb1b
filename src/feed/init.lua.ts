import { ADD_POSTS } from "./chunks.lua";
import { SERVE_PAGE } from "./page.lua";

/**
 * Writes a timeline built from Postgres and serves its first page in the same call. Refuses
 * (`{retry}`) when an unfollow happened since the build read its epoch: the rows may hold that
 * account's posts. Posts pushed during the build are already in the set; ZADD merges, so two racing
 * builds add each post once. An empty build leaves the `0` sentinel alone: the empty marker.
 */
export const INIT_TIMELINE = `${ADD_POSTS}${SERVE_PAGE}
local tl = KEYS[1]            -- feed:tl:{user}
local flags = KEYS[2]         -- feed:rx:{user}
local epoch = KEYS[3]         -- feed:ep:{user}
local seenEpoch = ARGV[1]     -- epoch read before Postgres
local cap = tonumber(ARGV[2])
local ttl = ARGV[3]
local emptyTtl = ARGV[4]
local max = ARGV[5]
local limit = tonumber(ARGV[6])
local postPrefix = ARGV[7]
local counterPrefix = ARGV[8]
local nfields = tonumber(ARGV[9])
local fields = {}
for i = 1, nfields do fields[i] = ARGV[9 + i] end
local members, scores = {}, {} -- ARGV[10 + nfields ..]: pairs (member, score)
for i = 10 + nfields, #ARGV, 2 do
  members[#members + 1] = ARGV[i]
  scores[#scores + 1] = ARGV[i + 1]
end

if (redis.call('GET', epoch) or '0') ~= seenEpoch then return cjson.encode({retry = true}) end
redis.call('ZADD', tl, 0, '0')
redis.call('ZREM', tl, 'b')
add_posts(tl, cap, members, scores)
if redis.call('ZCARD', tl) > 1 then
  redis.call('EXPIRE', tl, ttl)
else
  redis.call('EXPIRE', tl, emptyTtl)
end
return cjson.encode(serve_page(tl, flags, max, limit, ttl, postPrefix, counterPrefix, fields))
`;
