import { FEED_UNSEEN_CAP } from "../feed/keys";

/**
 * Shared Lua: defines `feedUnseen`, the `feed` badge (posts that reached the home timeline since
 * its first page was last read), read from the feed capability's own keys: the posts of the
 * timeline (`feedKeys.timeline`) above the marker a first-page read left (`feedKeys.seen`). No
 * marker: every post counts (the sentinels sit at score 0, below every post); no timeline: 0.
 * Needs `feedSeenKey` and `feedTimelineKey`. Billed: GET + ZCOUNT.
 */
export const FEED_UNSEEN_SNIPPET = `
local feedUnseen = math.min(${FEED_UNSEEN_CAP}, redis.call('ZCOUNT', feedTimelineKey, '(' .. (redis.call('GET', feedSeenKey) or '0'), '+inf'))
`;

/** The `feed` badge alone, for a live push (`values.ts`). KEYS: feed:seen:{user}, feed:tl:{user}. Billed: EVALSHA + GET + ZCOUNT. */
export const GET_FEED_UNSEEN = `
local feedSeenKey = KEYS[1]
local feedTimelineKey = KEYS[2]
${FEED_UNSEEN_SNIPPET}
return feedUnseen
`;

/**
 * The `feed` badge of many users in one request: a fan-out page reaches many online followers of
 * one hub, and a request each would queue behind the Workers' few simultaneous connections.
 * KEYS: feed:seen:{user1}, feed:tl:{user1}, feed:seen:{user2}, … Returns the counts in user order.
 * Billed: EVALSHA + (GET + ZCOUNT) per user.
 */
export const GET_FEED_UNSEEN_MANY = `
local counts = {}
for i = 1, #KEYS, 2 do
  local feedSeenKey = KEYS[i]
  local feedTimelineKey = KEYS[i + 1]
  ${FEED_UNSEEN_SNIPPET}
  counts[#counts + 1] = feedUnseen
end
return counts
`;
