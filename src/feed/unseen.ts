import { readRegionsOn } from "../lib/consistency";
import { isRedisCommandError } from "../lib/errors";
import { readOnlyScriptOf } from "../lib/read-only-scripts";
import { commandFailure, isRedisOutage } from "../lib/redis-failures";
import { databaseOf, groupByDatabase, settleEach } from "../lib/redis-topology";
import { createScriptBatch } from "../lib/script-batch";
import type { Services } from "../lib/services";
import { safetyNow } from "../safety/clock";
import { safetyKeysOf } from "../safety/keys";
import { FEED_UNSEEN_CAP, feedKeys, TIMELINE_TTL_SECONDS } from "./keys";
import { GET_FEED_UNSEEN_MANY, MERGED_TOP_FUNCTION } from "./unseen.lua";

/**
 * Moves the `feed` badge's marker to the merged page's newest post id (the timeline's top or a
 * followed big account's newest post: `merged_top`), so the badge — the posts above the marker —
 * starts again from zero, big accounts' posts included. A missing timeline (the page builds it
 * next) drops the marker: the build sets it to what it built. Answers 1 when the marker moved (the
 * badge may have been above zero; an equal marker proves it was zero), -1 when the timeline was
 * missing (the build that follows writes the pulled set a live hub learns), 0 otherwise.
 * With ARGV[2] (read regions: the top the page's read-only call saw, sent after it), the marker
 * moves to that top instead, never down: a post that arrived since the page was read stays new.
 * Billed: EVALSHA + ZRANGE + SMEMBERS (+ ZMSCORE when big accounts are followed) + SET (GET in the
 * same command) | EVALSHA + ZRANGE + DEL | with ARGV[2]: EVALSHA + GET (+ SET).
 */
const RESET_UNSEEN = `${MERGED_TOP_FUNCTION}
local tl = KEYS[1]      -- feed:tl:{user}
local seen = KEYS[2]    -- feed:seen:{user}
local bigset = KEYS[3]  -- feed:bf:{user}
local activity = KEYS[4] -- feed:act
local ttl = ARGV[1]
if ARGV[2] then
  local marker = tonumber(redis.call('GET', seen))
  if marker and marker >= tonumber(ARGV[2]) then return 0 end
  redis.call('SET', seen, ARGV[2], 'EX', ttl)
  return 1
end
local top = merged_top(tl, bigset, activity)
if not top then
  redis.call('DEL', seen)
  return -1
end
if redis.call('SET', seen, top, 'EX', ttl, 'GET') == top then return 0 end
return 1
`;

/**
 * What a first page's read tells `readingFirstPage` when reads are read-only (read regions on): the
 * merged top its read-only call saw beside the marker (`saw`; false: none), and that it built the
 * timeline (`built`: the build set the marker). Found on the services `readingFirstPage` scopes.
 */
export interface FirstPageWatch {
  saw(top: string | false, marker: string | false): void;
  built(): void;
}

const WATCH = Symbol("feed first-page watch");

/** The first-page watch of `services` (scoped by `readingFirstPage` with read regions on), if any. */
export function firstPageWatch(services: Services): FirstPageWatch | undefined {
  return (services as Services & { [WATCH]?: FirstPageWatch })[WATCH];
}

const keysOfReset = (userId: string) => [feedKeys.timeline(userId), feedKeys.seen(userId), feedKeys.bigFollows(userId), feedKeys.activity()];

/**
 * A read of the home timeline's first page sees everything new: the `feed` badge starts again
 * from zero. The read is announced (`feed.first-page-read`) when the marker moved or the timeline
 * was built: live sockets then read `feed` alone. Redis down: the page degrades on its own and the
 * badge is left as it was. The marker and the timeline are the reader's: at N > 1 the reset goes to
 * the reader's database, and `read` reaches every other database as usual.
 *
 * With read regions (docs/regions.md#reads-near-the-user) the page's calls are read-only, for the region
 * nearest the reader: the page script also answers the merged top it saw and the marker
 * (`FirstPageWatch`), and the marker is moved by a write of its own only when they differ — a
 * first page with nothing new sends no write at all. That write goes out as soon as the page's
 * first round answered, beside the rest of the page, and the answer waits for it (its consistency
 * token then covers it: the next badges read of this user sees zero).
 *
 * Without read regions the reset rides the page's own round trip, as one pipeline with the page's
 * first script (the reset first, so it marks the timeline the page serves).
 */
export async function readingFirstPage<T>(services: Services, userId: string, read: (services: Services) => Promise<T>): Promise<T> {
  if (!readRegionsOn(services.env)) return readingFirstPageInOneRound(services, userId, read);
  const own = databaseOf(userId, services.databases);
  // Settled as a value, never rejected: it is awaited only once the page is read.
  let reset: Promise<{ moved: number } | { error: unknown }> | undefined;
  let built = false;
  const watch: FirstPageWatch = {
    saw(top, marker) {
      if (top === false || top === marker || reset) return;
      reset = services
        .redisAt(own)
        .createScript<number>(RESET_UNSEEN)
        .exec(keysOfReset(userId), [String(TIMELINE_TTL_SECONDS), top])
        .then(
          (moved) => ({ moved: Number(moved) }),
          (error: unknown) => (isRedisOutage(error) ? { moved: 0 } : { error }),
        );
    },
    built() {
      built = true;
    },
  };
  const scoped = Object.create(services, { [WATCH]: { value: watch } }) as Services;
  const page = await read(scoped);
  const outcome = reset ? await reset : { moved: 0 };
  if ("error" in outcome) throw outcome.error;
  const moved = outcome.moved || (built ? -1 : 0);
  if (moved !== 0) services.waitUntil(services.events.emit({ type: "feed.first-page-read", userId, at: Date.now() }, services));
  return page;
}

/** Without read regions: the reset and the page's first script in one pipeline (one round trip). */
async function readingFirstPageInOneRound<T>(services: Services, userId: string, read: (services: Services) => Promise<T>): Promise<T> {
  const own = databaseOf(userId, services.databases);
  const batch = createScriptBatch(() => services.redisAt(own));
  const redis = Object.create(services.redisAt(own), { createScript: { value: batch.createScript.bind(batch) } }) as Services["redis"];
  const redisAt = (index: number) => (index === own ? redis : services.redisAt(index));
  const reset = batch
    .createScript<number>(RESET_UNSEEN)
    .exec(keysOfReset(userId), [String(TIMELINE_TTL_SECONDS)])
    .then(
      (moved) => Number(moved),
      (err: unknown) => {
        if (!isRedisOutage(err)) throw err;
        return 0;
      },
    );
  const scoped = Object.create(services, {
    redis: { value: own === 0 ? redis : services.redis },
    redisAt: { value: redisAt },
    redisFor: { value: (ownerId: string) => redisAt(databaseOf(ownerId, services.databases)) },
  }) as Services;
  const [page, moved] = await Promise.all([read(scoped), reset]);
  // Announced once the page is served: a timeline built by this read has its pulled set by now.
  if (moved !== 0) services.waitUntil(services.events.emit({ type: "feed.first-page-read", userId, at: Date.now() }, services));
  return page;
}

/**
 * The `feed` badge of each of `userIds` (uncapped, at most FEED_UNSEEN_CAP: each socket's cap
 * applies), for the badge hubs: one request per database holding some of the users, in parallel
 * (≤ 6 at once; one request at N = 1), each reading its users' markers and timelines and its own
 * copies of the outboxes, read-only (EVALSHA_RO: a read region can answer it). In `userIds` order; `null` for the users of a database that failed (an
 * outage or a rate limit: the caller reads them on their own, which degrades), the others exact.
 * A command error (a bug) throws. `suspended`: src/safety's `suspendedArg` (the hub's copy), whose
 * posts count for nobody.
 */
export async function readFeedUnseenMany(services: Pick<Services, "redisAt" | "databases" | "env">, userIds: readonly string[], maxPulled: number, suspended = ""): Promise<(number | null)[]> {
  const positions = userIds.map((userId, i) => ({ userId, i }));
  const byDatabase = groupByDatabase(positions, (p) => p.userId, services.databases);
  const settled = await settleEach(byDatabase, (index, list) =>
    readOnlyScriptOf<unknown[]>(services.redisAt(index), GET_FEED_UNSEEN_MANY).exec(
        [feedKeys.activity(), ...list.flatMap((p) => [feedKeys.seen(p.userId), feedKeys.timeline(p.userId), feedKeys.bigFollows(p.userId), ...safetyKeysOf(p.userId)])],
        [feedKeys.outboxPrefix(), String(maxPulled), String(FEED_UNSEEN_CAP), String(safetyNow(services.env)), suspended],
      ),
  );
  const counts: (number | null)[] = userIds.map(() => null);
  for (const [index, list] of byDatabase) {
    const outcome = settled.get(index)!;
    if (outcome.status === "rejected") {
      if (isRedisCommandError(outcome.reason)) throw commandFailure("Feed badge script", outcome.reason);
      if (!isRedisOutage(outcome.reason)) throw outcome.reason;
      continue;
    }
    list.forEach((p, k) => (counts[p.i] = Number(outcome.value[k])));
  }
  return counts;
}
