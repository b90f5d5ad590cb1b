import { REMOVE_AUTHOR } from "./chunks.lua";

/**
 * A deleted account's posts out of one page of its followers' timelines (those on this
 * database), all of the author's at once: the account deletion's `feed.timelines` eraser, which
 * takes the place of a per-post removal fan-out (posts × followers) with one pass (followers).
 * KEYS: the followers' timelines feed:tl:{follower}. ARGV: the author. Answers the 1-based
 * positions (in KEYS) of the timelines that lost a post (their `feed` badge may have moved).
 * Billed: EVALSHA + per follower EXISTS + per existing timeline ZRANGE (+ ZREM).
 */
export const PURGE_AUTHOR_PAGE = `${REMOVE_AUTHOR}
local changed = {}
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 and remove_author(KEYS[i], ARGV[1]) > 0 then changed[#changed + 1] = i end
end
return changed
`;
