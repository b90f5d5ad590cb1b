import { settleEveryDatabase } from "../lib/redis-topology";
import type { ScriptRunner } from "../lib/script-batch";
import { feedKeys, OUTBOX_CAP, timelineMember, TOMBSTONE, TOMBSTONE_TTL_SECONDS } from "./keys";
import { ADD_TO_OUTBOX, TOMBSTONE_COPY } from "./publish.lua";

/** What writing to every database needs: the clients by index and N (both `Services` and `EventServices` have them). */
export type Databases = { redisAt(index: number): ScriptRunner; readonly databases: number };

/**
 * Runs `task` against every database but `except` (at most 6 at once: Workers' outbound
 * connections), for the feed's few small keys that are read on every page and badges call and so
 * live on EVERY database (big accounts' outboxes and states, the activity set, tombstones): each
 * reader finds them on its own database. Every database is attempted; the first failure is thrown
 * once all are settled (the callers are idempotent and retried: a queue message, the cron).
 */
export async function onEveryDatabase(services: Databases, task: (redis: ScriptRunner, index: number) => Promise<unknown>, except = -1): Promise<void> {
  const settled = await settleEveryDatabase(services.databases, (index) => task(services.redisAt(index), index), except);
  for (const outcome of settled.values()) if (outcome.status === "rejected") throw outcome.reason;
}

const run = (redis: ScriptRunner, source: string, keys: string[], args: (string | number)[]) => redis.createScript(source).exec(keys, args.map(String));

/** A big account's post into the outbox and activity copies of every database but `except` (N > 1). */
export function copyToOutboxes(s: Databases, postId: string, authorId: string, except: number): Promise<void> {
  return onEveryDatabase(
    s,
    (redis) => run(redis, ADD_TO_OUTBOX, [feedKeys.outbox(authorId), feedKeys.activity()], [timelineMember(postId, authorId), postId, OUTBOX_CAP, authorId]),
    except,
  );
}

/** A deleted post's tombstone (and its member out of the outbox copy) on every database but `except` (N > 1). */
export function tombstoneElsewhere(s: Databases, postId: string, authorId: string, except: number): Promise<void> {
  return onEveryDatabase(
    s,
    (redis) => run(redis, TOMBSTONE_COPY, [feedKeys.post(postId), feedKeys.outbox(authorId)], [TOMBSTONE, TOMBSTONE_TTL_SECONDS, timelineMember(postId, authorId)]),
    except,
  );
}
