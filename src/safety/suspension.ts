import { sql } from "drizzle-orm";
import { isoTimestamp } from "../db/columns";
import { ApiError } from "../lib/errors";
import type { Services } from "../lib/services";
import { writeSuspended } from "./copy";
import { MAX_SUSPENDED } from "./keys";

export type Suspension = { userId: string; suspended: boolean; reason: string | null; suspendedAt: string | null; changed: boolean };

/** The refusal every request with a suspended user's token gets (`authenticate`). */
export function suspendedError(): ApiError {
  return new ApiError("suspended", "This account is suspended");
}

/**
 * Suspends a user (idempotent: a repeat keeps the first time and reason): Postgres first (the
 * truth; 409 past MAX_SUSPENDED), then the suspended set on database 0 and this isolate's copy,
 * so the user's next request here is refused and every other isolate's within the copy's bound.
 */
export async function suspendUser(services: Services, adminId: string, userId: string, reason: string): Promise<Suspension> {
  const { rows } = await services.db.execute<{ created_at: string; ms: string; reason: string; inserted: boolean }>(sql`
    WITH ins AS (
      INSERT INTO safety_suspensions (user_id, reason, suspended_by)
      SELECT ${userId}, ${reason}, ${adminId}
       WHERE (SELECT count(*) FROM safety_suspensions) < ${MAX_SUSPENDED}
      ON CONFLICT (user_id) DO NOTHING
      RETURNING created_at, reason)
    SELECT created_at::text, (extract(epoch FROM created_at) * 1000)::bigint::text AS ms, reason, true AS inserted FROM ins
    UNION ALL
    SELECT created_at::text, (extract(epoch FROM created_at) * 1000)::bigint::text, reason, false FROM safety_suspensions WHERE user_id = ${userId}`);
  const row = rows.find((r) => r.inserted) ?? rows[0];
  if (!row) throw new ApiError("conflict", `At most ${MAX_SUSPENDED} users may be suspended at once`, [{ field: "id", message: "over the limit of suspended users" }]);
  await writeSuspended(services, "add", userId, Number(row.ms));
  // What they hold open closes now (the badges' subscriber: their sockets, 4003); the upgrade is refused from here on.
  await services.events.emit({ type: "user.suspended", userId, at: Date.now() }, services);
  return { userId, suspended: true, reason: row.reason, suspendedAt: isoTimestamp(row.created_at), changed: row.inserted };
}

/** Lifts a suspension (idempotent). Their posts show again everywhere: nothing was removed, only hidden. */
export async function liftSuspension(services: Services, userId: string): Promise<Suspension> {
  const { rows } = await services.db.execute(sql`DELETE FROM safety_suspensions WHERE user_id = ${userId} RETURNING 1`);
  await writeSuspended(services, "rem", userId, 0);
  return { userId, suspended: false, reason: null, suspendedAt: null, changed: rows.length > 0 };
}
