import { pushChanged } from "../badges/push";
import { isRedisOutage } from "../lib/redis-failures";
import { createScriptBatch } from "../lib/script-batch";
import type { Services } from "../lib/services";
import { feedKeys } from "./keys";

/** Deletes the `feed` badge's counter; answers 1 when there was one. Billed: EVALSHA + DEL. */
const RESET_UNSEEN = `
local unseen = KEYS[1]  -- feed:new:{user}
return redis.call('DEL', unseen)
`;

/**
 * A read of the home timeline's first page sees everything new: the `feed` badge starts again
 * from zero. The reset rides the page's own round trip: `read` gets services whose scripts,
 * started in the same turn as the reset, go out in one pipeline with it. Live sockets hear of it
 * only when there was something to clear. Redis down: the page degrades on its own and the badge
 * is left as it was.
 */
export async function readingFirstPage<T>(services: Services, userId: string, read: (services: Services) => Promise<T>): Promise<T> {
  const batch = createScriptBatch(() => services.redis);
  const redis = Object.create(services.redis, { createScript: { value: batch.createScript.bind(batch) } }) as Services["redis"];
  const reset = batch
    .createScript<number>(RESET_UNSEEN)
    .exec([feedKeys.unseen(userId)], [])
    .then(
      (cleared) => {
        if (Number(cleared) > 0) services.waitUntil(pushChanged(services.env, [userId]));
      },
      (err: unknown) => {
        if (!isRedisOutage(err)) throw err;
      },
    );
  const [page] = await Promise.all([read(Object.create(services, { redis: { value: redis } }) as Services), reset]);
  return page;
}
