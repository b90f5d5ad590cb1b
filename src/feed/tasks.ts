import { createScriptBatch } from "../lib/script-batch";
import type { CronTask } from "../scheduled";
import { feedKeys, timelineMember, TOMBSTONE, TOMBSTONE_TTL_SECONDS } from "./keys";
import { UNPUBLISH_POST } from "./publish.lua";
import { readRecentlyDeleted } from "./store";

/** Deletes looked back on each minute: three runs see each delete, so one failed run loses nothing. */
const TOMBSTONE_LOOKBACK_SECONDS = 180;
const TOMBSTONES_PER_RUN = 1000;

/**
 * Every minute: tombstones the posts deleted in the last three minutes again, in ONE Redis round
 * trip. A delete whose request-path tombstone failed (Redis unreachable) is hidden from pages
 * within a minute of Redis coming back; others just get their tombstone rewritten.
 */
export const feedTombstoneTask: CronTask = {
  name: "feed.tombstones",
  async run(services) {
    const deleted = await readRecentlyDeleted(services.db, TOMBSTONE_LOOKBACK_SECONDS, TOMBSTONES_PER_RUN);
    const redis = createScriptBatch(() => services.redis);
    await Promise.all(
      deleted.map((p) =>
        redis
          .createScript(UNPUBLISH_POST)
          .exec([feedKeys.post(p.id), feedKeys.timeline(p.author_id)], [TOMBSTONE, String(TOMBSTONE_TTL_SECONDS), timelineMember(p.id, p.author_id)]),
      ),
    );
    return { tombstoned: deleted.length };
  },
};
