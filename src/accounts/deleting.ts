import type { Caller } from "../lib/caller";
import { ApiError } from "../lib/errors";
import type { Services } from "../lib/services";
import { errorText, log } from "../lib/log";
import { accountKeys } from "./keys";

/**
 * Which users are being deleted, as this isolate last read it: the 409 `account_deleting` check
 * every authenticated request makes costs no Redis or Postgres round trip on the hot path. The
 * snapshot is `acct:deleting` (one small hash on database 0, one field per running deletion):
 * - an isolate serving requests refreshes it in the background (after the response:
 *   `waitUntil`) once it is REFRESH_AFTER_MS old, so no request waits for it;
 * - a request finding it older than MAX_SNAPSHOT_AGE_MS (a new isolate, or one idle that long)
 *   waits for one HGETALL first — once per isolate start or idle spell, not per request.
 * So a request that starts MAX_SNAPSHOT_AGE_MS after a deletion was asked (plus the HGETALL's own
 * flight) is refused in every isolate, and the deletion's first step waits ERASE_START_DELAY_SECONDS
 * (> that bound) so nothing a request writes after the refusals begin is missed. The isolate that
 * starts or finishes a deletion updates its own snapshot at once. A refresh that fails (Redis
 * down) keeps the previous snapshot and is tried again REFRESH_AFTER_MS later.
 */
export const REFRESH_AFTER_MS = 2_500;
export const MAX_SNAPSHOT_AGE_MS = 5_000;

type Snapshot = { ids: Set<string>; at: number };
let snapshot: Snapshot | undefined;
let refreshing: Promise<void> | undefined;

function refresh(services: Pick<Services, "redis">, now: number): Promise<void> {
  refreshing ??= (async () => {
    try {
      const fields = await services.redis.hkeys(accountKeys.deleting());
      snapshot = { ids: new Set(fields.map(String)), at: now };
    } catch (err) {
      snapshot = { ids: snapshot?.ids ?? new Set(), at: now - (MAX_SNAPSHOT_AGE_MS - REFRESH_AFTER_MS) };
      log.warn({ message: "deleting-users snapshot not refreshed; the previous one stands", error: errorText(err) });
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

/** Whether `userId` is being deleted, from this isolate's snapshot (refreshed as described above). */
export async function isDeleting(services: Pick<Services, "redis" | "waitUntil">, userId: string, now = Date.now()): Promise<boolean> {
  if (!snapshot || now - snapshot.at >= MAX_SNAPSHOT_AGE_MS) {
    await refresh(services, now);
  } else if (now - snapshot.at >= REFRESH_AFTER_MS && !refreshing) {
    services.waitUntil(refresh(services, now));
  }
  return snapshot!.ids.has(userId);
}

/** This isolate started (`true`) or finished (`false`) `userId`'s deletion: its own snapshot knows at once. */
export function noteDeletingHere(userId: string, deleting: boolean): void {
  if (!snapshot) return; // the first check loads it
  if (deleting) snapshot.ids.add(userId);
  else snapshot.ids.delete(userId);
}

/** Tests: forget the snapshot, so the next check reads Redis. */
export function forgetDeletingSnapshot(): void {
  snapshot = undefined;
}

/** 409 `account_deleting` for a user token whose account is being deleted (service and admin tokens act for others). */
export async function refuseIfDeleting(services: Pick<Services, "redis" | "waitUntil">, caller: Caller): Promise<void> {
  if (caller.role !== "user") return;
  if (await isDeleting(services, caller.userId)) {
    throw new ApiError("account_deleting", "This account is being deleted; once that finishes the id starts as a new, empty user");
  }
}
