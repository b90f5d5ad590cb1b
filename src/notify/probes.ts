import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { notifyAuthorChoices, notifyDevices } from "./schema";

/**
 * Questions another capability's statement asks of notify, answered inside that statement: each
 * is an `exists (…)` index probe the caller composes into its own SQL (social's INSERTs return it),
 * so asking costs no round trip and notify's tables stay its own — the caller never names them.
 */

/** Whether a push to `userId` can go anywhere: they have a device (`notify_devices`' primary key). */
export function hasDevice(userId: string): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${notifyDevices} where ${notifyDevices.userId} = ${userId})`;
}

/** `hasDevice` for a statement written as text: `userId` is the SQL expression naming the user (e.g. `$2`). */
export function hasDeviceSql(userId: string): string {
  return `EXISTS (SELECT 1 FROM notify_devices WHERE user_id = ${userId})`;
}

/** Whether anyone chose to be told of `authorId`'s posts (`notify_author_choices`' author index); `authorId` an id or the caller's column. */
export function authorIsChosen(authorId: string | SQLWrapper): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${notifyAuthorChoices} where ${notifyAuthorChoices.authorId} = ${authorId})`;
}
