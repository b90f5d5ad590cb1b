import { RUN_FIELDS } from "../lib/ops/keys";
import { queryRows } from "../counters/store";
import type { Services } from "../lib/services";
import type { CronTask } from "../scheduled";
import { roomStub } from "./rooms";

/**
 * Live rooms for the operations view, without listing or scanning objects: a session start writes
 * one row (`live_session_starts`, `recordSessionStart` in ./rooms), and the per-minute cron asks only the rooms started in the last
 * 6 hours for their audience, keeping the largest in its run record.
 */

/** "Recent" rooms: a session started within this window (rooms expire 6 h after their last session). */
export const RECENT_ROOM_HOURS = 6;
/** Rooms the cron asks at most per run, the most recently started first (one object call each). */
export const ROOMS_ASKED = 100;
/** Largest audiences the status lists. */
export const LARGEST_ROOMS = 10;
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
