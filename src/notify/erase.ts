import type { Eraser } from "../lib/erasers";
import { pageStep } from "../lib/erasers";
import { queryRows } from "../lib/db";
import { notifyKeys } from "./keys";
import { listDevices } from "./store";
import { removeUserDevice } from "./user-devices";

/**
 * The notify capability's eraser (docs/privacy.md), `notify`: every device through
 * `removeUserDevice` (as `DELETE /v1/me/devices/{id}` does: an FCM token leaves the broadcast
 * topic), then the preferences row, the chosen authors both ways (the user's choices and other
 * users' choices of them: most went with the follows already), and the user's cached device list
 * and preferences. A device list holds at most MAX_DEVICES_PER_USER (20), choices of one user at
 * most 100; choices of the user by others are removed CHOICES_PER_STEP a step.
 */
export const CHOICES_PER_STEP = 500;

export const notifyEraser: Eraser = {
  name: "notify",
  async step(services, userId) {
    let removed = 0;
    for (const device of await listDevices(services.db, userId)) if (await removeUserDevice(services, userId, device.deviceId)) removed++;
    const rows = await queryRows(
      services.db,
      `WITH p AS (DELETE FROM notify_preferences WHERE user_id = $1 RETURNING 1),
            c AS (DELETE FROM notify_author_choices WHERE ctid IN (
                    SELECT ctid FROM notify_author_choices WHERE user_id = $1 OR author_id = $1 LIMIT $2) RETURNING 1)
       SELECT (SELECT count(*) FROM p)::int AS preferences, (SELECT count(*) FROM c)::int AS choices`,
      [userId, CHOICES_PER_STEP],
    );
    const { preferences, choices } = rows[0] as { preferences: number; choices: number };
    removed += preferences + choices;
    if (choices === CHOICES_PER_STEP) return { removed, cursor: "choices" };
    // Last: the caches (the device list's stale mark included; nothing refills them for a user being deleted).
    await services.redisFor(userId).del(notifyKeys.devices(userId), notifyKeys.preferences(userId));
    return pageStep(removed, false);
  },
};
