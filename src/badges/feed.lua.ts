/**
 * Shared Lua: defines `feedUnseen`, the `feed` badge (posts that reached the home timeline since
 * its first page was last read), from the feed capability's counter (`feedKeys.unseen`, which the
 * feed's fan-out and publish scripts write and a first-page read deletes). Billed: one GET.
 */
export const FEED_UNSEEN_SNIPPET = `
local feedUnseen = tonumber(redis.call('GET', feedUnseenKey) or '0')
`;
