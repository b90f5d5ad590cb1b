import { pushChanged } from "../badges/push";
import { isRedisOutage } from "../lib/redis-failures";
import type { Services } from "../lib/services";
import { feedKeys } from "./keys";

/**
 * A read of the home timeline's first page sees everything new: the `feed` badge starts again from
 * zero (one DEL, sent alongside the page's script). Live sockets hear of it only when there was
 * something to clear. Redis down: the page degrades on its own and the badge is left as it was.
 */
export async function resetFeedUnseen(services: Pick<Services, "redis" | "env" | "waitUntil">, userId: string): Promise<void> {
  try {
    const cleared = await services.redis.del(feedKeys.unseen(userId));
    if (cleared > 0) services.waitUntil(pushChanged(services.env, [userId]));
  } catch (err) {
    if (!isRedisOutage(err)) throw err;
  }
}
