import type { Services } from "../lib/services";
import { isRedisCommandError } from "../lib/errors";
import { commandFailure } from "../lib/redis-failures";
import { UNFOLLOW } from "./follow.lua";
import { feedKeys, INTENT_TTL_SECONDS, TIMELINE_TTL_SECONDS } from "./keys";

/**
 * A block between `a` and `b` (src/safety): each one's posts leave the other's timeline and pulled
 * set now, by the unfollow's own script (`UNFOLLOW`: members name their author, so no Postgres),
 * whether or not a follow existed — a post a late fan-out put there before the block is gone too.
 * The script also leaves the follow intent "0" (a late fan-out page or sync of an old follow skips
 * the timeline) and moves the unfollow epoch (a build that read Postgres before does not write).
 * What comes later is kept out by the delivery's own check of the follower's safety sets
 * (`DELIVER_PAGE`). One script per user, on that user's database, side by side.
 */
export async function purgeAuthorsBetween(services: Pick<Services, "redisFor">, a: string, b: string): Promise<void> {
  await Promise.all([purge(services, a, b), purge(services, b, a)]);
}

async function purge(services: Pick<Services, "redisFor">, reader: string, author: string): Promise<void> {
  try {
    await services
      .redisFor(reader)
      .createScript(UNFOLLOW)
      .exec(
        [feedKeys.timeline(reader), feedKeys.intent(reader, author), feedKeys.unfollowEpoch(reader), feedKeys.bigFollows(reader)],
        [author, String(INTENT_TTL_SECONDS), String(TIMELINE_TTL_SECONDS)],
      );
  } catch (err) {
    throw isRedisCommandError(err) ? commandFailure("Feed purge script", err) : err;
  }
}
