import { ADD_POSTS } from "./chunks.lua";
import { READ_CONFIG } from "./page.lua";

/**
 * Writes a timeline built from Postgres — the normal followees' posts and the set of big accounts
 * to pull — with its TTLs. The page is not served here: the read answers it from the build's own
 * rows (READ_PAGE with them), beside this write. Refuses (`{retry}`) when an unfollow happened
 * since the build read its epoch: the rows may hold that account. Posts pushed during the build
 * are already in the set; ZADD merges, so two racing builds add each post once. An empty build
 * leaves the `0` sentinel alone: the empty marker. The `feed` badge's marker (KEYS[6]) is set to the
 * merged page's newest post (the built timeline's or a pulled big account's: `merged_top`): what a
 * build copies in, or pulls, is not new — always for a first page's build (its read is a read of
 * everything new), only when missing otherwise (a later page's build is not).
 * ARGV: epoch, cap, emptyTtl, first ('1' | ''), the config (READ_CONFIG), then nbig, the big
 * accounts, then pairs (member, score). Billed: EVALSHA + GET + ZADD + ZREM + ZADD +
 * ZREMRANGEBYRANK (+ SADD + EXPIRE) + ZCARD + EXPIRE + ZRANGE + SMEMBERS (+ ZMSCORE) + SET.
 */
export const INIT_TIMELINE = `${ADD_POSTS}${READ_CONFIG}
local seenEpoch = ARGV[1]
local cap = tonumber(ARGV[2])
local emptyTtl = ARGV[3]
local first = ARGV[4] == '1'
local cfg = read_config(5)
local a = cfg.nextArg
local nbig = tonumber(ARGV[a])
local bigs = {}
for i = 1, nbig do bigs[i] = ARGV[a + i] end
local members, scores = {}, {}
for i = a + 1 + nbig, #ARGV, 2 do
  members[#members + 1] = ARGV[i]
  scores[#scores + 1] = ARGV[i + 1]
end

if (redis.call('GET', cfg.epoch) or '0') ~= seenEpoch then return cjson.encode({retry = true}) end
redis.call('ZADD', cfg.tl, 0, '0')
redis.call('ZREM', cfg.tl, 'b')
add_posts(cfg.tl, cap, members, scores)
-- A union, not a replacement: a transition or follow sync may have added an account during the build.
if nbig > 0 then
  redis.call('SADD', cfg.bigset, unpack(bigs))
  redis.call('EXPIRE', cfg.bigset, cfg.ttl)
end
if redis.call('ZCARD', cfg.tl) > 1 or nbig > 0 then
  redis.call('EXPIRE', cfg.tl, cfg.ttl)
else
  redis.call('EXPIRE', cfg.tl, emptyTtl)
end
local top = merged_top(cfg.tl, cfg.bigset, cfg.activity)
if first then
  redis.call('SET', KEYS[6], top, 'EX', cfg.ttl)
else
  redis.call('SET', KEYS[6], top, 'EX', cfg.ttl, 'NX')
end
return cjson.encode({written = true})
`;
