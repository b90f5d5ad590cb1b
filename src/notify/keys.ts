/**
 * Every Redis key the notify capability owns. Nobody else writes them. Each lives on its owner's
 * database (`services.redisFor(userId)`); a reshard drops them (src/lib/key-owners.ts): Postgres
 * holds the devices, the cache refills on the next read.
 */

/**
 * A device list is cached for an hour after it is read from Postgres. Every change replaces it
 * with STALE_DEVICES (before its commit and again after it), so the TTL only bounds what a change
 * whose Redis write was lost after its commit could leave.
 */
export const DEVICES_CACHE_TTL_SECONDS = 60 * 60;
/**
 * What a change leaves in place of the list, for STALE_DEVICES_TTL_SECONDS: reads go to Postgres
 * and may not fill (SET NX fails), so a read that began before the commit cannot store the list
 * it read once the change is done. Far longer than a read's one indexed Postgres query takes.
 */
export const STALE_DEVICES = "stale";
export const STALE_DEVICES_TTL_SECONDS = 15;

export const notifyKeys = {
  /**
   * String: JSON array of the user's devices as `GET /v1/me/devices` lists them, newest
   * registration first, at most MAX_DEVICES_PER_USER (`[]` is cached too: most users have none),
   * or STALE_DEVICES for 15 s after a change. Owner: the user. TTL DEVICES_CACHE_TTL_SECONDS; a
   * list is set only by a read that missed (SET NX).
   */
  devices: (userId: string) => `ntf:dev:${userId}`,
  /**
   * String: events counted in the user's open batch window on one thread (`windows.ts`): set to 1
   * by the first (which enqueued the delayed push), incremented by the rest, read and deleted
   * (GETDEL) by that push. Owner: the user. TTL WINDOW_TTL_SECONDS past the window, so a push that
   * ran late or never does not hold the window shut.
   */
  window: (userId: string, thread: string) => `ntf:win:${userId}:${thread}`,
  /**
   * Set: the window keys of `authorId`'s threads (`author:{authorId}:{thread}`) with a window open
   * for the user (`author-windows.lua.ts`), at most MAX_AUTHOR_THREAD_WINDOWS: past that a post
   * counts in the author's own window. A member whose window key is gone is dropped by the next
   * post. Owner: the user. TTL the longest of its windows' (window or hold, plus slack).
   */
  authorThreads: (userId: string, authorId: string) => `ntf:athr:${userId}:${authorId}`,
  /**
   * String: JSON of the user's push preferences (the defaults cached too). Owner: the user. TTL
   * PREFERENCES_CACHE_TTL_SECONDS; set by a read that missed (SET NX) or by a change (SET).
   */
  preferences: (userId: string) => `ntf:pref:${userId}`,
  /**
   * String: how many pushes a push service refused for one registration of the user's device
   * (400, 403, 413, a redirect: `refusedDevice` in answers.ts); at MAX_DEVICE_REFUSALS the device
   * is removed. The registration time is part of the key, so registering again starts at 0.
   * Owner: the user. INCR + EXPIRE (REFUSAL_COUNT_TTL_SECONDS) in one round trip, only when a push
   * was refused: a device refused less often than that is never removed for it.
   */
  refusals: (userId: string, deviceId: string, registeredAtMs: number) => `ntf:refused:${userId}:${deviceId}:${registeredAtMs}`,
} as const;

/** A refusal counts for a week: three in a week remove the device. */
export const REFUSAL_COUNT_TTL_SECONDS = 7 * 24 * 60 * 60;

export const PREFERENCES_CACHE_TTL_SECONDS = 60 * 60;

/** Threads of one chosen author with a batch window open at once, per chooser; past it, the author's window. */
export const MAX_AUTHOR_THREAD_WINDOWS = 3;

/** A window's key outlives the window by this much: the delayed push's slack on a busy queue. */
export const WINDOW_SLACK_SECONDS = 60;
