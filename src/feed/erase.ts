import type { EraseStep, Eraser } from "../lib/erasers";
import type { Services } from "../lib/services";
import { pageStep } from "../lib/erasers";
import { queryRows } from "../lib/db";
import { groupByDatabase, settleEach } from "../lib/redis-topology";
import { PURGE_AUTHOR_PAGE } from "./erase.lua";
import { feedKeys } from "./keys";
import { readFollowerPage } from "./store";

/** Followers whose timelines one `feed.timelines` step purges: each is an EXISTS and, where the timeline exists, a scan of it (≤ its cap) in one script per database. */
export const PURGE_FOLLOWERS_PER_STEP = 250;

/**
 * `feed.timelines`, right after `social.posts` and before `social.follows`: the user's posts out of
 * every follower's timeline, one page of followers a step (keyset on the follow, the cursor
 * `{followerId}@{createdAt}`). A deletion's post deletes send no removal fan-out of their own
 * (`post.deleted` with `followersPurged`), so an account's deletion costs its followers once, not
 * once per post; until the page reaches them, each post's tombstone hides it. The unfollows that
 * follow purge the same timelines again, which finds nothing left.
 */
export const feedTimelinesEraser: Eraser = {
  name: "feed.timelines",
  step: (services, userId, cursor) => purgeFollowersPage(services, userId, cursor, PURGE_FOLLOWERS_PER_STEP),
};

/** One page of `feed.timelines`: `size` followers after `cursor` (null: the newest). */
export async function purgeFollowersPage(services: Services, userId: string, cursor: string | null, size: number): Promise<EraseStep> {
  const at = cursor?.indexOf("@") ?? -1;
  const after = cursor && at > 0 ? { followerId: cursor.slice(0, at), createdAt: cursor.slice(at + 1) } : null;
  const page = await readFollowerPage(services.db, userId, after, size);
  const byDatabase = groupByDatabase(page, (f) => f.follower_id, services.databases);
  const settled = await settleEach(byDatabase, (index, list) =>
    services.redisAt(index).createScript<number[]>(PURGE_AUTHOR_PAGE).exec(list.map((f) => feedKeys.timeline(f.follower_id)), [userId]),
  );
  const changed: string[] = [];
  for (const [index, list] of byDatabase) {
    const outcome = settled.get(index)!;
    if (outcome.status === "rejected") throw outcome.reason;
    for (const i of outcome.value) changed.push(list[Number(i) - 1]!.follower_id);
  }
  // Their open apps re-read the badge the purge may have moved.
  if (changed.length > 0) await services.events.emit({ type: "feed.timelines-changed", userIds: changed, at: Date.now() }, services);
  const last = page[page.length - 1];
  return pageStep(changed.length, page.length === size, last ? `${last.follower_id}@${last.created_at}` : undefined);
}

/**
 * The feed capability's last eraser (docs/privacy.md), `feed`, run after the user's posts and
 * follows are gone (`feed.timelines` took the user's posts out of every follower's timeline, the
 * unfollows the followees' posts out of the user's): the user's own timeline, reaction flags, unfollow epoch,
 * seen marker and big-follows set on their database; their outbox, big-account state and activity
 * entry on every database; their `feed_big_accounts` row. One step: each is one key or field.
 */
export const feedEraser: Eraser = {
  name: "feed",
  async step(services, userId) {
    const own = [feedKeys.timeline(userId), feedKeys.flags(userId), feedKeys.unfollowEpoch(userId), feedKeys.seen(userId), feedKeys.bigFollows(userId)];
    const [deleted, ...everywhere] = await Promise.all([
      services.redisFor(userId).del(...own),
      ...Array.from({ length: services.databases }, (_, index) =>
        services
          .redisAt(index)
          .pipeline()
          .del(feedKeys.outbox(userId))
          .hdel(feedKeys.bigStates(), userId)
          .zrem(feedKeys.activity(), userId)
          .exec<number[]>()
          .then((counts) => counts.reduce((a, n) => a + Number(n), 0)),
      ),
    ]);
    const rows = await queryRows(services.db, "DELETE FROM feed_big_accounts WHERE author_id = $1 RETURNING 1", [userId]);
    return pageStep(Number(deleted) + everywhere.reduce((a, n) => a + n, 0) + rows.length, false);
  },
};
