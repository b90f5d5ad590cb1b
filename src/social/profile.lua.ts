import { readOnlyScript } from "../lib/read-only-scripts";
import { PROFILE_COMPLETE, PROFILE_HELD, PROFILE_PARTIAL } from "./keys";

/**
 * The profile cache's scripts (keys.ts `profileKeys`). KEYS of every one: soc:pf:{author},
 * soc:pfe:{author} — both on the author's database.
 */

/**
 * A page of the author's posts, read-only (EVALSHA_RO: the nearest read region answers it).
 * ARGV: max (`+inf` or `(id`: below the cursor), want (limit + 1), own (`1` when the author reads:
 * held entries count), renewBelow (a TTL under this asks for a renewal).
 *
 * Answers JSON: `{miss, epoch}` when the cache is not built (epoch as it stands, for the build
 * after the answer); `{past, rebuild}` when the page reaches below the oldest entry of a partial
 * cache (Postgres answers it; `rebuild` when the cache holds no entry at all); else
 * `{entries}`: up to `want` entries newest first (fewer only when the cache is complete), with
 * `renew` and the epoch when the TTL is due (the cache is then built again after the answer).
 * Non-author reads step over held entries, reading on past them, so a page stays full.
 * Billed: ZRANGEBYSCORE + ZREVRANGEBYSCORE per `want` entries stepped over + TTL (+ GET).
 */
export const READ_PROFILE = readOnlyScript(`
local sentinel = redis.call('ZRANGEBYSCORE', KEYS[1], 0, 0, 'LIMIT', 0, 1)[1]
if not sentinel then
  return cjson.encode({miss = true, epoch = redis.call('GET', KEYS[2]) or ''})
end
local max, want, own = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1'
local entries, offset, exhausted = {}, 0, false
while #entries < want do
  local chunk = redis.call('ZREVRANGEBYSCORE', KEYS[1], max, '(0', 'LIMIT', offset, want)
  for i = 1, #chunk do
    if own or string.sub(chunk[i], 1, 1) ~= '${PROFILE_HELD}' then
      entries[#entries + 1] = chunk[i]
      if #entries >= want then break end
    end
  end
  if #chunk < want then
    exhausted = true
    break
  end
  offset = offset + want
end
if exhausted and #entries < want and sentinel ~= '${PROFILE_COMPLETE}' then
  return cjson.encode({past = true, rebuild = redis.call('ZCARD', KEYS[1]) <= 1})
end
local ttl = redis.call('TTL', KEYS[1])
if ttl == -1 or (ttl >= 0 and ttl < tonumber(ARGV[4])) then
  return cjson.encode({entries = entries, renew = true, epoch = redis.call('GET', KEYS[2]) or ''})
end
return cjson.encode({entries = entries})
`);

/**
 * One change of the author's profile, after Postgres committed it. ARGV: op (`add` a new post,
 * `publish` a held one, `remove`), post id, entry (add/publish), cap, epoch TTL.
 * The epoch moves whether or not the cache exists (a build in flight must not write its older
 * read back); the cache is written only while it exists (a missing one is built by the next read):
 * - add: the entry at its id, unless the cache is partial and the id is below its oldest entry
 *   (that range is Postgres'); then the oldest entries past the cap go, and the cache says partial;
 * - publish: the held entry replaced, only if it is still there (a delete that overtook the
 *   publish has removed it; below a partial cache's range it never was);
 * - remove: the entry at its id, if there.
 * Answers 1 when the cache was written, 0 when it was not built.
 */
export const WRITE_PROFILE = `
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[5])
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local op, id = ARGV[1], ARGV[2]
if op == 'remove' then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], id, id)
  return 1
end
if op == 'publish' then
  if #redis.call('ZRANGEBYSCORE', KEYS[1], id, id, 'LIMIT', 0, 1) == 0 then return 1 end
else
  local partial = redis.call('ZSCORE', KEYS[1], '${PROFILE_PARTIAL}')
  if partial then
    local oldest = redis.call('ZRANGEBYSCORE', KEYS[1], '(0', '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    if oldest[2] and tonumber(id) < tonumber(oldest[2]) then return 1 end
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], id, id)
redis.call('ZADD', KEYS[1], id, ARGV[3])
local over = redis.call('ZCARD', KEYS[1]) - 1 - tonumber(ARGV[4])
if over > 0 then
  -- Rank 0 is the sentinel (score 0): the oldest posts are ranks 1..over.
  redis.call('ZREMRANGEBYRANK', KEYS[1], 1, over)
  redis.call('ZREM', KEYS[1], '${PROFILE_COMPLETE}')
  redis.call('ZADD', KEYS[1], 0, '${PROFILE_PARTIAL}')
end
return 1
`;

/**
 * A build from Postgres, written only if the epoch is still what the read that missed saw.
 * ARGV: epoch, TTL, sentinel (`c` | `p`), then score, member pairs. Answers 1 written, 0 refused.
 */
export const BUILD_PROFILE = `
if tostring(redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[1], 0, ARGV[3])
local args = {}
for i = 4, #ARGV, 2 do
  args[#args + 1] = ARGV[i]
  args[#args + 1] = ARGV[i + 1]
  if #args >= 1000 then
    redis.call('ZADD', KEYS[1], unpack(args))
    args = {}
  end
end
if #args > 0 then redis.call('ZADD', KEYS[1], unpack(args)) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
`;

/** After a change whose write failed: the cache dropped (the next read rebuilds it) and the epoch moved. ARGV: epoch TTL. */
export const DROP_PROFILE = `
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[1])
return 1
`;
