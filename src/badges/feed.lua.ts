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
