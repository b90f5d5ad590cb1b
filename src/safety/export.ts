import { isoTimestamp } from "../db/columns";
import { queryRows } from "../lib/db";
import type { Services } from "../lib/services";
import { safetyNow } from "./clock";
import type { ReportResolution } from "./reports";
import type { ReportCategory } from "./schema";
import { listBlocks, listMutes } from "./store";

/**
 * The safety capability's part of a user's export (`GET /v1/me/export`, docs/privacy.md): the
 * blocks and mutes the user made and the reports they made, page by page (an async generator the
 * export's stream pulls one page at a time), each page one keyset-paginated statement of at most
 * `page` rows. Blocks and mutes of the user by others are those users' data, not exported here;
 * reports are exported as the reporter wrote them (their posts by id), without the moderators'
 * actions or notes.
 */
export type SafetyExportRecord =
  | { type: "block"; userId: string; blockedAt: string }
  | { type: "mute"; userId: string; notifications: boolean; expiresAt: string | null; mutedAt: string }
  | {
      type: "report";
      id: string;
      userId: string;
      category: ReportCategory;
      comment: string;
      postIds: string[];
      status: "open" | "resolved";
      createdAt: string;
      resolvedAt: string | null;
      resolution: ReportResolution | null;
    };

export async function* safetyExportRecords(services: Pick<Services, "db" | "env">, userId: string, page: number): AsyncGenerator<SafetyExportRecord[]> {
  for (let after: { createdAt: string; userId: string } | undefined; ; ) {
    const rows = await listBlocks(services.db, userId, page, after);
    if (rows.length === 0) break;
    yield rows.map((r) => ({ type: "block", userId: r.user_id, blockedAt: isoTimestamp(r.created_at) }));
    if (rows.length < page) break;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.created_at, userId: last.user_id };
  }

  // Mutes in force (an ended one is ignored by every read and pruned by the next mute write).
  const now = safetyNow(services.env);
  for (let after: { createdAt: string; userId: string } | undefined; ; ) {
    const rows = await listMutes(services.db, userId, page, now, after);
    if (rows.length === 0) break;
    yield rows.map((m) => ({ type: "mute", userId: m.userId, notifications: m.notifications, expiresAt: m.expiresAt, mutedAt: m.createdAt }));
    if (rows.length < page) break;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.cursorAt, userId: last.userId };
  }

  for (let after = "0"; ; ) {
    const rows = await queryRows<{ id: string; target_id: string; category: ReportCategory; comment: string; post_ids: string[]; status: "open" | "resolved"; created_at: string; resolved_at: string | null; resolution: ReportResolution | null }>(
      services.db,
      `SELECT r.id::text, r.target_id::text, r.category, r.comment, r.status, r.created_at::text, r.resolved_at::text, r.resolution,
              coalesce((SELECT array_agg(p.post_id::text ORDER BY p.post_id) FROM safety_report_posts p WHERE p.report_id = r.id), '{}') AS post_ids
         FROM safety_reports r WHERE r.reporter_id = $1 AND r.id > $2::bigint ORDER BY r.id LIMIT $3`,
      [userId, after, page],
    );
    if (rows.length === 0) break;
    yield rows.map((r) => ({
      type: "report",
      id: r.id,
      userId: r.target_id,
      category: r.category,
      comment: r.comment,
      postIds: r.post_ids,
      status: r.status,
      createdAt: isoTimestamp(r.created_at),
      resolvedAt: r.resolved_at === null ? null : isoTimestamp(r.resolved_at),
      resolution: r.resolution,
    }));
    if (rows.length < page) break;
    after = rows[rows.length - 1]!.id;
  }
}
