import type { Services } from "../lib/services";
import { ApiError } from "../lib/errors";
import { errorText, log } from "../lib/log";
import { cachedRow, type Prefetched } from "./cached-row";
import { pushConfig } from "./config";
import { addressOf, checkRegistration, type Device, type DeviceRegistration } from "./devices";
import { DEVICES_CACHE_TTL_SECONDS, notifyKeys, STALE_DEVICES, STALE_DEVICES_TTL_SECONDS } from "./keys";
import { deleteDevice, deleteGoneDevice, listDevices, registerDevice, type RegistrationResult } from "./store";
import { leaveBroadcastTopicLater, syncBroadcastTopicLater } from "./topic";

/**
 * A user's devices: Postgres holds them, Redis caches each user's list on the user's database
 * (one GET per read). A change marks the user's list stale before its statements (a Redis failure
 * there fails the call: 503, nothing changed), then runs them in one request (one batch), then
 * marks every list it touched once more (a moved device's previous owner too); while marked, reads
 * go to Postgres and cannot fill (the fill is NX), and the mark after the commit overwrites what a
 * read that began before it stored, so no list read before the commit stays.
 */

type DeviceServices = Pick<Services, "env" | "db" | "redisFor" | "waitUntil" | "events">;

/** The user's devices, newest registration first: the cached list, or Postgres (then cached). */
export async function userDevices(services: DeviceServices, userId: string, prefetched?: Prefetched): Promise<Device[]> {
  // The fill's NX is refused while a change's stale mark stands (this read may predate its commit).
  return cachedRow(services, userId, {
    key: notifyKeys.devices(userId),
    ttlSeconds: DEVICES_CACHE_TTL_SECONDS,
    what: "device",
    from: (cached) => (Array.isArray(cached) ? (cached as Device[]) : undefined),
    load: () => listDevices(services.db, userId),
  }, prefetched);
}

async function dropCachedLists(services: DeviceServices, userIds: readonly string[]): Promise<void> {
  await Promise.all([...new Set(userIds)].map((id) => services.redisFor(id).set(notifyKeys.devices(id), STALE_DEVICES, { ex: STALE_DEVICES_TTL_SECONDS })));
}

/** After the commit: a failure is logged, not answered (the change stands; the TTL bounds the stale list). */
function dropAgain(services: DeviceServices, userIds: readonly string[]): void {
  services.waitUntil(dropCachedLists(services, userIds).catch((err: unknown) => log.warn({ message: "device cache delete after commit failed", userIds, error: errorText(err) })));
}

/**
 * Registers `input` as the user's `deviceId` (400 naming the field when the deployment cannot
 * take it). Moves the endpoint/token from whoever had it; drops the user's oldest past the cap.
 */
export async function registerUserDevice(services: DeviceServices, userId: string, deviceId: string, input: DeviceRegistration): Promise<RegistrationResult> {
  const device = checkRegistration(input, pushConfig(services.env));
  const touched = (result: RegistrationResult) => [userId, ...(result.previousUserId ? [result.previousUserId] : [])];
  await dropCachedLists(services, [userId]);
  const result = await registerDevice(services.db, userId, deviceId, device);
  if (result.previousUserId) {
    // Not marked before the batch (who had the endpoint is known only now): marked before the
    // answer, as the user's own was, so the previous owner's next read sees the move.
    await dropCachedLists(services, [result.previousUserId]);
  }
  dropAgain(services, touched(result));
  // The broadcast topic: the new token joins it as the user's preferences say; evicted ones leave.
  if (device.kind === "fcm") syncBroadcastTopicLater(services, userId, [device.token]);
  leaveBroadcastTopicLater(services, result.evictedFcmTokens);
  return result;
}

/** Deletes the user's device; false when they had none by that id. */
export async function removeUserDevice(services: DeviceServices, userId: string, deviceId: string): Promise<boolean> {
  await dropCachedLists(services, [userId]);
  const deleted = await deleteDevice(services.db, userId, deviceId);
  if (!deleted) return false;
  dropAgain(services, [userId]);
  if (deleted.kind === "fcm") leaveBroadcastTopicLater(services, [deleted.address]);
  return true;
}

/**
 * A push service called `device` gone (the verdict `delete`): deletes it and drops its owner's
 * list — unless it was registered again since the push was built (by anyone: a moved device is
 * the new owner's now). Returns whether it was deleted.
 */
export async function removeGoneDevice(services: DeviceServices, device: Device): Promise<boolean> {
  const ownerId = await deleteGoneDevice(services.db, device.kind, addressOf(device), device.registeredAt);
  if (ownerId === undefined) return false;
  await dropCachedLists(services, [ownerId]).catch((err: unknown) => log.warn({ message: "device cache delete failed", userIds: [ownerId], error: errorText(err) }));
  return true;
}
