import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { idColumn } from "../db/columns";

/**
 * The last session started in each room, written when a session starts (one statement, in the
 * background of that request), so operators can count the rooms started in the last 6 hours and
 * the cron can ask only those rooms how many are watching — no object is listed or scanned. One row
 * per room; rows of rooms whose last session started over 7 days ago are pruned by that statement.
 */
export const liveSessionStarts = pgTable(
  "live_session_starts",
  {
    roomId: text("room_id").primaryKey(),
    sessionId: text("session_id").notNull(),
    hostId: idColumn("host_id").notNull(),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "string" }).notNull(),
  },
  // "Rooms started in the last 6 h", newest first: a range on this index.
  (t) => [index("live_session_starts_started_idx").on(t.startedAt)],
);
