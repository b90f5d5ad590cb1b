import type { Eraser } from "../lib/erasers";
import { pageStep } from "../lib/erasers";
import { queryRows } from "../lib/db";
import { eraseInboxList } from "./inbox-list";
import { badgeKeys } from "./keys";

/**
 * The badges capability's eraser (docs/privacy.md), `badges`: the user's own keys on their
 * database (notification counts, markers, red-dot and author seen state, stream access, DM and
 * inbox tallies and list), their entry in every database's active set and published-posts count (as an
 * author others read unread posts of), and their Postgres rows (broadcast
 * read marker, stream memberships, access log, inbox recipients). ROWS_PER_STEP rows a step of the
 * tables that can hold many per user. Not here yet: the user's unread DMs as fields of other
 * users' `badge:dm:{peer}` tallies (no index of whom a user wrote to; they go as those peers read).
 */
export const ROWS_PER_STEP = 500;

export const badgesEraser: Eraser = {
  name: "badges",
  async step(services, userId) {
    const rows = await queryRows<{ n: number }>(
      services.db,
      `WITH b AS (DELETE FROM broadcast_reads WHERE user_id = $1 RETURNING 1),
            s AS (DELETE FROM stream_members WHERE ctid IN (SELECT ctid FROM stream_members WHERE user_id = $1 LIMIT $2) RETURNING 1),
            a AS (DELETE FROM user_access_log WHERE ctid IN (SELECT ctid FROM user_access_log WHERE user_id = $1 LIMIT $2) RETURNING 1),
            i AS (DELETE FROM inbox_recipients WHERE ctid IN (SELECT ctid FROM inbox_recipients WHERE user_id = $1 LIMIT $2) RETURNING 1)
       SELECT (SELECT count(*) FROM b) + (SELECT count(*) FROM s) + (SELECT count(*) FROM a) + (SELECT count(*) FROM i) AS n,
              greatest((SELECT count(*) FROM s), (SELECT count(*) FROM a), (SELECT count(*) FROM i)) AS most`,
      [userId, ROWS_PER_STEP],
    );
    const { n, most } = rows[0] as unknown as { n: string; most: string };
    if (Number(most) === ROWS_PER_STEP) return { removed: Number(n), cursor: "rows" };
    const own = [
      badgeKeys.notifications(userId),
      badgeKeys.markers(userId),
      badgeKeys.reddotSeen(userId),
      badgeKeys.authorSeen(userId),
      badgeKeys.authorSeenEpoch(userId),
      badgeKeys.streamAccess(userId),
      badgeKeys.dms(userId),
      badgeKeys.inbox(userId),
    ];
    const [deleted, , ...inactive] = await Promise.all([
      services.redisFor(userId).del(...own),
      // The inbox list goes with its epoch moved: a list rebuild in flight must not store it again.
      eraseInboxList(services.redisFor(userId), userId),
      ...Array.from({ length: services.databases }, (_, index) =>
        services
          .redisAt(index)
          .pipeline()
          .zrem(badgeKeys.activeUsers(), userId)
          .hdel(badgeKeys.authorPublished(), userId)
          .exec<number[]>()
          .then((n) => n.reduce((a, x) => a + Number(x), 0)),
      ),
    ]);
    return pageStep(Number(n) + Number(deleted) + inactive.reduce((a: number, x) => a + Number(x), 0), false);
  },
};
