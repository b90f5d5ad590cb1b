import { queryRows } from "../counters/store";
import type { Database } from "../lib/db";
import { blockBetweenSql, hidesAuthorSql } from "../safety/store";

/**
 * The feed's Postgres statements, raw SQL over arrays like the counters' store: each is ONE
 * statement, and each is bounded (LIMIT on every list, followees capped).
 */

/** Followees a timeline build or a Postgres page reads (newest follows first); beyond this a user's feed shows the newest ones. */
export const MAX_FOLLOWEES = 5000;

/** The authors of a user's home timeline: the newest MAX_FOLLOWEES followees and the user. */
const AUTHORS = `
  SELECT f.followee_id AS author_id FROM (
    SELECT followee_id FROM follows WHERE follower_id = $1 ORDER BY created_at DESC LIMIT ${MAX_FOLLOWEES}
  ) f
  UNION ALL SELECT $1::bigint`;

/**
 * The authors a timeline build loads: the user's followees that are not big (a `to-big` one still
 * has its posts pushed, so it is loaded too) and the user.
 */
const PUSHED_AUTHORS = `
  SELECT f.followee_id AS author_id FROM (
    SELECT followee_id FROM follows WHERE follower_id = $1 ORDER BY created_at DESC LIMIT ${MAX_FOLLOWEES}
  ) f
  WHERE NOT EXISTS (SELECT 1 FROM feed_big_accounts b WHERE b.author_id = f.followee_id AND b.state = 'big')
  UNION ALL SELECT $1::bigint`;

/**
 * Newest live posts of those authors below `before`: per author an index range scan of at most
 * `n` rows (`posts_author_id_idx`), merged — bounded whatever the authors posted. A post the term
 * filter holds is the reader's own only (`$1`: the reader).
 */
const NEWEST_POSTS = (n: string, before: string, authors = AUTHORS) => `
  SELECT p.id, p.author_id, p.text, p.created_at
  FROM (${authors}) a
  CROSS JOIN LATERAL (
    SELECT id, author_id, text, created_at FROM posts
    WHERE author_id = a.author_id AND deleted_at IS NULL AND (held_at IS NULL OR author_id = $1) AND id < ${before}
    ORDER BY id DESC LIMIT ${n}
  ) p
  ORDER BY p.id DESC LIMIT ${n}`;

export type PostRow = { id: string; author_id: string; text: string | null; created_at: string | null };
export type FlagRow = { post_id: string; kind: "l" | "v" };
/** The counters of some posts with each Redis database's flush watermark (database 0's also as `watermark`), read in one snapshot: what `completeSnapshot` takes. */
export type CounterSnapshot = { watermark: number; watermarks: Map<number, number>; values: Map<string, Map<string, number>> };

/**
 * A timeline build in ONE statement (one snapshot): the newest `cap` post ids of the user's
 * authors; for the first `pageSize` of them their text (to cache) and their flushed counters with
 * every Redis database's flush watermark (so the counters' warm needs no statement of its own); the user's likes
 * and favourites on posts from the oldest of them up (the flags, at most `flagLimit` rows each);
 * and the followees to pull (big accounts are not loaded: their outboxes are merged at read time).
 * Rows are tagged by kind in the first column; the other columns mean what the kind says.
 */
export async function readTimelineBuild(db: Database, userId: string, cap: number, pageSize: number, flagLimit: number, databases = 1) {
  const rows = await queryRows<{ kind: "p" | "l" | "v" | "c" | "w" | "b"; a: string; b: string | null; c: string | null; d: string | null }>(
    db,
    `WITH tl AS (${NEWEST_POSTS("$2", "9223372036854775807", PUSHED_AUTHORS)}),
          ranked AS (SELECT tl.*, row_number() OVER (ORDER BY id DESC) AS rn FROM tl),
          floor AS (SELECT coalesce(min(id), 9223372036854775807) AS m FROM tl)
     SELECT 'p' AS kind, id::text AS a, author_id::text AS b,
            CASE WHEN rn <= $3 THEN text END AS c, CASE WHEN rn <= $3 THEN created_at::text END AS d
     FROM ranked
     UNION ALL (SELECT 'l', post_id::text, NULL, NULL, NULL FROM post_likes
                WHERE user_id = $1 AND post_id >= (SELECT m FROM floor) ORDER BY post_id DESC LIMIT $4)
     UNION ALL (SELECT 'v', post_id::text, NULL, NULL, NULL FROM post_favorites
                WHERE user_id = $1 AND post_id >= (SELECT m FROM floor) ORDER BY post_id DESC LIMIT $4)
     UNION ALL SELECT 'c', c.entity_id::text, c.field, c.value::text, NULL FROM counters c
                WHERE c.entity = 'post' AND c.entity_id IN (SELECT id FROM ranked WHERE rn <= $3)
     UNION ALL SELECT 'w', (SELECT coalesce(max(batch), 0) FROM counter_flush_batches WHERE database = d)::text, d::text, NULL, NULL
                FROM generate_series(0, $5::int - 1) AS d
     UNION ALL (SELECT 'b', f.followee_id::text, NULL, NULL, NULL
                FROM (SELECT followee_id FROM follows WHERE follower_id = $1 ORDER BY created_at DESC LIMIT ${MAX_FOLLOWEES}) f
                JOIN feed_big_accounts b ON b.author_id = f.followee_id AND b.state IN ('to-big', 'big'))`,
    [userId, cap, pageSize, flagLimit, databases],
  );
  const posts: PostRow[] = [];
  const flags: FlagRow[] = [];
  const counters: CounterSnapshot = { watermark: 0, watermarks: new Map(), values: new Map() };
  const bigFollowees: string[] = [];
  for (const r of rows) {
    if (r.kind === "b") bigFollowees.push(r.a);
    else if (r.kind === "p") posts.push({ id: r.a, author_id: r.b!, text: r.c, created_at: r.d });
    else if (r.kind === "l" || r.kind === "v") flags.push({ post_id: r.a, kind: r.kind });
    else if (r.kind === "w") {
      counters.watermarks.set(Number(r.b), Number(r.a));
      if (r.b === "0") counters.watermark = Number(r.a);
    }
    else {
      let fields = counters.values.get(r.a);
      if (!fields) counters.values.set(r.a, (fields = new Map()));
      fields.set(r.b!, Number(r.c));
    }
  }
  return { posts, flags, counters, bigFollowees };
}

/** Posts by id, deleted ones included (`deleted` true), for filling the post cache. */
export async function readPosts(db: Database, ids: readonly string[]) {
  return queryRows<{ id: string; author_id: string; text: string; created_at: string; deleted: boolean }>(
    db,
    `SELECT id::text AS id, author_id::text AS author_id, text, created_at::text AS created_at, deleted_at IS NOT NULL AS deleted
     FROM posts WHERE id = ANY($1::bigint[])`,
    [ids],
  );
}

/**
 * One post as its detail reads it on a cache miss: live, deleted or held (what the post cache may
 * then hold: the entry, a tombstone, or nothing), and with `readerId`, whether a block stands
 * between the reader and the author (two primary-key probes of `safety_blocks`, in the statement).
 */
export async function readPostDetailRow(db: Database, postId: string, readerId: string | undefined) {
  const [row] = await queryRows<{ id: string; author_id: string; text: string; created_at: string; deleted: boolean; held: boolean; blocked: boolean }>(
    db,
    `SELECT id::text AS id, author_id::text AS author_id, text, created_at::text AS created_at,
            deleted_at IS NOT NULL AS deleted, held_at IS NOT NULL AS held,
            ${readerId === undefined ? "false" : `EXISTS (${blockBetweenSql("$2::bigint", "author_id")})`} AS blocked
       FROM posts WHERE id = $1`,
    readerId === undefined ? [postId] : [postId, readerId],
  );
  return row;
}

/** The user's likes and favourites on posts in [from, below), at most `limit` rows of each. */
export async function readFlagRange(db: Database, userId: string, from: string, below: string | null, limit: number) {
  return queryRows<FlagRow>(
    db,
    `(SELECT post_id::text AS post_id, 'l' AS kind FROM post_likes
      WHERE user_id = $1 AND post_id >= $2 AND ($3::bigint IS NULL OR post_id < $3) ORDER BY post_id DESC LIMIT $4)
     UNION ALL
     (SELECT post_id::text, 'v' FROM post_favorites
      WHERE user_id = $1 AND post_id >= $2 AND ($3::bigint IS NULL OR post_id < $3) ORDER BY post_id DESC LIMIT $4)`,
    [userId, from, below, limit],
  );
}

/** The user's likes and favourites on exactly these posts. */
export async function readFlagsOf(db: Database, userId: string, postIds: readonly string[]) {
  return queryRows<FlagRow>(
    db,
    `SELECT post_id::text AS post_id, 'l' AS kind FROM post_likes WHERE user_id = $1 AND post_id = ANY($2::bigint[])
     UNION ALL
     SELECT post_id::text, 'v' FROM post_favorites WHERE user_id = $1 AND post_id = ANY($2::bigint[])`,
    [userId, postIds],
  );
}

/** One page of an author's followers for a fan-out, keyset on (created_at, follower_id) descending. */
export async function readFollowerPage(db: Database, authorId: string, after: { createdAt: string; followerId: string } | null, size: number) {
  return queryRows<{ follower_id: string; created_at: string }>(
    db,
    `SELECT follower_id::text AS follower_id, created_at::text AS created_at FROM follows
     WHERE followee_id = $1 AND ($2::timestamptz IS NULL OR (created_at, follower_id) < ($2::timestamptz, $3::bigint))
     ORDER BY created_at DESC, follower_id DESC LIMIT $4`,
    [authorId, after?.createdAt ?? null, after?.followerId ?? null, size],
  );
}

/**
 * Where every page after the first of an author's followers starts (the keyset of each page's
 * last follower), in one index scan: what a fan-out enqueues at once.
 */
export async function readPageStarts(db: Database, authorId: string, pageSize: number, maxPages: number) {
  return queryRows<{ created_at: string; follower_id: string }>(
    db,
    `SELECT created_at::text AS created_at, follower_id::text AS follower_id FROM (
       SELECT created_at, follower_id, row_number() OVER (ORDER BY created_at DESC, follower_id DESC) AS rn, count(*) OVER () AS total
       FROM follows WHERE followee_id = $1) t
     WHERE rn % $2 = 0 AND rn < total ORDER BY rn LIMIT $3`,
    [authorId, pageSize, maxPages],
  );
}

/** An author's newest live post ids (what a follow copies). */
export async function readNewestPostIds(db: Database, authorId: string, n: number) {
  return queryRows<{ id: string }>(
    db,
    `SELECT id::text AS id FROM posts WHERE author_id = $1 AND deleted_at IS NULL AND held_at IS NULL ORDER BY id DESC LIMIT $2`,
    [authorId, n],
  );
}

/** Posts deleted in the last `seconds` (tombstones the request path may have failed to write). */
export async function readRecentlyDeleted(db: Database, seconds: number, limit: number) {
  return queryRows<{ id: string; author_id: string }>(
    db,
    `SELECT id::text AS id, author_id::text AS author_id FROM posts
     WHERE deleted_at IS NOT NULL AND deleted_at > now() - make_interval(secs => $1) ORDER BY deleted_at DESC LIMIT $2`,
    [seconds, limit],
  );
}

/**
 * The authors of a page from Postgres: the home timeline's, less those the reader must not see
 * (blocked either way, muted at `$4`, suspended: src/safety's own condition over its tables,
 * `hidesAuthorSql`), checked per author before any of their posts is read.
 */
const SHOWN_AUTHORS = `SELECT a.author_id FROM (${AUTHORS}) a WHERE NOT ${hidesAuthorSql("$1", "a.author_id", "$4::timestamptz")}`;

/**
 * A whole hydrated page from Postgres alone (Redis down): the posts, their flushed counters and the
 * reader's flags in ONE statement. Counters miss what Redis still buffers (hence `degraded`). The
 * authors the reader's blocks, mutes (in force at `nowMs`, the safety clock) and suspensions hide
 * are left out from Postgres' truth, as the Redis pages leave them out from the cached sets.
 */
export async function readPageFromPostgres(db: Database, userId: string, before: string | null, limit: number, nowMs: number) {
  return queryRows<{ id: string; author_id: string; text: string; created_at: string; counts: Record<string, number> | null; liked: boolean; favorited: boolean }>(
    db,
    `WITH page AS (${NEWEST_POSTS("$2", "coalesce($3::bigint, 9223372036854775807)", SHOWN_AUTHORS)})
     SELECT page.id::text AS id, page.author_id::text AS author_id, page.text, page.created_at::text AS created_at,
            (SELECT json_object_agg(c.field, c.value) FROM counters c WHERE c.entity = 'post' AND c.entity_id = page.id) AS counts,
            EXISTS (SELECT 1 FROM post_likes l WHERE l.post_id = page.id AND l.user_id = $1) AS liked,
            EXISTS (SELECT 1 FROM post_favorites f WHERE f.post_id = page.id AND f.user_id = $1) AS favorited
     FROM page ORDER BY page.id DESC`,
    [userId, limit + 1, before, new Date(nowMs).toISOString()],
  );
}

/**
 * The per-minute threshold scan, in one statement: claims accounts whose flushed followers counter
 * reached `enter` (a `to-big` row), releases big accounts below `exit` (`to-normal`), and re-sends
 * transitions whose messages seem lost (no end within an hour). Hysteresis: `exit` < `enter`.
 */
export async function claimTransitions(db: Database, enter: number, exit: number, limit: number) {
  return queryRows<{ author_id: string; to: "big" | "normal" }>(
    db,
    `WITH claimed AS (
       INSERT INTO feed_big_accounts (author_id, state)
       SELECT c.entity_id, 'to-big' FROM counters c
       WHERE c.entity = 'user' AND c.field = 'followers' AND c.value >= $1
         AND NOT EXISTS (SELECT 1 FROM feed_big_accounts b WHERE b.author_id = c.entity_id)
       ORDER BY c.value DESC LIMIT $3
       ON CONFLICT DO NOTHING RETURNING author_id, 'big' AS "to"),
     released AS (
       UPDATE feed_big_accounts b SET state = 'to-normal', changed_at = now()
       WHERE b.author_id IN (
         SELECT b2.author_id FROM feed_big_accounts b2
         LEFT JOIN counters c ON c.entity = 'user' AND c.field = 'followers' AND c.entity_id = b2.author_id
         WHERE b2.state = 'big' AND coalesce(c.value, 0) < $2 LIMIT $3)
       RETURNING author_id, 'normal' AS "to"),
     stuck AS (
       UPDATE feed_big_accounts SET changed_at = now()
       WHERE state IN ('to-big', 'to-normal') AND changed_at < now() - interval '1 hour'
       RETURNING author_id, CASE state WHEN 'to-big' THEN 'big' ELSE 'normal' END AS "to")
     SELECT author_id::text AS author_id, "to" FROM claimed
     UNION ALL SELECT author_id::text, "to" FROM released
     UNION ALL SELECT author_id::text, "to" FROM stuck`,
    [enter, exit, limit],
  );
}

/** Every big or transitioning account with its state (what Redis `feed:big` caches). */
export async function readBigAccounts(db: Database, limit: number) {
  return queryRows<{ author_id: string; state: string }>(db, `SELECT author_id::text AS author_id, state FROM feed_big_accounts ORDER BY author_id LIMIT $1`, [limit]);
}

/** Ends a transition in Postgres: `big` stays as a row, normal removes it. */
export async function endTransition(db: Database, authorId: string, to: "big" | "normal") {
  await queryRows(
    db,
    to === "big"
      ? `UPDATE feed_big_accounts SET state = 'big', changed_at = now() WHERE author_id = $1 AND state = 'to-big'`
      : `DELETE FROM feed_big_accounts WHERE author_id = $1 AND state = 'to-normal'`,
    [authorId],
  );
}
