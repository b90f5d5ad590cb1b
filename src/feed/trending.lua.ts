import { COUNTER_CACHE_READER } from "../counters/read.lua";

/**
 * The trending list of one window. A result computed in the last seconds (`ctr:trend:r:{window}`,
 * the final JSON) is answered as it is: one GET. Otherwise the window's hourly buckets are merged
 * (ZUNIONSTORE into a scratch key, deleted at once), the top candidates read with their post cache
 * entries and cached counters, and the caller hydrates, filters and stores the result.
 * KEYS: result, scratch, the buckets. ARGV: candidates, postPrefix, counterPrefix, the post fields.
 * Billed: EVALSHA + GET; on a recompute + ZUNIONSTORE + ZREVRANGE + DEL + MGET + counters' reader.
 */
export const READ_TRENDING = `${COUNTER_CACHE_READER}
local cached = redis.call('GET', KEYS[1])
if cached then return cached end
local buckets = {}
for i = 3, #KEYS do buckets[#buckets + 1] = KEYS[i] end
redis.call('ZUNIONSTORE', KEYS[2], #buckets, unpack(buckets))
local top = redis.call('ZREVRANGE', KEYS[2], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
redis.call('DEL', KEYS[2])
local ids, scores, postKeys, counterKeys = {}, {}, {}, {}
for i = 1, #top, 2 do
  if tonumber(top[i + 1]) > 0 then
    ids[#ids + 1] = top[i]
    scores[#scores + 1] = top[i + 1]
    postKeys[#postKeys + 1] = ARGV[2] .. top[i]
    counterKeys[#counterKeys + 1] = ARGV[3] .. top[i]
  end
end
if #ids == 0 then return cjson.encode({computed = true, ids = {}}) end
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
return cjson.encode({computed = true, ids = ids, scores = scores, posts = redis.call('MGET', unpack(postKeys)), counts = read_counter_caches(counterKeys, fields)})
`;
