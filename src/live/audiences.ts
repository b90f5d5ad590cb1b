import { RUN_FIELDS } from "../admin/keys";
import { queryRows } from "../counters/store";
import type { Services } from "../lib/services";
import type { CronTask } from "../scheduled";
import type { SessionDescriptor } from "./room";
import { roomStub } from "./rooms";

/**
 * Live rooms for the operations view, without listing or scanning objects: a session start writes
 * one row (`live_session_starts`), and the per-minute cron asks only the rooms started in the last
 * 6 hours for their audience, keeping the largest in its run record.
 */

/** "Recent" rooms: a session started within this window (rooms expire 6 h after their last session). */
export const RECENT_ROOM_HOURS = 6;
/** Rooms the cron asks at most per run, the most recently started first (one object call each). */
export const ROOMS_ASKED = 100;
/** Largest audiences the status lists. */
export const LARGEST_ROOMS = 10;
/** Rows of rooms whose last session started longer ago than this are pruned. */
const KEEP_DAYS = 7;

/**
 * Records a session start: ONE statement (upsert of the room's row, pruning rows over a week old).
 * Best effort: a failure is logged and the session stands; the room is only missing from the
 * operators' count until its next session.
 */
export async function recordSessionStart(services: Pick<Services, "db">, session: SessionDescriptor): Promise<void> {
  try {
    await queryRows(
      services.db,
      `WITH pruned AS (DELETE FROM live_session_starts WHERE started_at < now() - make_interval(days => $5))
       INSERT INTO live_session_starts (room_id, session_id, host_id, started_at) VALUES ($1, $2, $3, to_timestamp($4 / 1000.0))
       ON CONFLICT (room_id) DO UPDATE SET session_id = excluded.session_id, host_id = excluded.host_id, started_at = excluded.started_at`,
      [session.roomId, session.sessionId, session.hostId, session.startedAt, KEEP_DAYS],
    );
  } catch (err) {
    console.error(JSON.stringify({ level: "error", message: "live session start not recorded", roomId: session.roomId, error: err instanceof Error ? err.message : String(err) }));
  }
}

export type RoomAudience = { roomId: string; viewers: number; onlineFans: number };
export type LiveRoomsSnapshot = { asked: number; live: number; largest: RoomAudience[] };

/** Asks the rooms started in the last 6 h (at most ROOMS_ASKED) for their totals; the largest first. */
export async function askRecentRooms(services: Pick<Services, "db" | "env">): Promise<LiveRoomsSnapshot> {
  const rows = await queryRows<{ room_id: string }>(
    services.db,
    `SELECT room_id FROM live_session_starts WHERE started_at > now() - make_interval(hours => $1) ORDER BY started_at DESC LIMIT $2`,
    [RECENT_ROOM_HOURS, ROOMS_ASKED],
  );
  const audiences: RoomAudience[] = [];
  // Ten calls at a time: a Worker keeps at most six connections open, and the cron has other work.
  for (let i = 0; i < rows.length; i += 10) {
    const answers = await Promise.allSettled(rows.slice(i, i + 10).map((r) => roomStub(services.env, r.room_id).liveTotals()));
    answers.forEach((a, j) => {
      if (a.status === "fulfilled" && a.value.live) audiences.push({ roomId: rows[i + j]!.room_id, viewers: a.value.viewers, onlineFans: a.value.onlineFans });
    });
  }
  audiences.sort((a, b) => b.viewers - a.viewers || a.roomId.localeCompare(b.roomId));
  return { asked: rows.length, live: audiences.length, largest: audiences.slice(0, LARGEST_ROOMS) };
}

/** Every minute: the live rooms' largest audiences, kept for the status (`live:rooms`). */
export const liveRoomsTask: CronTask = {
  name: "live.rooms",
  run: (services) => askRecentRooms(services),
  record: (o) => (o.ok ? { [RUN_FIELDS.liveRooms]: { at: o.at, ...(o.result as LiveRoomsSnapshot) } } : {}),
};
