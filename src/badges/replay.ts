/**
 * Writes to every database that a database may miss and nothing else can rebuild: an author's
 * published count (a relative counter: Postgres' count is not what followers' seen counts were
 * copied from) and a stream's items (hot-only). When such a write misses databases (down), the
 * first database that took it keeps what each missed one is owed (`badge:owed:{index}`); the repair
 * cron replays it there once that database answers. A replay runs at most once per database (its
 * id is remembered there), so a cron stopped between replaying and trimming never doubles a count.
 * At N = 1 nothing of this runs.
 */
import { databasesInUse, settleEach } from "../lib/redis-topology";
import { PUBLISH, UNPUBLISH } from "./authors.lua";
import { badgeKeys } from "./keys";
import { runEverywhere, runScript, type EveryDatabase, type Everywhere } from "./shared";
import { ADD_STREAM_ITEM } from "./streams.lua";
import { errorText, log } from "../lib/log";

/** The writes a missed database is owed, by name (what an owed entry records). */
const REPLAYABLE = { publish: PUBLISH, unpublish: UNPUBLISH, streamItem: ADD_STREAM_ITEM } as const;
export type Replayable = keyof typeof REPLAYABLE;

/** Owed writes replayed per database and cron run (older first); the rest wait for the next run. */
export const REPLAY_BATCH = 500;
/** How long a database remembers the ids it replayed: far longer than a cron run. */
export const REPLAYED_TTL_SECONDS = 7 * 24 * 3600;

type Owed = { id: string; op: Replayable; keys: string[]; args: string[] };

/** Appends owed writes for one missed database (ARGV = JSON entries). */
const RECORD_OWED = `
local owed = KEYS[1]   -- badge:owed:{index}
for i = 1, #ARGV do redis.call('RPUSH', owed, ARGV[i]) end
return redis.call('LLEN', owed)
`;

/** The oldest owed entries, as strings. */
const READ_OWED = `
return cjson.encode(redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1))  -- badge:owed:{index}
`;

/** Drops the first `n` owed entries (those replayed), unless another run dropped them already (the first is not the one read). */
const TRIM_OWED = `
local owed = KEYS[1]   -- badge:owed:{index}
if redis.call('LINDEX', owed, 0) ~= ARGV[2] then return -1 end
redis.call('LTRIM', owed, tonumber(ARGV[1]), -1)
return redis.call('LLEN', owed)
`;

/**
 * One owed write, applied unless this database replayed its id already: KEYS[1] = the replayed
 * ids, the rest the write's own keys; ARGV[1] = the id, ARGV[2] = its TTL, the rest the write's
 * own args. The write's script runs as it is, with its own KEYS and ARGV.
 */
const replayScript = (source: string) => `
local replayed, id, ttl = KEYS[1], ARGV[1], tonumber(ARGV[2])
if redis.call('SADD', replayed, id) == 0 then return 0 end
redis.call('EXPIRE', replayed, ttl)
local KEYS = { unpack(KEYS, 2) }
local ARGV = { unpack(ARGV, 3) }
;(function()
${source}
end)()
return 1
`;

/**
 * `runEverywhere` for a write a missed database must still get: what the databases that answered
 * did not deliver is recorded in the first of them, for the repair cron's `replayOwed`. A failed
 * record is logged (the missed database then misses the write, as in a full outage at N = 1).
 */
export async function runEverywhereOwed<T>(services: EveryDatabase, op: Replayable, keys: string[], args: (string | number)[]): Promise<Everywhere<T>> {
  const result = await runEverywhere<T>(services, REPLAYABLE[op], keys, args);
  if (result.missed.length === 0) return result;
  const keeper = [...Array(databasesInUse(services.databases)).keys()].find((i) => !result.missed.includes(i))!;
  const entry = JSON.stringify({ id: crypto.randomUUID(), op, keys, args: args.map(String) } satisfies Owed);
  await Promise.all(
    result.missed.map((index) =>
      runScript(services.redisAt(keeper), RECORD_OWED, [badgeKeys.owed(index)], [entry]).catch((err: unknown) =>
        log.error({ message: "badge write lost for a database", op, database: index, error: errorText(err) }),
      ),
    ),
  );
  return result;
}

/**
 * Replays in every database what it is owed by the others (oldest first, REPLAY_BATCH per pair of
 * databases and run). A database down now, or one whose record cannot be read, waits for the next
 * run. Answers the writes applied.
 */
export async function replayOwed(services: EveryDatabase): Promise<number> {
  // The deployment's databases: none a done shrink left (it is owed nothing more).
  const n = databasesInUse(services.databases);
  if (n === 1) return 0;
  const pairs: [string, { from: number; to: number }][] = [];
  for (let to = 0; to < n; to++) for (let from = 0; from < n; from++) if (from !== to) pairs.push([`${from}>${to}`, { from, to }]);
  const done = await settleEach(pairs, async (_, { from, to }) => {
    const owedKey = badgeKeys.owed(to);
    const raw = await runScript<string[] | Record<string, never>>(services.redisAt(from), READ_OWED, [owedKey], [REPLAY_BATCH]);
    const texts = (Array.isArray(raw) ? raw : []).map(String);
    const entries = texts.map((e) => JSON.parse(e) as Owed);
    let applied = 0;
    for (const entry of entries) {
      applied += Number(
        await runScript<number>(services.redisAt(to), replayScript(REPLAYABLE[entry.op]), [badgeKeys.replayed(), ...entry.keys], [entry.id, REPLAYED_TTL_SECONDS, ...entry.args]),
      );
    }
    if (entries.length > 0) await runScript(services.redisAt(from), TRIM_OWED, [owedKey], [entries.length, texts[0]!]);
    return applied;
  });
  return [...done.values()].reduce((sum, r) => sum + (r.status === "fulfilled" ? r.value : 0), 0);
}
