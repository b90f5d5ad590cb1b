import { type Database, queryBatch, queryRows } from "../lib/db";
import { addressOf, MAX_DEVICES_PER_USER, type Device, type DeviceKind, type DeviceRegistration } from "./devices";

/**
 * The Postgres statements of devices, as raw SQL over Neon's HTTP path: each call one request.
 */

type DeviceRow = { device_id: string; kind: DeviceKind; address: string; details: string; registered_at: string | Date };

/** What a row's `details` column holds: the registration minus kind and address. */
function detailsOf(device: DeviceRegistration): Record<string, unknown> {
  if (device.kind === "webpush") return { keys: device.keys };
  if (device.kind === "apns") return { environment: device.environment, topic: device.topic };
  return {};
}

export function deviceFromRow(row: DeviceRow): Device {
  const details = JSON.parse(row.details) as Record<string, unknown>;
  const registeredAt = new Date(row.registered_at).toISOString();
  const base = { deviceId: row.device_id, registeredAt };
  if (row.kind === "webpush") return { ...base, kind: "webpush", endpoint: row.address, keys: details.keys as { p256dh: string; auth: string } };
  if (row.kind === "apns") return { ...base, kind: "apns", token: row.address, environment: details.environment as "production" | "sandbox", topic: details.topic as string };
  return { ...base, kind: "fcm", token: row.address };
}

const LIST = `
  SELECT device_id, kind, address, details, registered_at FROM notify_devices
  WHERE user_id = $1 ORDER BY registered_at DESC, device_id DESC LIMIT ${MAX_DEVICES_PER_USER}`;

export async function listDevices(db: Database, userId: string): Promise<Device[]> {
  return (await queryRows<DeviceRow>(db, LIST, [userId])).map(deviceFromRow);
}

/** Frees the user's device id if it names another endpoint/token (a browser re-subscribed: new endpoint, same install). */
const FREE_DEVICE_ID = `DELETE FROM notify_devices WHERE user_id = $1 AND device_id = $2 AND NOT (kind = $3 AND address = $4)`;
/**
 * The one row of this endpoint/token, whoever had it: inserted, or moved to this user and device id
 * (the unique (kind, address) index is the arbiter, so concurrent registrations of one endpoint
 * by two users leave one row). `previous_user` is who had it before, for their cache.
 */
const UPSERT = `
  WITH previous AS (SELECT user_id FROM notify_devices WHERE kind = $3 AND address = $4)
  INSERT INTO notify_devices (user_id, device_id, kind, address, details, registered_at)
  VALUES ($1, $2, $3, $4, $5, clock_timestamp())
  ON CONFLICT (kind, address) DO UPDATE SET user_id = excluded.user_id, device_id = excluded.device_id,
    details = excluded.details, registered_at = excluded.registered_at
  RETURNING registered_at, (SELECT user_id::text FROM previous) AS previous_user`;
/** Past the cap the oldest registrations go. */
const TRIM = `
  DELETE FROM notify_devices WHERE user_id = $1 AND device_id IN (
    SELECT device_id FROM notify_devices WHERE user_id = $1
    ORDER BY registered_at DESC, device_id DESC OFFSET ${MAX_DEVICES_PER_USER})
  RETURNING device_id, kind, address`;

/** `evictedFcmTokens`: the tokens of `evicted` that were FCM devices (they leave the broadcast topic). */
export type RegistrationResult = { device: Device; previousUserId?: string; evicted: string[]; evictedFcmTokens: string[] };

/**
 * Registers (or re-registers) `device` as `userId`'s `deviceId`: one batch (one request, one
 * transaction) holding the user's advisory lock, so two registrations of one user cannot both slip
 * under the cap. Every statement's parameters are known before it runs; what the caller needs
 * (the previous owner, the evicted devices) comes back in the answer.
 */
export async function registerDevice(db: Database, userId: string, deviceId: string, device: DeviceRegistration): Promise<RegistrationResult> {
  const address = addressOf(device);
  const details = JSON.stringify(detailsOf(device));
  const [, , upserted, trimmed] = (await queryBatch(db, [
    { text: "SELECT pg_advisory_xact_lock(hashtextextended('notify_devices:' || $1, 0))", params: [userId] },
    { text: FREE_DEVICE_ID, params: [userId, deviceId, device.kind, address] },
    { text: UPSERT, params: [userId, deviceId, device.kind, address, details] },
    { text: TRIM, params: [userId] },
  ])) as [unknown, unknown, { registered_at: string | Date; previous_user: string | null }[], { device_id: string; kind: DeviceKind; address: string }[]];
  const row = upserted[0]!;
  return {
    device: deviceFromRow({ device_id: deviceId, kind: device.kind, address, details, registered_at: row.registered_at }),
    ...(row.previous_user && row.previous_user !== userId ? { previousUserId: row.previous_user } : {}),
    evicted: trimmed.map((r) => r.device_id),
    evictedFcmTokens: trimmed.flatMap((r) => (r.kind === "fcm" ? [r.address] : [])),
  };
}

/** Deletes the user's device (one statement): its kind and endpoint/token, undefined when there was none. */
export async function deleteDevice(db: Database, userId: string, deviceId: string): Promise<{ kind: DeviceKind; address: string } | undefined> {
  const rows = await queryRows<{ kind: DeviceKind; address: string }>(db, "DELETE FROM notify_devices WHERE user_id = $1 AND device_id = $2 RETURNING kind, address", [userId, deviceId]);
  return rows[0];
}

/**
 * Deletes the device a push service called gone, unless it was registered again since the push
 * was built (its registered_at moved on). Returns the owner whose cache must go, if one was deleted.
 */
export async function deleteGoneDevice(db: Database, kind: DeviceKind, address: string, registeredAt: string): Promise<string | undefined> {
  const rows = await queryRows<{ user_id: string }>(
    db,
    // Milliseconds, the precision registeredAt carries.
    "DELETE FROM notify_devices WHERE kind = $1 AND address = $2 AND date_trunc('milliseconds', registered_at) <= $3 RETURNING user_id::text",
    [kind, address, registeredAt],
  );
  return rows[0]?.user_id;
}
