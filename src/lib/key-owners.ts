/**
 * What a reshard does with each Redis key, by its name: every key shape of every capability's
 * `keys.ts` (`src/counters`, `src/badges`, `src/feed`, `src/lib/ops`, `src/notify`, `src/safety`, `src/social`) and of the topology, one rule
 * each. `test/counters/reshard.test.ts` builds a key with every builder and checks that none is
 * `unknown`, so a new key shape cannot be added without saying here what a reshard does with it.
 *
 *  - `copy`: owner-placed state that lives only in Redis (or whose loss would change an answer):
 *    copied to the owner's new database, then deleted from the old one.
 *  - `drop`: owner-placed cache that Postgres rebuilds on the next read: deleted from the old
 *    database (and from the new one, where an earlier topology may have left a stale copy).
 *  - `members`: a per-database sorted set whose members are owner ids (trending's hour buckets:
 *    each database holds its own posts' scores): the moving owners' members are added to the same
 *    key on their new database and removed from the old one, so a post's score stays in one place.
 *  - `everywhere`: global keys kept in every database because reads on every database need them
 *    (the badges read's broadcast ids, red-dot channels, streams' items and last items, authors'
 *    published counts): a database joining the deployment gets database 0's, merged in without
 *    overwriting what the Worker already wrote there (HSETNX, ZADD NX, SET NX).
 *  - `database`: per-database or database-0 state, not owned by one id (pending deltas and
 *    batches, which the reshard flushes instead; global badge keys; the reconcile cursor; ops
 *    records; the markers): left where it is.
 *  - `unknown`: no rule matches (left alone, and counted in the reshard's log).
 */
export type KeyAction = "copy" | "drop" | "members" | "everywhere" | "database" | "unknown";

export type KeyOwner = {
  action: KeyAction;
  /** The owning id (copy/drop), when the name says it; `fromValue` otherwise. */
  owner?: string;
  /** The owner is in the value, not the name (`ctr:idem:*`: the fingerprint starts `entity:id:`). */
  fromValue?: (value: string) => string | undefined;
  /** A `drop` key whose value says it must be kept (a post's tombstone outlives queued deliveries). */
  keepIf?: (value: string) => boolean;
};

type Rule = { pattern: RegExp; action: KeyAction; fromValue?: KeyOwner["fromValue"]; keepIf?: KeyOwner["keepIf"] };

/** Owner id = the first capture group (a decimal id). Order matters: the more specific shape first. */
const RULES: Rule[] = [
  // topology (redis-topology.ts)
  { pattern: /^topology(:reshard)?$/, action: "database" },
  // counters (src/counters/keys.ts)
  { pattern: /^ctr:c:[a-z_]+:(\d+)$/, action: "drop" },
  { pattern: /^ctr:v:[a-z_]+:(\d+)$/, action: "drop" }, // the earlier cache layout
  { pattern: /^ctr:(pending|batch:seq|batch:\d+|batches)$/, action: "database" }, // flushed per database by the reshard
  { pattern: /^ctr:reconcile:cursor$/, action: "database" }, // database 0
  { pattern: /^ctr:trend:h:\d+$/, action: "members" },
  { pattern: /^ctr:trend:(f|l|lock|tmp):.+$|^ctr:trend:gone$/, action: "database" }, // database 0's lists, lock, scratch
  { pattern: /^ctr:idem:.+$/, action: "copy", fromValue: (value) => /^[a-z_]+:(\d+):/.exec(value)?.[1] },
  // An event's or a call's applied marker (60 s) is the database's that applied it: a retry goes
  // there, and only while the call's entities still live there (counters.ts, `runKeyed`).
  { pattern: /^ctr:(ev|once):.+$/, action: "database" },
  // operations (src/lib/ops/keys.ts): database 0
  { pattern: /^ops:(runs|fanouts|history)$/, action: "database" },
  // badges (src/badges/keys.ts)
  { pattern: /^badge:n:idem:(\d+):.+$/, action: "copy" },
  { pattern: /^badge:n:(\d+)$/, action: "copy" }, // notifications: hot-only
  { pattern: /^badge:m:(\d+)$/, action: "copy" }, // markers: the broadcast marker's truth is Postgres, ttlDay/act are not
  { pattern: /^badge:rd:(\d+)$/, action: "copy" }, // red dots seen: hot-only
  { pattern: /^badge:au:ep:(\d+)$/, action: "copy" }, // follow epoch: hot-only
  { pattern: /^badge:au:(\d+)$/, action: "drop" }, // authors seen: cache (rebuilt from follows)
  { pattern: /^badge:st:u:(\d+)$/, action: "drop" }, // stream access: cache
  { pattern: /^badge:dm:(\d+)$/, action: "copy" }, // direct messages: hot-only
  { pattern: /^badge:ib:(\d+)$/, action: "drop" }, // inbox: cache
  { pattern: /^badge:ib:l:(\d+)$/, action: "drop" }, // inbox list: cache
  { pattern: /^badge:ib:lep:(\d+)$/, action: "copy" }, // inbox list epoch: hot-only (a rebuild in flight compares it)
  { pattern: /^badge:ib:msg:\d+$/, action: "database" }, // a message's JSON for that database's lists (TTL; a moved user's list is rebuilt with it)
  { pattern: /^badge:(bc:window|bc:items|rd:ch|rd:ids|au:pub|st:last)$|^badge:st:i:.+$/, action: "everywhere" }, // global, read with every user's badges
  { pattern: /^badge:(bc:ids|active|replayed)$|^badge:owed:\d+$/, action: "database" }, // read by nothing any more; each database's active set, owed writes and replays
  // feed (src/feed/keys.ts)
  { pattern: /^feed:tl:(\d+)$/, action: "drop" }, // timeline: rebuilt on read
  { pattern: /^feed:post:(\d+)$/, action: "drop", keepIf: (value) => value === "d" }, // post cache; a tombstone (on every database) is copied to the new home and kept
  { pattern: /^feed:rx:(\d+)$/, action: "drop" }, // reaction flags: cache
  { pattern: /^feed:ep:(\d+)$/, action: "copy" }, // unfollow epoch: hot-only
  { pattern: /^feed:fi:(\d+):\d+$/, action: "copy" }, // follow intent: the follower's
  { pattern: /^feed:ob:\d+$/, action: "everywhere" }, // a big account's outbox: on every database (read with every reader's page and badges)
  { pattern: /^feed:bf:(\d+)$/, action: "drop" }, // big follows: cache
  { pattern: /^feed:rk:(\d+):.+$/, action: "drop" }, // ranked snapshots: read by nothing any more (the cursor carries the ranking)
  { pattern: /^feed:seen:(\d+)$/, action: "copy" }, // the feed badge's marker: hot-only
  { pattern: /^feed:new:(\d+)$/, action: "drop" }, // read by nothing any more
  { pattern: /^feed:(big|act)$/, action: "everywhere" }, // big states, activity: on every database
  { pattern: /^feed:dead$/, action: "database" },
  // safety (src/safety/keys.ts)
  { pattern: /^sfy:(?:bl|bm|mu):(\d+)$/, action: "drop" }, // blocks both ways, mutes: caches (Postgres holds them)
  { pattern: /^sfy:ep:(\d+)$/, action: "copy" }, // a rebuild's epoch: hot-only
  { pattern: /^sfy:(sus|terms)$/, action: "database" }, // the suspended set and the terms: database 0's, rebuilt from Postgres
  // social (src/social/keys.ts): profiles
  { pattern: /^soc:pf:(\d+)$/, action: "drop" }, // an author's profile cache: rebuilt on read
  { pattern: /^soc:pfe:(\d+)$/, action: "copy" }, // its build epoch: hot-only
  // social: follower and following lists
  { pattern: /^soc:f[lg]:(\d+)$/, action: "drop" }, // a list cache: rebuilt on read
  { pattern: /^soc:f[lg]x:(\d+)$/, action: "copy" }, // unfollowed edges: hot-only (a late follow event must still find them)
  { pattern: /^soc:f[lg]e:(\d+)$/, action: "copy" }, // a list's build epoch: hot-only
  // notify (src/notify/keys.ts)
  { pattern: /^ntf:dev:(\d+)$/, action: "drop" }, // a user's device list: cache (Postgres holds the devices)
  { pattern: /^ntf:pref:(\d+)$/, action: "drop" }, // preferences: cache (Postgres holds them)
  { pattern: /^ntf:win:(\d+):.+$/, action: "drop" }, // a batch window's count: at worst one more push after a reshard
  { pattern: /^ntf:athr:(\d+):\d+$/, action: "drop" }, // an author's open thread windows: dropped with the windows themselves
];

/** What a reshard does with `key` (see the module comment). */
export function classifyKey(key: string): KeyOwner {
  for (const rule of RULES) {
    const match = rule.pattern.exec(key);
    if (!match) continue;
    const owner = match[1] && /^\d+$/.test(match[1]) ? match[1] : undefined;
    return { action: rule.action, ...(owner ? { owner } : {}), ...(rule.fromValue ? { fromValue: rule.fromValue } : {}), ...(rule.keepIf ? { keepIf: rule.keepIf } : {}) };
  }
  return { action: "unknown" };
}
