import { sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import { type Database, type PooledDatabase, queryRows } from "../lib/db";
import { ApiError } from "../lib/errors";
import { NEVER } from "./keys";

/**
 * The Postgres statements of blocks and mutes. A write holds the writer's advisory lock for its
 * transaction, so the bound (`maxEntries`) is exact under concurrent calls by one user, and the
 * pair's row is read and written in one statement under it.
 */

export type StoredBlock = { userId: string; createdAt: string; createdAtMs: number; changed: boolean };
export type StoredMute = { userId: string; notifications: boolean; expiresAt: string | null; expiresAtMs: number; createdAt: string; changed: boolean };

/** Serialises one user's safety writes (one lock per user and table), released at commit. */
const lockWriter = (table: string, userId: string) => sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${table}:${userId}`}, 0))`;

/** Stores A's block of B; idempotent (the row's first `createdAt`, `changed: false`). 409 when A holds `max` already. */
export async function insertBlock(db: PooledDatabase, blockerId: string, blockedId: string, max: number): Promise<StoredBlock> {
  return db.transaction(async (tx) => {
    await tx.execute(lockWriter("safety_blocks", blockerId));
    // After the writer's lock (the order every block takes them in): a follow between the two waits for this commit.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended('block_pair:' || least(${blockerId}::bigint, ${blockedId}::bigint) || ':' || greatest(${blockerId}::bigint, ${blockedId}::bigint), 0))`);
    const { rows } = await tx.execute<{ existing: string | null; inserted: string | null; ms: string }>(sql`
      WITH e AS (SELECT created_at FROM safety_blocks WHERE blocker_id = ${blockerId} AND blocked_id = ${blockedId}),
           ins AS (
             INSERT INTO safety_blocks (blocker_id, blocked_id)
             SELECT ${blockerId}, ${blockedId}
              WHERE NOT EXISTS (SELECT 1 FROM e)
                AND (SELECT count(*) FROM safety_blocks WHERE blocker_id = ${blockerId}) < ${max}
             RETURNING created_at)
      SELECT (SELECT created_at::text FROM e) AS existing, (SELECT created_at::text FROM ins) AS inserted,
             (extract(epoch FROM coalesce((SELECT created_at FROM e), (SELECT created_at FROM ins), now())) * 1000)::bigint::text AS ms`);
    const row = rows[0]!;
    const at = row.existing ?? row.inserted;
    if (at === null) throw new ApiError("conflict", `You may block at most ${max} users; unblock someone first`, [{ field: "userId", message: `over the limit of ${max} blocks` }]);
    return { userId: blockedId, createdAt: isoTimestamp(at), createdAtMs: Number(row.ms), changed: row.existing === null };
  });
}

/** Removes A's block of B; whether a row was removed. */
export async function deleteBlock(db: Database, blockerId: string, blockedId: string): Promise<boolean> {
  const rows = await queryRows(db, "DELETE FROM safety_blocks WHERE blocker_id = $1 AND blocked_id = $2 RETURNING 1", [blockerId, blockedId]);
  return rows.length > 0;
}

/**
 * Stores A's mute of B as given (PUT: a mute already there takes the new `notifications` and end,
 * and keeps its `createdAt` unless it had ended). The muter's ended mutes are pruned first, so the
 * bound counts mutes in force. 409 when A holds `max` mutes in force already (B's excepted).
 */
export async function upsertMute(
  db: PooledDatabase,
  muterId: string,
  mutedId: string,
  mute: { notifications: boolean; expiresAtMs: number | null },
  nowMs: number,
  max: number,
): Promise<StoredMute> {
  const now = new Date(nowMs).toISOString();
  const expiresAt = mute.expiresAtMs === null ? null : new Date(mute.expiresAtMs).toISOString();
  return db.transaction(async (tx) => {
    await tx.execute(lockWriter("safety_mutes", muterId));
    await tx.execute(sql`DELETE FROM safety_mutes WHERE muter_id = ${muterId} AND muted_id <> ${mutedId} AND expires_at <= ${now}::timestamptz`);
    const { rows } = await tx.execute<MuteRow & { changed: boolean }>(sql`
      WITH prev AS (SELECT notifications, expires_at FROM safety_mutes WHERE muter_id = ${muterId} AND muted_id = ${mutedId}),
           up AS (
             INSERT INTO safety_mutes (muter_id, muted_id, notifications, expires_at)
             SELECT ${muterId}, ${mutedId}, ${mute.notifications}, ${expiresAt}::timestamptz
              WHERE (SELECT count(*) FROM safety_mutes WHERE muter_id = ${muterId} AND muted_id <> ${mutedId}) < ${max}
             ON CONFLICT (muter_id, muted_id) DO UPDATE
               SET notifications = excluded.notifications, expires_at = excluded.expires_at,
                   created_at = CASE WHEN safety_mutes.expires_at <= ${now}::timestamptz THEN now() ELSE safety_mutes.created_at END
             RETURNING muted_id, notifications, expires_at, created_at)
      SELECT ${sql.raw(MUTE_COLUMNS)},
             NOT EXISTS (SELECT 1 FROM prev WHERE (expires_at IS NULL OR expires_at > ${now}::timestamptz)
                          AND notifications = ${mute.notifications} AND expires_at IS NOT DISTINCT FROM ${expiresAt}::timestamptz) AS changed
        FROM up`);
    const row = rows[0];
    if (!row) throw new ApiError("conflict", `You may mute at most ${max} users; unmute someone first`, [{ field: "userId", message: `over the limit of ${max} mutes` }]);
    return { ...toMute(row), changed: row.changed };
  });
}

/** Removes A's mute of B; whether a mute in force was removed. */
export async function deleteMute(db: Database, muterId: string, mutedId: string, nowMs: number): Promise<boolean> {
  const rows = await queryRows<{ live: boolean }>(
    db,
    "DELETE FROM safety_mutes WHERE muter_id = $1 AND muted_id = $2 RETURNING (expires_at IS NULL OR expires_at > $3::timestamptz) AS live",
    [muterId, mutedId, new Date(nowMs).toISOString()],
  );
  return rows[0]?.live ?? false;
}

type MuteRow = { muted_id: string; notifications: boolean; expires_at: string | null; expires_ms: string | null; created_at: string };
const MUTE_COLUMNS =
  "muted_id::text AS muted_id, notifications, expires_at::text AS expires_at, (extract(epoch FROM expires_at) * 1000)::bigint::text AS expires_ms, created_at::text AS created_at";

function toMute(row: MuteRow): Omit<StoredMute, "changed"> {
  return {
    userId: row.muted_id,
    notifications: row.notifications,
    expiresAt: row.expires_at === null ? null : isoTimestamp(row.expires_at),
    expiresAtMs: row.expires_ms === null ? NEVER : Number(row.expires_ms),
    createdAt: isoTimestamp(row.created_at),
  };
}

/** One page of A's blocks, newest first, after the keyset `after` (created_at text, user id). */
export async function listBlocks(db: Database, blockerId: string, limit: number, after?: { createdAt: string; userId: string }) {
  return queryRows<{ user_id: string; created_at: string }>(
    db,
    `SELECT blocked_id::text AS user_id, created_at::text AS created_at FROM safety_blocks
      WHERE blocker_id = $1 ${after ? "AND (created_at, blocked_id) < ($3::timestamptz, $4::bigint)" : ""}
      ORDER BY created_at DESC, blocked_id DESC LIMIT $2`,
    after ? [blockerId, limit, after.createdAt, after.userId] : [blockerId, limit],
  );
}

/** One page of A's mutes in force at `nowMs`, newest first, after the keyset `after`. */
export async function listMutes(db: Database, muterId: string, limit: number, nowMs: number, after?: { createdAt: string; userId: string }) {
  const rows = await queryRows<MuteRow>(
    db,
    `SELECT ${MUTE_COLUMNS} FROM safety_mutes
      WHERE muter_id = $1 AND (expires_at IS NULL OR expires_at > $3::timestamptz)
        ${after ? "AND (created_at, muted_id) < ($4::timestamptz, $5::bigint)" : ""}
      ORDER BY created_at DESC, muted_id DESC LIMIT $2`,
    after ? [muterId, limit, new Date(nowMs).toISOString(), after.createdAt, after.userId] : [muterId, limit, new Date(nowMs).toISOString()],
  );
  return rows.map((row) => ({ ...toMute(row), cursorAt: row.created_at }));
}

/** What a user's cached sets hold, as Postgres has it now (`cache.ts` rebuilds from it). */
export type SafetySets = {
  blocked: Map<string, number>;
  blockedMe: Map<string, number>;
  /** muted id → { end (ms, NEVER without one), whether it silences notifications } */
  mutes: Map<string, { till: number; notifications: boolean }>;
};

/** A user's blocks both ways (blocks received: the newest `blockedMeCap`) and mutes in force, in one statement. */
export async function readSets(db: Database, userId: string, blockedMeCap: number, nowMs: number): Promise<SafetySets> {
  const rows = await queryRows<{ s: "b" | "r" | "m"; id: string; score: string; n: boolean | null }>(
    db,
    `SELECT 'b' AS s, blocked_id::text AS id, (extract(epoch FROM created_at) * 1000)::bigint::text AS score, NULL::boolean AS n
       FROM safety_blocks WHERE blocker_id = $1
     UNION ALL
     SELECT 'r', id, score, NULL FROM (
       SELECT blocker_id::text AS id, (extract(epoch FROM created_at) * 1000)::bigint::text AS score
         FROM safety_blocks WHERE blocked_id = $1 ORDER BY created_at DESC LIMIT $2) AS r
     UNION ALL
     SELECT 'm', muted_id::text, coalesce((extract(epoch FROM expires_at) * 1000)::bigint, $4)::text, notifications
       FROM safety_mutes WHERE muter_id = $1 AND (expires_at IS NULL OR expires_at > $3::timestamptz)`,
    [userId, blockedMeCap, new Date(nowMs).toISOString(), NEVER],
  );
  const sets: SafetySets = { blocked: new Map(), blockedMe: new Map(), mutes: new Map() };
  for (const row of rows) {
    if (row.s === "b") sets.blocked.set(row.id, Number(row.score));
    else if (row.s === "r") sets.blockedMe.set(row.id, Number(row.score));
    else sets.mutes.set(row.id, { till: Number(row.score), notifications: row.n === true });
  }
  return sets;
}

/**
 * SQL statement taking the advisory lock of the pair {a, b} (either order) for its transaction.
 * A block's insert and a follow's (social) take it, so the two serialise: a block committed first
 * is in the follow's next statement's snapshot (the follow is refused), and a follow committed
 * first is seen by the block's unfollow, which runs after the block's commit.
 */
export function lockBlockPairSql(a: string, b: string): string {
  // The same key as insertBlock's lock.
  return `SELECT pg_advisory_xact_lock(hashtextextended('block_pair:' || least(${a}::bigint, ${b}::bigint) || ':' || greatest(${a}::bigint, ${b}::bigint), 0))`;
}

/**
 * SQL of "a block stands between users `a` and `b`" (either blocked the other), for the statements
 * other capabilities already run (a follow's insert, a reaction's): `a` and `b` are SQL
 * expressions (placeholders such as `$1`). Two probes of the primary key.
 */
export function blockBetweenSql(a: string, b: string): string {
  return `SELECT 1 FROM safety_blocks WHERE (blocker_id = ${a} AND blocked_id = ${b}) OR (blocker_id = ${b} AND blocked_id = ${a})`;
}

/**
 * SQL condition "`reader` must not see `author`'s posts", from Postgres' truth, for the statements
 * other capabilities run when Redis cannot answer (the feed's Postgres pages): a block either way,
 * a mute of the author not ended at `now`, or the author suspended. `reader`, `author` and `now`
 * (a timestamptz) are SQL expressions (placeholders such as `$1`). Four primary-key probes.
 */
export function hidesAuthorSql(reader: string, author: string, now: string): string {
  return `(EXISTS (${blockBetweenSql(reader, author)})
    OR EXISTS (SELECT 1 FROM safety_mutes WHERE muter_id = ${reader} AND muted_id = ${author} AND (expires_at IS NULL OR expires_at > ${now}))
    OR EXISTS (SELECT 1 FROM safety_suspensions WHERE user_id = ${author}))`;
}

/**
 * SQL condition "`owner` mutes `peer`'s notifications, not ended at `now`", for a statement that
 * decides whether a notification from `peer` reaches `owner` (a follow's insert: the followee's
 * `follow` notification). SQL expressions as above; one primary-key probe.
 */
export function mutesNotificationsSql(owner: string, peer: string, now: string): string {
  return `EXISTS (SELECT 1 FROM safety_mutes WHERE muter_id = ${owner} AND muted_id = ${peer} AND notifications AND (expires_at IS NULL OR expires_at > ${now}))`;
}

/** The refusal of an action a block stands in the way of: 403 `blocked`, nothing changed. */
export function blockedError(what: string): ApiError {
  return new ApiError("blocked", `${what}: a block stands between you and this user`);
}
