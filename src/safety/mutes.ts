import { ApiError } from "../lib/errors";
import { toPage } from "../lib/pagination";
import type { Services } from "../lib/services";
import { decodeSafetyCursor } from "./blocks";
import { muteChanges, writeSets } from "./cache";
import { maxEntries, safetyNow } from "./clock";
import { deleteMute, listMutes, upsertMute } from "./store";

export type MuteItem = { userId: string; notifications: boolean; expiresAt: string | null; createdAt: string };

/** Shortest and longest mute with a duration (one minute, one year). */
export const MIN_MUTE_SECONDS = 60;
export const MAX_MUTE_SECONDS = 31_536_000;

/**
 * A mutes B: B stays followed; B's posts are to leave A's pages and, with `notifications`, B's
 * notifications and DMs to A are accepted but neither counted nor pushed. With `durationSeconds`
 * the mute ends by itself (the cached score is its end: readers ignore it past then, no write).
 * PUT semantics: a second call sets the mute as that call says.
 */
export async function mute(
  services: Services,
  muterId: string,
  mutedId: string,
  input: { notifications: boolean; durationSeconds?: number },
): Promise<MuteItem & { changed: boolean }> {
  if (muterId === mutedId) {
    throw new ApiError("bad_request", "You cannot mute yourself", [{ field: "userId", message: "must not be your own id" }]);
  }
  const now = safetyNow(services.env);
  const expiresAtMs = input.durationSeconds === undefined ? null : now + input.durationSeconds * 1000;
  const stored = await upsertMute(services.pooledDb, muterId, mutedId, { notifications: input.notifications, expiresAtMs }, now, maxEntries(services.env));
  await writeSets(services, muteChanges(muterId, mutedId, { till: stored.expiresAtMs, notifications: stored.notifications }));
  const { userId, notifications, expiresAt, createdAt, changed } = stored;
  return { userId, notifications, expiresAt, createdAt, changed };
}

/** A unmutes B; idempotent (`changed`: a mute in force was removed). */
export async function unmute(services: Services, muterId: string, mutedId: string): Promise<{ userId: string; muted: false; changed: boolean }> {
  const changed = await deleteMute(services.db, muterId, mutedId, safetyNow(services.env));
  await writeSets(services, muteChanges(muterId, mutedId, undefined));
  return { userId: mutedId, muted: false, changed };
}

/** A's mutes in force, newest first, keyset-paginated on (created_at, user id). */
export async function listUserMutes(services: Services, muterId: string, page: { limit: number; cursor?: string }) {
  const after = page.cursor ? decodeSafetyCursor(page.cursor) : undefined;
  const rows = await listMutes(services.db, muterId, page.limit + 1, safetyNow(services.env), after);
  return toPage(
    rows,
    page.limit,
    (row): MuteItem => ({ userId: row.userId, notifications: row.notifications, expiresAt: row.expiresAt, createdAt: row.createdAt }),
    (row) => [row.cursorAt, row.userId],
  );
}
