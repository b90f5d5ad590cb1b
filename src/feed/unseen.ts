import { isRedisOutage } from "../lib/redis-failures";
import { createScriptBatch } from "../lib/script-batch";
import type { Services } from "../lib/services";
import { feedKeys, TIMELINE_TTL_SECONDS } from "./keys";

/**
 * Moves the `feed` badge's marker to the timeline's newest post id (score), so the badge — the
 * posts above the marker — starts again from zero. A missing timeline (the page builds it next)
 * drops the marker: the build sets it to what it built. Answers 1 when the marker moved (the badge
 * may have been above zero; equal marker and top prove it was zero). Billed: EVALSHA + ZRANGE +
 * SET (GET in the same command) | DEL.
 */
const RESET_UNSEEN = `
local tl = KEYS[1]      -- feed:tl:{user}
local seen = KEYS[2]    -- feed:seen:{user}
local ttl = ARGV[1]
local top = redis.call('ZRANGE', tl, -1, -1, 'WITHSCORES')[2]
if not top then
  redis.call('DEL', seen)
  return 0
end
if redis.call('SET', seen, top, 'EX', ttl, 'GET') == top then return 0 end
return 1
`;

/**
 * A read of the home timeline's first page sees everything new: the `feed` badge starts again
 * from zero. The reset rides the page's own round trip: `read` gets services whose scripts,
 * started in the same turn as the reset, go out in one pipeline with it (the reset first, so it
 * marks the timeline the page serves). The read is announced (`feed.first-page-read`) only when the
 * marker moved: live sockets then read `feed` alone. Redis down: the page degrades on its own and the badge is left as it was.
 */
export async function readingFirstPage<T>(services: Services, userId: string, read: (services: Services) => Promise<T>): Promise<T> {
  const batch = createScriptBatch(() => services.redis);
  const redis = Object.create(services.redis, { createScript: { value: batch.createScript.bind(batch) } }) as Services["redis"];
  const reset = batch
    .createScript<number>(RESET_UNSEEN)
    .exec([feedKeys.timeline(userId), feedKeys.seen(userId)], [String(TIMELINE_TTL_SECONDS)])
    .then(
      (moved) => {
        if (Number(moved) > 0) services.waitUntil(services.events.emit({ type: "feed.first-page-read", userId, at: Date.now() }, services));
      },
      (err: unknown) => {
        if (!isRedisOutage(err)) throw err;
      },
    );
  const [page] = await Promise.all([read(Object.create(services, { redis: { value: redis } }) as Services), reset]);
  return page;
}
