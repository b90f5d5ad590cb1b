import { readOnlyScript } from "../lib/read-only-scripts";

/**
 * Scripts of the suspended set and the term list (`moderationKeys`, database 0).
 *
 * READ_COPY — an isolate's refresh, one call: KEYS[1] = the suspended set, KEYS[2] = the terms;
 * ARGV[1] = the set version the isolate holds, ARGV[2] = the terms version it holds. Answers
 * `false` when the set is not cached (the caller rebuilds it from Postgres), else
 * {v, t, members or 0, terms JSON or 0}: the members only when `v` moved, the terms only when `t`
 * did — an isolate whose copy is current pays two ZSCOREs. Read-only (EVALSHA_RO): a read region
 * answers it, near the isolate.
 */
export const READ_COPY = readOnlyScript(`
local v = redis.call('ZSCORE', KEYS[1], 'v')
if not v then return false end
local t = redis.call('ZSCORE', KEYS[1], 't') or '0'
local members = 0
if v ~= ARGV[1] then members = redis.call('ZRANGE', KEYS[1], 0, -1) end
local terms = 0
if t ~= ARGV[2] then terms = redis.call('GET', KEYS[2]) or 0 end
return {v, t, members, terms}
`);

/**
 * WRITE_SUSPENDED — a suspension or its lift, after Postgres committed: KEYS[1] = the set;
 * ARGV = op ('add'|'rem'), user id, score. Changes the set only when it is cached (else answers 0:
 * the writer rebuilds it from Postgres, which holds the change) and bumps `v`, so every isolate's
 * next refresh reloads the members.
 */
export const WRITE_SUSPENDED = `
if not redis.call('ZSCORE', KEYS[1], 'v') then return 0 end
if ARGV[1] == 'add' then redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2]) else redis.call('ZREM', KEYS[1], ARGV[2]) end
redis.call('ZINCRBY', KEYS[1], 1, 'v')
return 1
`;

/**
 * WRITE_TERMS — a new term list, after Postgres committed: KEYS[1] = the set, KEYS[2] = the terms;
 * ARGV = version, terms JSON. As WRITE_SUSPENDED: 0 when the set is not cached.
 */
export const WRITE_TERMS = `
if not redis.call('ZSCORE', KEYS[1], 'v') then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[1], 't')
return 1
`;

/**
 * BUILD_COPY — the set and the terms from Postgres: KEYS as READ_COPY; ARGV[1] = 'nx' (a reader's
 * rebuild: only when the set is still missing) or 'replace' (a writer's, read after its commit:
 * whatever is there, so a reader's older rebuild that landed first is overwritten), ARGV[2] = v,
 * ARGV[3] = t, ARGV[4] = terms JSON, then id, score pairs. Answers 1 when it wrote.
 */
export const BUILD_COPY = `
if ARGV[1] == 'nx' and redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[1], ARGV[2], 'v', ARGV[3], 't')
local i = 5
while i <= #ARGV do
  local args = {}
  local last = math.min(#ARGV, i + 999)
  for j = i, last, 2 do
    args[#args + 1] = ARGV[j + 1]
    args[#args + 1] = ARGV[j]
  end
  redis.call('ZADD', KEYS[1], unpack(args))
  i = last + 1
end
redis.call('SET', KEYS[2], ARGV[4])
return 1
`;
