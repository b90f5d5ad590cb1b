import type { Eraser } from "../erasers";
import { pageStep } from "../erasers";
import { queryRows } from "../db";

/**
 * Dead letters naming the user (docs/privacy.md), `ops.dead-letters`: a push to them, a fan-out
 * page of one of their posts. Removed, not redacted: a dead letter replayed for a deleted account
 * would only re-create what the deletion removed. Run before the post rows go (it matches the
 * post ids through them). Bounded: at most MAX_DEAD_LETTERS_PER_QUEUE rows per queue are kept.
 */
export const DEAD_LETTERS_PER_STEP = 500;

export const deadLettersEraser: Eraser = {
  name: "ops.dead-letters",
  async step(services, userId) {
    const rows = await queryRows(
      services.db,
      `DELETE FROM dead_letters WHERE id IN (
         SELECT d.id FROM dead_letters d
         WHERE d.body::text ~ ('(^|[^0-9])' || $1::text || '([^0-9]|$)')
            OR (d.body ->> 'postId') IN (SELECT id::text FROM posts WHERE author_id = $1::bigint)
         LIMIT $2)
       RETURNING 1`,
      [userId, DEAD_LETTERS_PER_STEP],
    );
    return pageStep(rows.length, rows.length === DEAD_LETTERS_PER_STEP);
  },
};
