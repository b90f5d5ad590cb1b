/**
 * Every Redis key the notify capability owns. Nobody else writes them. Each lives on its owner's
 * database (`services.redisFor(userId)`); a reshard drops them (src/lib/key-owners.ts): Postgres
 * holds the devices, the cache refills on the next read.
 */

/**
 * A device list is cached for an hour after it is read from Postgres. Every change deletes it
 * (before its commit and again after it), so the TTL only bounds what a lost delete could leave.
 */
export const DEVICES_CACHE_TTL_SECONDS = 60 * 60;

export const notifyKeys = {
  /**
   * String: JSON array of the user's devices as `GET /v1/me/devices` lists them, newest
   * registration first, at most MAX_DEVICES_PER_USER (`[]` is cached too: most users have none).
   * Owner: the user. TTL DEVICES_CACHE_TTL_SECONDS; set only by a read that missed (SET NX).
   */
  devices: (userId: string) => `ntf:dev:${userId}`,
} as const;
