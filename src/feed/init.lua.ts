import { ADD_POSTS } from "./chunks.lua";
import { PAGE_FUNCTIONS, READ_CONFIG } from "./page.lua";
import { MERGED_TOP_FUNCTION } from "./unseen.lua";

/**
 * Writes a timeline built from Postgres — the normal followees' posts and the set of big accounts
 * to pull — and serves its first page in the same call. Refuses (`{retry}`) when an unfollow
 * happened since the build read its epoch: the rows may hold that account. Posts pushed during the
 * build are already in the set; ZADD merges, so two racing builds add each post once. An empty
 * build leaves the `0` sentinel alone: the empty marker. The `feed` badge's marker (KEYS[6], after
 * the page keys), when missing — a first-page read found no timeline and dropped it — is set to
 * the merged page's newest post (the built timeline's or a pulled big account's: `merged_top`):
 * what a build copies in, or pulls, is not new (+ ZRANGE + SMEMBERS (+ ZMSCORE) + SET).
 * ARGV: epoch, cap, emptyTtl, max, limit, the config (READ_CONFIG), then nbig, the big accounts,
 * then pairs (member, score).
 */
export const INIT_TIMELINE = `${ADD_POSTS}${PAGE_FUNCTIONS}${READ_CONFIG}${MERGED_TOP_FUNCTION}
local seenEpoch = ARGV[1]
local cap = tonumber(ARGV[2])
local emptyTtl = ARGV[3]
local max = ARGV[4]
local limit = tonumber(ARGV[5])
local cfg = read_config(6)
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
if nbig > 0 then redis.call('SADD', cfg.bigset, unpack(bigs)) end
if redis.call('ZCARD', cfg.tl) > 1 or nbig > 0 then
  redis.call('EXPIRE', cfg.tl, cfg.ttl)
else
  redis.call('EXPIRE', cfg.tl, emptyTtl)
end
local top = merged_top(cfg.tl, cfg.bigset, cfg.activity)
redis.call('SET', KEYS[6], top, 'EX', cfg.ttl, 'NX')
return cjson.encode(serve_page(cfg, max, limit))
`;
