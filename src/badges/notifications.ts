import type { SafetyCheck } from "../safety/cache";
import { badgeKeys } from "./keys";
import type { ActiveRecord } from "./active";
import type { ScriptRedis } from "./shared";
import { addToTally, clearTally, clearTallyKey, readTally } from "./tally";

/** Every notification type a badge exists for. Add a type here and it is accepted everywhere. */
export const NOTIFICATION_TYPES = ["reply", "like", "mention", "follow", "comment", "repost", "system"] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Largest `count` one call may add: a caller batching more should send several calls. */
export const MAX_NOTIFICATION_COUNT = 1000;

export type NotificationAdd = { userId: string; type: NotificationType; count: number; total: number; applied: boolean; suppressed?: "blocked" | "muted" | "suspended" };

/**
 * Adds `count` notifications of `type` for `userId` (type and total in one atomic script). With
 * `safety` (the notification names who caused it), nothing is added when the user blocked them,
 * they blocked the user, or the user mutes their notifications: `applied: false` and `suppressed`.
 */
export async function addNotifications(
  redis: ScriptRedis,
  userId: string,
  type: NotificationType,
  count: number,
  idempotencyKey?: string,
  safety?: SafetyCheck,
): Promise<NotificationAdd> {
  const idem = idempotencyKey ? badgeKeys.notificationIdempotency(userId, idempotencyKey) : undefined;
  return { userId, type, ...(await addToTally(redis, badgeKeys.notifications(userId), type, count, idem, safety)) };
}

/** Marks one type read: zeroes it and takes exactly its count off the total. `record`: the active-set record it carries (`active.ts`). */
export async function readNotificationType(redis: ScriptRedis, userId: string, type: NotificationType, record?: ActiveRecord) {
  return { type, ...(await clearTallyKey(redis, badgeKeys.notifications(userId), type, record)) };
}

/** Marks every notification read. `record`: the active-set record it carries (`active.ts`). */
export function readAllNotifications(redis: ScriptRedis, userId: string, record?: ActiveRecord) {
  return clearTally(redis, badgeKeys.notifications(userId), record);
}

/** Unread notifications by type and in total (uncapped). */
export async function getNotifications(redis: ScriptRedis, userId: string): Promise<{ byType: Record<string, number>; total: number }> {
  const { byKey, total } = await readTally(redis, badgeKeys.notifications(userId));
  return { byType: byKey, total };
}
