import { IDEMPOTENCY_TTL_SECONDS } from "../lib/idempotency";
import { badgeKeys, USER_TTL_SECONDS } from "./keys";
import { ADD_NOTIFICATION, GET_NOTIFICATIONS, READ_ALL_NOTIFICATIONS, READ_NOTIFICATION_TYPE } from "./notifications.lua";
import { runScript, type ScriptRedis } from "./shared";

/** Every notification type a badge exists for. Add a type here and it is accepted everywhere. */
export const NOTIFICATION_TYPES = ["reply", "like", "mention", "follow", "comment", "repost", "system"] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Largest `count` one call may add: a caller batching more should send several calls. */
export const MAX_NOTIFICATION_COUNT = 1000;

export type NotificationAdd = { userId: string; type: NotificationType; count: number; total: number; applied: boolean };

/** Adds `count` notifications of `type` for `userId` (type and total in one atomic script). */
export async function addNotifications(
  redis: ScriptRedis,
  userId: string,
  type: NotificationType,
  count: number,
  idempotencyKey?: string,
): Promise<NotificationAdd> {
  const keys = [badgeKeys.notifications(userId)];
  if (idempotencyKey) keys.push(badgeKeys.notificationIdempotency(userId, idempotencyKey));
  const r = await runScript<{ applied: boolean; count: number; total: number }>(redis, ADD_NOTIFICATION, keys, [
    type,
    count,
    USER_TTL_SECONDS,
    IDEMPOTENCY_TTL_SECONDS,
  ]);
  return { userId, type, ...r };
}

/** Marks one type read: zeroes it and takes exactly its count off the total. */
export async function readNotificationType(redis: ScriptRedis, userId: string, type: NotificationType) {
  const r = await runScript<{ cleared: number; total: number }>(redis, READ_NOTIFICATION_TYPE, [badgeKeys.notifications(userId)], [type]);
  return { type, ...r };
}

/** Marks every notification read. */
export async function readAllNotifications(redis: ScriptRedis, userId: string) {
  return runScript<{ cleared: number; total: number }>(redis, READ_ALL_NOTIFICATIONS, [badgeKeys.notifications(userId)], []);
}

/** Unread notifications by type and in total (uncapped). */
export async function getNotifications(redis: ScriptRedis, userId: string): Promise<{ byType: Record<string, number>; total: number }> {
  const r = await runScript<{ byType: Record<string, number> | unknown[]; total: number }>(redis, GET_NOTIFICATIONS, [badgeKeys.notifications(userId)], []);
  return { byType: Array.isArray(r.byType) ? {} : r.byType, total: r.total };
}
