/**
 * Lua functions shared by the feed's scripts (concatenated in front of a script's body). Each
 * works on one timeline sorted set (`keys.ts`): score = post id, member = `postId:authorId`, and a
 * sentinel (`0` built or `b` building) at score 0, below every post.
 */

/**
 * add_posts(tl, cap, members, scores): adds posts and trims to the newest `cap`, keeping the
 * sentinel at rank 0; returns how many were new (a redelivery adds none). Billed: ZADD + ZREMRANGEBYRANK.
 */
export const ADD_POSTS = `
local function add_posts(tl, cap, members, scores)
  if #members == 0 then return 0 end
  local args = {}
  for i = 1, #members do
    args[#args + 1] = scores[i]
    args[#args + 1] = members[i]
  end
  local added = redis.call('ZADD', tl, unpack(args))
  redis.call('ZREMRANGEBYRANK', tl, 1, -(cap + 1))
  return added
end
`;

/**
 * remove_author(tl, authorId): drops every post of one author (members end in ":authorId").
 * Billed: ZRANGE + ZREM when something matched. O(cap) in Lua, no Postgres.
 */
export const REMOVE_AUTHOR = `
local function remove_author(tl, authorId)
  local suffix = ':' .. authorId
  local gone = {}
  for _, m in ipairs(redis.call('ZRANGE', tl, 0, -1)) do
    if string.sub(m, -#suffix) == suffix then gone[#gone + 1] = m end
  end
  if #gone > 0 then redis.call('ZREM', tl, unpack(gone)) end
  return #gone
end
`;
