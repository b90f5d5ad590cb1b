import { ADD_POSTS } from "./chunks.lua";

/**
 * One fan-out page (up to 1,000 followers) in one call: adds the post to (or removes it from)
 * every follower timeline that exists; missing timelines are skipped (they are built from Postgres
 * on their next read). Idempotent: ZADD/ZREM of the same member change nothing the second time,
 * and an "add" of a post whose tombstone is set does nothing, so a late redelivery never brings a
 * deleted post back.
 *
 * An unfollow wins in every order: the page of followers was read from Postgres before this call,
 * so a follower may have unfollowed the author since; its unfollow already purged the timeline on
 * the request path and left the follow intent "0" (1 day), so an "add" skips that timeline. (The
 * intent is the cheapest correct guard: the unfollow epoch would have to be read before the
 * Postgres page, one more round trip.) A follow made again since then turned the intent back to
 * "1" and its own sync copies the post.
 *
 * Nothing is written for the `feed` badge: it is read from the timeline itself (`feedKeys.seen`), so
 * a follower who never opens the app costs the ZADD and its trim, no more. The answer is
 * `{touched, i, j, …}`: the count, then the 1-based positions (in the page) of the followers the
 * post was new to (their `feed` badge may have moved), and the negated positions of those skipped
 * as unfollowed, so the caller tells the hubs without reading anything.
 *
 * A follower whose safety sets (src/safety, on this database: the follower's) hide the author —
 * the follower blocked them, was blocked by them, or mutes them and the mute has not ended — is
 * skipped as an unfollowed one is (not named as reached: no live badge moves): the post never
 * reaches that timeline, so neither a retried page nor a mute's end shows it (docs/safety.md says
 * what a rebuild from Postgres and a big account's outbox do). Sets not cached (a week without a
 * read) let the post in; the reader's page filter still hides it while the block or mute holds.
 *
 * KEYS: feed:post:{id}, then n follower timelines feed:tl:{follower}, then their n follow
 * intents feed:fi:{follower}:{author}, then, for an add, each follower's three safety sets
 * (blocked, blocked-me, mutes: \`safetyKeysOf\`'s first three), in the same order.
 * ARGV: op, member, score, cap, tombstone, then for an add the author and the safety clock (ms).
 * Billed: EVALSHA + GET + per follower EXISTS; per existing timeline, add: GET (intent) + 3 ZSCORE
 * + ZADD + ZREMRANGEBYRANK (fewer when unfollowed or hidden), remove: ZREM.
 */
export const DELIVER_PAGE = `${ADD_POSTS}
local post = KEYS[1]
local op = ARGV[1]            -- 'add' | 'remove'
local n = op == 'add' and (#KEYS - 1) / 5 or (#KEYS - 1) / 2
local member = ARGV[2]
local score = ARGV[3]
local cap = tonumber(ARGV[4])
local tombstone = ARGV[5]
local author = ARGV[6]
local now = tonumber(ARGV[7] or '0')
if op == 'add' and redis.call('GET', post) == tombstone then return {0} end
-- Whether follower j's (1-based) sets hide the author: the rule of src/safety's \`safety_hides\`.
local function hidden(j)
  local base = 1 + 2 * n + 3 * (j - 1)
  if redis.call('ZSCORE', KEYS[base + 1], author) or redis.call('ZSCORE', KEYS[base + 2], author) then return true end
  local till = redis.call('ZSCORE', KEYS[base + 3], author)
  return till ~= false and tonumber(till) > now
end
local answer = {0}
for i = 2, n + 1 do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    if op == 'remove' then
      redis.call('ZREM', KEYS[i], member)
      answer[1] = answer[1] + 1
    elseif redis.call('GET', KEYS[i + n]) ~= '0' and not hidden(i - 1) then
      if add_posts(KEYS[i], cap, {member}, {score}) == 1 then answer[#answer + 1] = i - 1 end
      answer[1] = answer[1] + 1
    else
      answer[#answer + 1] = -(i - 1)
    end
  end
end
return answer
`;

/**
 * Whether a big account's post is still live when its announcement leaves the queue: 0 once
 * tombstoned (deleted within its announcement's window, BIG_POST_WINDOW_SECONDS: live badges never count it). Billed: EVALSHA + GET.
 */
export const POST_IS_LIVE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return 0 end -- feed:post:{id}, the tombstone
return 1
`;
