/**
 * The one key builder for every Redis key the badges capability owns. Each entry says its shape,
 * whether it is a CACHE (rebuildable from Postgres) or HOT-ONLY (lost with Redis), and its bound.
 *
 * Where each key lives (N Redis databases, `src/lib/redis-topology.ts`): every key below names its
 * OWNER. `user` keys live on the user's database (`services.redisFor(userId)`). `EVERY DATABASE`
 * keys are global keys the badges read uses on every call: each database holds its own copy, every
 * write goes to all of them (`runEverywhere`: one call per database, in parallel; one call in all
 * at N = 1), and a read takes the copy in the user's database, so `GET /v1/me/badges` stays one
 * request to the user's database. `PER DATABASE` keys hold what concerns that database's users.
 * A database that missed a write to an EVERY-DATABASE key (it was down) is repaired as each key
 * says; see docs/badges.md, "Badges at N > 1".
 *
 * Per-user hashes that are caches carry a sentinel field `_` once built, so "the user follows
 * nobody" (built, empty) is told apart from "the cache was lost" (key missing → rebuild).
 *
 * What `GET /v1/me/badges` bills (one EVALSHA_RO, `GET_BADGES`: read-only, so a read region of a
 * Global database answers it), and why each read is there: a known user costs 15 — EVALSHA_RO; GET of the feed's read marker (`feedKeys.seen`), SMEMBERS of the big
 * accounts they follow (`feedKeys.bigFollows`) and ZCOUNT of the timeline above the marker (the
 * `feed` badge, by read diffusion: a fan-out writes nothing for it; a reader with news from big
 * accounts adds ZMSCORE, a ZRANGEBYSCORE of the timeline and one per outbox with news, until the
 * count passes the cap: `feed_unseen` in `src/feed/unseen.lua.ts`); HGETALL of `notifications`, `reddotChannels`, `reddotSeen`,
 * `authorSeen`, `streamAccess`, `inbox`; HMGET of `markers` (broadcast marker, `ttlDay` and `act`
 * in one read), of `authorPublished` (≤ 5,000 followed authors per HMGET) and of `streamLastItem`
 * (last item time of every stream of the user); ZCOUNT of `broadcastIds` (its +inf sentinel makes
 * a lost set answer 0, so no EXISTS); HGET of the `dms` total — and 16 when any of their streams
 * has an item after their access: one more HMGET, of those streams' versions only (asking every
 * stream's version in the first HMGET would bill nothing more but doubles the fields Lua reads:
 * about a third of the streams' script time for 500 streams). Flat in the backlog, in follows
 * (≤ 5,000) and in streams. On top, only when due: ZCOUNT per stream whose items or access
 * changed since its count was remembered. What the read finds due is written after the answer,
 * one call of its own to the user's database (`AFTER_BADGES_READ`: EVALSHA + HMGET of the
 * markers, + what is due): HMGET + HSET of the new stream counts; ZADD to `activeUsers` + HSET of
 * `act` on the first call of a minute (with read regions on, of a day: the user's own writes carry
 * the record, `active.ts`); the EXPIREs of every per-user key on the first call of a
 * day; HSETNX of a first-seen broadcast marker. Derived state never changes an answer: a
 * remembered stream count is reused only for the exact access and version strings it was counted
 * at, and written only where the access it was counted at is still there.
 */

/** Per-user hashes live 30 days after their last write or the user's first badges call of a day. */
export const USER_TTL_SECONDS = 30 * 24 * 3600;
/** Sentinel field of rebuildable per-user hashes: present once the hash was built from Postgres. */
export const BUILT = "_";
/**
 * How long a user's follow epoch outlives their last follow or unfollow. It only has to outlast a
 * rebuild (read epoch → read Postgres → write), which takes milliseconds to seconds.
 */
export const AUTHOR_EPOCH_TTL_SECONDS = 24 * 3600;
/** Broadcast ids kept in Redis: counts are capped at 999, so older ids are never needed. */
export const BROADCAST_WINDOW = 1000;
/**
 * Broadcasts whose title, body and time every database keeps (`broadcastItems`): a first page of
 * any size (`?limit=` ≤ 100) is answered from Redis; pages past them read Postgres.
 */
export const BROADCAST_LIST_WINDOW = 100;
/** Newest messages a user's inbox list cache holds (`inboxList`); older pages read Postgres. */
export const INBOX_LIST_WINDOW = 200;
/**
 * Bytes of message JSON a rebuild of one inbox list writes at most (its one request stays far below
 * Upstash's request size): the list then holds the newest messages that fit, ≥ 1, ≤ INBOX_LIST_WINDOW.
 */
export const INBOX_LIST_BUILD_BYTES = 512 * 1024;
/**
 * Lifetime of a built inbox list, counted from its build and never extended: a send or mark read
 * whose Redis part a database missed (down) leaves its lists behind Postgres for at most this long.
 */
export const INBOX_LIST_TTL_SECONDS = 6 * 3600;
/** Message bodies (`inboxMessage`) outlive every list built before they were written. */
export const INBOX_MESSAGE_TTL_SECONDS = INBOX_LIST_TTL_SECONDS + 3600;
/** A user's inbox list epoch only has to outlast one rebuild (read epoch → Postgres → write). */
export const INBOX_LIST_EPOCH_TTL_SECONDS = 24 * 3600;
/** Users remembered as "recently active" for the repair cron (trimmed by the cron, not per call). */
export const ACTIVE_USERS_CAP = 100_000;
/**
 * A badges call records its user in the active set only when the last record (`act` in the marker
 * hash, which the call reads anyway) is this old: the per-minute repair cron needs "active this
 * minute", not the last call to the millisecond, and a ZADD + HSET a minute bills less than a ZADD
 * a call. With read regions on, a call records only with the day's TTL renewal (and still only when
 * `act` is this old); the user's marks read and seen stamps carry a ZADD each (`active.ts`).
 */
export const ACTIVE_RECORD_EVERY_MS = 60_000;
/**
 * First character of the per-stream fields that are not a stream's own: the version in
 * `streamLastItem` and the remembered count in `streamAccess` (`#kind/id`). No stream name starts
 * with it (a kind starts with a letter).
 */
export const STREAM_META = "#";
/**
 * A remembered stream count is used only while its items are at least this far from expiring: the
 * expiry is computed on the adding isolate's clock and compared on the reading one's, so this is
 * the clock skew tolerated (and the window in which such a stream is counted every call instead).
 */
export const STREAM_MEMO_MARGIN_MS = 3_600_000;

/** Prefix of `inboxMessage` keys (the list scripts build them from ids). */
export const INBOX_MESSAGE_PREFIX = "badge:ib:msg:";

export const badgeKeys = {
  /** OWNER user. HOT-ONLY hash `type → count` plus `total` (= Σ types). TTL 30 d, refreshed on write. */
  notifications: (userId: string) => `badge:n:${userId}`,
  /** OWNER user. HOT-ONLY string "1": an Idempotency-Key already applied to `userId`'s notifications. TTL 24 h. */
  notificationIdempotency: (userId: string, key: string) => `badge:n:idem:${userId}:${key}`,

  /**
   * EVERY DATABASE. CACHE sorted set of broadcast ids (member = score = id), newest BROADCAST_WINDOW only, between
   * sentinels `0` (score 0) and `top` (+inf) that mark it built; re-synced from Postgres in every
   * database by the cron (which repairs a database that missed a broadcast), and in the user's
   * database by a read that finds it missing. (Named
   * apart from the earlier one-sentinel `badge:bc:ids`, which nothing reads any more, so a set
   * without `top` is never read as one unread too few: it is missing, and rebuilt.)
   */
  broadcastIds: () => "badge:bc:window",
  /**
   * EVERY DATABASE. CACHE hash `broadcastId → JSON [title, body, createdAt]` of the newest
   * BROADCAST_LIST_WINDOW broadcasts (≤ 100 × < 32 KB): what `GET /v1/me/broadcasts` shows, beside
   * `broadcastIds` (which says which ids exist). Written with the ids by every broadcast and by
   * every resync (the cron's, in each database, repairs a database that missed one; a first page
   * that finds one missing resyncs the user's database after answering). No TTL (one key).
   */
  broadcastItems: () => "badge:bc:items",
  /**
   * OWNER user. Per-user marker hash: `bc` = last-read broadcast id (never moves backwards; mirrored to
   * Postgres `broadcast_reads`, which is the truth on cache loss); `ttlDay` = the day (since the
   * epoch, UTC) the user's cache TTLs were last renewed by a badges call; `act` = ms of the user's
   * last record in `activeUsers` (see ACTIVE_RECORD_EVERY_MS). Three fields. TTL 30 d, refreshed on
   * write and on the first badges call of a day.
   */
  markers: (userId: string) => `badge:m:${userId}`,

  /**
   * EVERY DATABASE. HOT-ONLY hash `channel → refreshed-at` (Redis TIME, µs, of that database: a
   * seen stamp is compared with its own database's refresh). At most MAX_CHANNELS fields. No TTL.
   * A database that missed refreshes gets them copied from the others by the cron
   * (`catchUpChannels`, by `reddotRefreshIds`).
   */
  reddotChannels: () => "badge:rd:ch",
  /**
   * EVERY DATABASE, at N > 1 only. HOT-ONLY hash `channel → id of its last refresh` (the same in
   * every database, unlike the stamps): the repair copies a refresh into the databases holding
   * another id. Not read by the badges call. At most MAX_CHANNELS fields. No TTL.
   */
  reddotRefreshIds: () => "badge:rd:ids",
  /** OWNER user. HOT-ONLY hash `channel → seen-at` (µs) per user. ≤ MAX_CHANNELS fields; TTL 30 d, refreshed on write. */
  reddotSeen: (userId: string) => `badge:rd:${userId}`,

  /**
   * EVERY DATABASE. CACHE hash `authorId → published post count`, one field per author (bounded
   * by authors). No TTL. Counts are relative (a follower's seen count is copied from the same
   * database's at follow time), so each database's copy only has to move with every post: a
   * database that missed a post while down is owed the move and gets it from the repair cron
   * (`owed`, `replay.ts`).
   */
  authorPublished: () => "badge:au:pub",
  /**
   * OWNER user. CACHE hash `authorId → seen count` of the authors `userId` follows, plus sentinel `_`.
   * Rebuilt from Postgres `follows` (≤ MAX_FOLLOWED_AUTHORS, newest first) when missing; kept by
   * follow/unfollow events. Sentinel value `all`: the build read every follow, so the fields are
   * exactly the followed authors (the live rooms' fan lookup answers "not a fan" from a missing
   * field); `some` (the build stopped at the cap) or the older `1`: the fields are a subset, a
   * missing field proves nothing. Bounded by the user's follows. TTL 30 d.
   */
  authorSeen: (userId: string) => `badge:au:${userId}`,
  /**
   * OWNER user. HOT-ONLY string: `userId`'s follow epoch, INCR by every follow and unfollow. A rebuild of
   * `authorSeen` reads it before reading Postgres (the badges read answers it when it finds the
   * cache missing) and writes only if it has not moved. TTL
   * AUTHOR_EPOCH_TTL_SECONDS, refreshed on write.
   */
  authorSeenEpoch: (userId: string) => `badge:au:ep:${userId}`,

  /**
   * EVERY DATABASE (members of a stream live on any database, and their badges count its items in
   * their own). HOT-ONLY sorted set of item timestamps of one stream (member = item key, score =
   * ms), newest `cap` only. TTL 30 d. A database down when an item is added is owed it and gets
   * it from the repair cron (`owed`, `replay.ts`).
   */
  streamItems: (stream: string) => `badge:st:i:${stream}`,
  /**
   * EVERY DATABASE, written with `streamItems` in one script per database. HOT-ONLY hash, two
   * fields per stream: `kind/id` → last item at ms (one HMGET answers "anything
   * new?") and `#kind/id` → the stream's version `seq:itemsExpireAtMs`, rewritten by every item
   * added (the only writer of item sets), so an unchanged version proves an unchanged item set
   * until that expiry. Bounded by the streams that ever had an item. No TTL (one key).
   */
  streamLastItem: () => "badge:st:last",
  /**
   * OWNER user. CACHE hash `stream → last access ms` of the streams `userId` is a member of, plus sentinel `_`
   * (membership = presence), plus for a stream whose unread was counted `#stream` →
   * `access@version=count`: the count, reused while the access and the stream's version are the
   * same (at most one per membership; dropped with it). Derived state: a lost or stale one costs a
   * ZCOUNT, never a wrong count. Assumes no eviction of item sets before their TTL (Upstash's
   * default, eviction off). Rebuilt from Postgres `stream_members` + `user_access_log`. TTL 30 d.
   */
  streamAccess: (userId: string) => `badge:st:u:${userId}`,

  /** OWNER user (the recipient). HOT-ONLY hash `peerId → unread count` plus `total` (= Σ peers). TTL 30 d, refreshed on write. */
  dms: (userId: string) => `badge:dm:${userId}`,

  /** OWNER user. CACHE hash `type → unread count` plus `total` and sentinel `_`, rebuilt from Postgres `inbox_recipients`. TTL 30 d. */
  inbox: (userId: string) => `badge:ib:${userId}`,
  /**
   * OWNER user. CACHE hash of the user's newest messages: `messageId → flag + type` (flag `0`
   * unread, `1` read; ≤ 33 bytes) for at most INBOX_LIST_WINDOW messages, plus `_` = the floor:
   * every message of the user with an id ≥ floor is a field (`0`: all of them are). Built from
   * Postgres on a miss (only while `inboxListEpoch` has not moved), kept by sends (HSETNX: a mark
   * read that came first wins), marks read (also of messages ≥ floor not there yet) and erasure,
   * trimmed to the window (the floor rises). TTL INBOX_LIST_TTL_SECONDS from the build, not renewed.
   */
  inboxList: (userId: string) => `badge:ib:l:${userId}`,
  /**
   * OWNER user. HOT-ONLY string: INCR by every send to, mark read of and erasure of `userId`'s
   * inbox, listed or not; a list rebuild writes only if it has not moved since its read. TTL
   * INBOX_LIST_EPOCH_TTL_SECONDS, refreshed on write.
   */
  inboxListEpoch: (userId: string) => `badge:ib:lep:${userId}`,
  /**
   * PER DATABASE: on each database holding a listed recipient. CACHE string, one message as JSON
   * `[type, title, content, createdAt]` (≤ MAX_MESSAGE_TITLE + MAX_MESSAGE_CONTENT characters
   * escaped: < 128 KB), shared by every list of that database. Written by the send and by list
   * rebuilds; TTL INBOX_MESSAGE_TTL_SECONDS. A list field without it reads as a miss.
   */
  inboxMessage: (messageId: string) => `${INBOX_MESSAGE_PREFIX}${messageId}`,

  /**
   * PER DATABASE: the active users whose keys live on that database. HOT-ONLY sorted set `userId →
   * ms of their last record` (a badges call, or with read regions on a mark read or seen stamp:
   * `active.ts`); the repair cron reads each database's and trims it to ACTIVE_USERS_CAP.
   */
  activeUsers: () => "badge:active",

  /**
   * PER DATABASE, at N > 1 only: in a database that took a write to every database which database
   * `index` missed (down), the write it is owed (a published count's move, a stream item), as JSON
   * `{id, op, keys, args}`, oldest first; the repair cron replays and trims it (`replay.ts`).
   * Bounded by the writes made during an outage of that database. No TTL.
   */
  owed: (index: number) => `badge:owed:${index}`,
  /** PER DATABASE, at N > 1 only: ids of the owed writes this database replayed (a replay runs once). TTL 7 d. */
  replayed: () => "badge:replayed",
} as const;

/** A stream's name in keys and hash fields: `kind/id`. */
export function streamName(kind: string, id: string): string {
  return `${kind}/${id}`;
}
