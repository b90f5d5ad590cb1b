import type { Eraser } from "../lib/erasers";
import { pageStep } from "../lib/erasers";
import { queryRows } from "../lib/db";
import { endSession } from "./rooms";

/**
 * The live capability's eraser (docs/privacy.md), `live`: every session the user hosts ends, as a
 * service's `DELETE /v1/live/{roomId}/sessions/current` ends it (everyone leaves, on every shard),
 * and the rooms' `live_session_starts` rows naming them as host go (the rooms of the last week:
 * older rows are pruned by every session start). ROOMS_PER_STEP rooms a step. Not here yet: the
 * user's presence in other hosts' rooms and the loyal-fan history those rooms' objects keep (no
 * index of the rooms a user visited; they age out with the rooms' own bounds).
 */
export const ROOMS_PER_STEP = 20;

export const liveEraser: Eraser = {
  name: "live",
  async step(services, userId) {
    const rooms = await queryRows<{ room_id: string }>(services.db, "SELECT room_id FROM live_session_starts WHERE host_id = $1 LIMIT $2", [userId, ROOMS_PER_STEP]);
    for (const { room_id } of rooms) {
      await endSession(services, { userId, role: "service" }, room_id).catch((err: unknown) => {
        // No live session there any more (ended before, or by another delivery of this step).
        if ((err as { code?: string }).code !== "conflict") throw err;
      });
    }
    const removed = rooms.length === 0 ? [] : await queryRows(services.db, "DELETE FROM live_session_starts WHERE host_id = $1 AND room_id = ANY($2::text[]) RETURNING 1", [userId, rooms.map((r) => r.room_id)]);
    return pageStep(removed.length, rooms.length === ROOMS_PER_STEP);
  },
};
