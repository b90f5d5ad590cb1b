import type { Eraser } from "../lib/erasers";
import { pageStep } from "../lib/erasers";
import { queryRows } from "../lib/db";
import { NOTIFY_MUTE_PREFIX, safetyKeysOf } from "./keys";
import { writeSets, type SetChange } from "./cache";
import { liftSuspension } from "./suspension";

/**
 * The safety capability's eraser (docs/privacy.md), `safety`: the blocks and mutes the user made
 * and those made of them, ROWS_PER_STEP rows a step, each also taken out of the other user's cached
 * set (as an unblock or unmute takes it out: `writeSets`, one round per database touched); then the
 * user's own cached sets and epoch. Idempotent, and complete after any failure: the cached sets
 * lose the rows' members before the rows go (a step that fails after its DELETE would otherwise
 * find no row to take out of the caches when retried), and again after, for what the DELETE
 * returned (a row added since the SELECT, or a cache rebuilt from the rows in between); removing a
 * member twice changes nothing. Reports and the moderator's records are `safety.reports`' (below).
 */
export const ROWS_PER_STEP = 500;

type Row = { kind: "block" | "mute"; made: boolean; other: string };

/** Which blocks and mutes name the user (as maker or as target), ROWS_PER_STEP of each at most. */
const ROWS_SQL = (verb: "SELECT" | "DELETE") => {
  const pick = (table: string, maker: string, target: string) =>
    verb === "SELECT"
      ? `SELECT ${maker} = $1 AS made, CASE WHEN ${maker} = $1 THEN ${target} ELSE ${maker} END AS other FROM ${table} WHERE ${maker} = $1 OR ${target} = $1 LIMIT $2`
      : `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${maker} = $1 OR ${target} = $1 LIMIT $2)
         RETURNING ${maker} = $1 AS made, CASE WHEN ${maker} = $1 THEN ${target} ELSE ${maker} END AS other`;
  return `WITH b AS (${pick("safety_blocks", "blocker_id", "blocked_id")}),
               m AS (${pick("safety_mutes", "muter_id", "muted_id")})
          SELECT 'block' AS kind, made, other::text AS other FROM b
          UNION ALL SELECT 'mute', made, other::text FROM m`;
};

/** The other side's cached sets: what they blocked or muted of the user, and who of them the user blocked. */
function setChanges(rows: readonly Row[], userId: string): SetChange[] {
  return rows.flatMap((r): SetChange[] => {
    if (r.made) return r.kind === "block" ? [{ owner: r.other, set: "blockedMe", op: "rem", member: userId }] : [];
    if (r.kind === "block") return [{ owner: r.other, set: "blocked", op: "rem", member: userId }];
    return [
      { owner: r.other, set: "mutes", op: "rem", member: userId },
      { owner: r.other, set: "mutes", op: "rem", member: `${NOTIFY_MUTE_PREFIX}${userId}` },
    ];
  });
}

export const safetyEraser: Eraser = {
  name: "safety",
  async step(services, userId) {
    const before = setChanges(await queryRows<Row>(services.db, ROWS_SQL("SELECT"), [userId, ROWS_PER_STEP]), userId);
    if (before.length > 0) await writeSets(services, before);
    const rows = await queryRows<Row>(services.db, ROWS_SQL("DELETE"), [userId, ROWS_PER_STEP]);
    const after = setChanges(rows, userId);
    if (after.length > 0) await writeSets(services, after);
    const blocks = rows.filter((r) => r.kind === "block").length;
    if (blocks === ROWS_PER_STEP || rows.length - blocks === ROWS_PER_STEP) return { removed: rows.length, cursor: "more" };
    // Last: the user's own cached sets and epoch (nothing rebuilds them for a user being deleted).
    await services.redisFor(userId).del(...safetyKeysOf(userId));
    return pageStep(rows.length, false);
  },
};

/**
 * `safety.reports`: the moderation records, kept with only what moderation needs (docs/privacy.md,
 * "What is kept"). Each step is one statement over at most ROWS_PER_STEP rows of each kind:
 * - reports the user made lose the reporter (`reporter_id` null, `reporter_erased`): the report is
 *   about someone else, whose moderation still needs it (its category, comment and posts);
 * - reports about the user are kept; those still open are resolved as `account-deleted` (the
 *   posts are gone and the id will be a new user's: no action on it may follow), and the reported
 *   text is blanked unless the report was resolved by `remove-posts` or `suspend` (the evidence an
 *   action was taken on, for an appeal or a legal claim; a dismissed or never-judged report
 *   needs only that it existed);
 * - actions, suspensions and term lists the user made as an operator lose the operator;
 * then the user's suspension ends as a lift does (the id starts as a new, empty user; the
 * report's `suspend` action still records it). Idempotent: each statement selects only rows it
 * has not changed yet.
 */
export const safetyReportsEraser: Eraser = {
  name: "safety.reports",
  async step(services, userId) {
    const [counts] = await queryRows<{ made: number; about: number; texts: number; acted: number }>(
      services.db,
      `WITH made AS (UPDATE safety_reports SET reporter_id = NULL, reporter_erased = true
                      WHERE id IN (SELECT id FROM safety_reports WHERE reporter_id = $1 LIMIT $2) RETURNING 1),
            about AS (UPDATE safety_reports SET status = 'resolved', resolution = 'account-deleted', resolved_at = now(), updated_at = now()
                      WHERE id IN (SELECT id FROM safety_reports WHERE target_id = $1 AND status = 'open' LIMIT $2) RETURNING 1),
            texts AS (UPDATE safety_report_posts SET text = ''
                      WHERE ctid IN (SELECT p.ctid FROM safety_report_posts p JOIN safety_reports r ON r.id = p.report_id
                                      WHERE r.target_id = $1 AND p.text <> ''
                                        AND (r.resolution IS NULL OR r.resolution NOT IN ('remove-posts', 'suspend')) LIMIT $2) RETURNING 1),
            acted AS (UPDATE safety_report_actions SET actor_id = NULL
                      WHERE id IN (SELECT id FROM safety_report_actions WHERE actor_id = $1 LIMIT $2) RETURNING 1),
            suspended AS (UPDATE safety_suspensions SET suspended_by = NULL WHERE suspended_by = $1 RETURNING 1),
            terms AS (UPDATE safety_moderation_terms SET updated_by = NULL WHERE updated_by = $1 RETURNING 1)
       SELECT (SELECT count(*)::int FROM made) AS made, (SELECT count(*)::int FROM about) AS about,
              (SELECT count(*)::int FROM texts) AS texts,
              (SELECT count(*)::int FROM acted) + (SELECT count(*)::int FROM suspended) + (SELECT count(*)::int FROM terms) AS acted`,
      [userId, ROWS_PER_STEP],
    );
    const { made, about, texts, acted } = counts!;
    const removed = made + about + texts + acted;
    // (An open report resolved here has its texts blanked in the same statement: its resolution was still null.)
    if (made === ROWS_PER_STEP || about === ROWS_PER_STEP || texts === ROWS_PER_STEP || acted >= ROWS_PER_STEP) return { removed, cursor: "more" };
    const lifted = await liftSuspension(services, userId);
    return pageStep(removed + (lifted.changed ? 1 : 0), false);
  },
};
