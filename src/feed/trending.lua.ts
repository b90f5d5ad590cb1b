import { COUNTER_CACHE_READER } from "../counters/read.lua";
import { readOnlyScript } from "../lib/read-only-scripts";

/**
 * A stored copy of a window's list (`ctr:trend:f:*` fresh, `ctr:trend:l:*` last; hash `o` = ids in
 * rank order, {postId} = item JSON) as one JSON answer `{"items":[…]}`, or nil when there is no
 * copy. The items are the JSON the Worker stored, joined as they are (never decoded and encoded
 * again); an id whose field a delete removed is skipped. Billed: HGETALL.
 */
const LISTED = `
local function listed(copy)
  local h = redis.call('HGETALL', copy)
  if #h == 0 then return nil end
  local byId = {}
  for i = 1, #h, 2 do byId[h[i]] = h[i + 1] end
  local items = {}
  for id in string.gmatch(byId.o or '', '%d+') do
    if byId[id] then items[#items + 1] = byId[id] end
  end
  return '{"items":[' .. table.concat(items, ',') .. ']}'
end
`;

/**
 * The stored list of a window as a read region has it (read-only, EVALSHA_RO), for deployments with
 * read regions: the fresh copy when there is one, else the last copy if it was stored at most
 * ARGV[1] ms ago (its age is the last copy's life, ARGV[2] ms, minus its PTTL), as `{"items":…}`;
 * `{"missing":true}` when neither is (the caller computes the list itself, read-only).
 * KEYS: fresh copy, last copy. Billed: EVALSHA_RO + HGETALL (+ PTTL + HGETALL when not fresh).
 */
export const READ_TRENDING_COPY = readOnlyScript(`${LISTED}
local fresh = listed(KEYS[1])
if fresh then return fresh end
local ttl = redis.call('PTTL', KEYS[2])
if ttl < 0 or tonumber(ARGV[2]) - ttl > tonumber(ARGV[1]) then return '{"missing":true}' end
return listed(KEYS[2]) or '{"missing":true}'
`);

/**
 * One database's candidates for a window: its top `candidates` posts with a score above 0, each
 * with its post cache entry and cached counters. A post's whole score is in the buckets of the
 * database holding it, so these are exactly that database's top posts of the window. Both answer
 * the JSON the Worker merges: `{ids, scores, posts, counts}` (ids empty when there is nothing).
 * - `top_candidates` merges the buckets with ZUNIONSTORE into a scratch key deleted at once (a
 *   write: the primary's recompute);
 * - `near_candidates` with ZUNION (read-only: a read region answers it), which returns the whole
 *   union, lowest first, to the script: the top is its end, read backwards (the order ZREVRANGE
 *   gives: score, then member, descending).
 * `hydrated` takes the best-first (member, score) pairs to the answer.
 */
const TOP_CANDIDATES = `
local function hydrated(top, postPrefix, counterPrefix, fields)
  local ids, scores, postKeys, counterKeys = {}, {}, {}, {}
  for i = 1, #top, 2 do
    if tonumber(top[i + 1]) > 0 then
      ids[#ids + 1] = top[i]
      scores[#scores + 1] = top[i + 1]
      postKeys[#postKeys + 1] = postPrefix .. top[i]
      counterKeys[#counterKeys + 1] = counterPrefix .. top[i]
    end
  end
  if #ids == 0 then return {ids = {}} end
  return {ids = ids, scores = scores, posts = redis.call('MGET', unpack(postKeys)), counts = read_counter_caches(counterKeys, fields)}
end
local function top_candidates(scratch, buckets, candidates, postPrefix, counterPrefix, fields)
  redis.call('ZUNIONSTORE', scratch, #buckets, unpack(buckets))
  local top = redis.call('ZREVRANGE', scratch, 0, candidates - 1, 'WITHSCORES')
  redis.call('DEL', scratch)
  return hydrated(top, postPrefix, counterPrefix, fields)
end
local function near_candidates(buckets, candidates, postPrefix, counterPrefix, fields)
  local args = {#buckets}
  for i = 1, #buckets do args[#args + 1] = buckets[i] end
  args[#args + 1] = 'WITHSCORES'
  local all = redis.call('ZUNION', unpack(args))
  local top = {}
  for k = 0, math.min(candidates, #all / 2) - 1 do
    top[#top + 1] = all[#all - 2 * k - 1]
    top[#top + 1] = all[#all - 2 * k]
  end
  return hydrated(top, postPrefix, counterPrefix, fields)
end
`;

/**
 * The trending list of one window, one recompute per window at a time across every isolate and
 * every database (the lock and the stored lists live on database 0):
 * - a fresh copy (computed in the last 5 s) is answered as it is;
 * - otherwise the caller that takes the window's lock (SET NX PX) recomputes: this database's
 *   candidates come back at once (`top_candidates`), with `computed`; at N > 1 the caller asks
 *   every other database for its own (TRENDING_CANDIDATES, in parallel), merges, hydrates, filters
 *   and stores the list with STORE_TRENDING, which releases the lock;
 * - a caller that finds the lock taken gets the last copy (`{"items":…}`), or `{"wait":true}` when
 *   there has never been one (it asks again shortly; it takes the lock itself if the recompute dies).
 * KEYS: fresh copy, last copy, lock, scratch, the buckets. ARGV: candidates, postPrefix,
 * counterPrefix, lock token, lock ms, the post fields.
 * Billed: EVALSHA + HGETALL when fresh; + SET (+ HGETALL) otherwise; a recompute + ZUNIONSTORE +
 * ZREVRANGE + DEL + MGET + counters' MGET.
 */
export const READ_TRENDING = `${COUNTER_CACHE_READER}${LISTED}${TOP_CANDIDATES}
local fresh = listed(KEYS[1])
if fresh then return fresh end
if not redis.call('SET', KEYS[3], ARGV[4], 'NX', 'PX', ARGV[5]) then
  return listed(KEYS[2]) or '{"wait":true}'
end
local buckets = {}
for i = 5, #KEYS do buckets[#buckets + 1] = KEYS[i] end
local fields = {}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
local found = top_candidates(KEYS[4], buckets, tonumber(ARGV[1]), ARGV[2], ARGV[3], fields)
found.computed = true
return cjson.encode(found)
`;

/**
 * The candidates of one more database (N > 1) for a recompute under way: its top posts of the
 * window as READ_TRENDING's recompute answers them, without the lock (held on database 0).
 * KEYS: scratch, the buckets. ARGV: candidates, postPrefix, counterPrefix, the post fields.
 * Billed: EVALSHA + ZUNIONSTORE + ZREVRANGE + DEL (+ MGET + counters' MGET when it has any).
 */
export const TRENDING_CANDIDATES = `${COUNTER_CACHE_READER}${TOP_CANDIDATES}
local buckets = {}
for i = 2, #KEYS do buckets[#buckets + 1] = KEYS[i] end
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
return cjson.encode(top_candidates(KEYS[1], buckets, tonumber(ARGV[1]), ARGV[2], ARGV[3], fields))
`;

/**
 * One database's candidates for a list a reader computes itself, read-only (EVALSHA_RO: a read
 * region answers it), with read regions on when no stored copy is young enough: the top posts of
 * the window as TRENDING_CANDIDATES answers them (`near_candidates`: ZUNION), and, on database 0
 * (ARGV[4] = "1"), `gone`: the posts deleted in the last minute, which the reader leaves out (a post
 * whose cache entry was not tombstoned on its own database yet). Nothing is stored.
 * KEYS: gone, the buckets. ARGV: candidates, postPrefix, counterPrefix, read gone ("1"/"0"), the
 * post fields. Billed: EVALSHA_RO + ZUNION (+ MGET + counters' MGET when it has any) (+ ZRANGE).
 */
export const NEAR_TRENDING_CANDIDATES = readOnlyScript(`${COUNTER_CACHE_READER}${TOP_CANDIDATES}
local buckets = {}
for i = 2, #KEYS do buckets[#buckets + 1] = KEYS[i] end
local fields = {}
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
local found = near_candidates(buckets, tonumber(ARGV[1]), ARGV[2], ARGV[3], fields)
if ARGV[4] == '1' then found.gone = redis.call('ZRANGE', KEYS[1], 0, -1) end
return cjson.encode(found)
`);

/**
 * Stores a recomputed list as the fresh copy (5 s) and the last copy, and releases the lock — only
 * while the lock is still this caller's (a recompute that outlived its lock leaves the window to
 * the newer one). Posts deleted since the candidates were read (`ctr:trend:gone`) are left out, and
 * returned so the caller leaves them out of its own answer too.
 * With `store` "0" (a database did not answer, so the list misses its posts) nothing is stored and
 * the lock is kept until it expires: readers keep the last copy, and the next recompute is at most
 * one per lock life while that database is down.
 * KEYS: fresh copy, last copy, lock, gone. ARGV: token, fresh ms, last copy seconds, store ("1" or
 * "0"), then (post id, item JSON) pairs in rank order.
 * Billed: EVALSHA + ZMSCORE (+ GET + DEL + HSET + PEXPIRE + DEL + HSET + EXPIRE + DEL).
 */
export const STORE_TRENDING = `
local ids, items = {}, {}
for i = 5, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
  items[#items + 1] = ARGV[i + 1]
end
local dropped, fields, order = {}, {}, {}
local gone = #ids > 0 and redis.call('ZMSCORE', KEYS[4], unpack(ids)) or {}
for i = 1, #ids do
  if gone[i] then
    dropped[#dropped + 1] = ids[i]
  else
    order[#order + 1] = ids[i]
    fields[#fields + 1] = ids[i]
    fields[#fields + 1] = items[i]
  end
end
if ARGV[4] == '1' and redis.call('GET', KEYS[3]) == ARGV[1] then
  for c = 1, 2 do
    redis.call('DEL', KEYS[c])
    redis.call('HSET', KEYS[c], 'o', table.concat(order, ','), unpack(fields))
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  redis.call('DEL', KEYS[3])
end
return dropped
`;

/**
 * Deleted posts leave every window's stored lists at once (fresh and last copies: one HDEL each,
 * whatever the number of posts), and are remembered for a minute so a recompute already under way
 * does not store them again. A copy computed after the delete drops them itself (tombstone).
 * KEYS: the copies of every window, then gone. ARGV: now (ms), how long gone remembers (ms), the
 * post ids. Billed: EVALSHA + one HDEL per copy + ZADD + ZREMRANGEBYSCORE + PEXPIRE.
 */
export const DROP_TRENDING_POSTS = `
local gone = KEYS[#KEYS]
local now, keep = tonumber(ARGV[1]), tonumber(ARGV[2])
local ids, scored = {}, {}
for i = 3, #ARGV do
  ids[#ids + 1] = ARGV[i]
  scored[#scored + 1] = now
  scored[#scored + 1] = ARGV[i]
end
if #ids == 0 then return 0 end
for c = 1, #KEYS - 1 do redis.call('HDEL', KEYS[c], unpack(ids)) end
redis.call('ZADD', gone, unpack(scored))
redis.call('ZREMRANGEBYSCORE', gone, '-inf', now - keep)
redis.call('PEXPIRE', gone, keep)
return #ids
`;
