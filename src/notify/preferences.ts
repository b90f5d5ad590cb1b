import { z } from "@hono/zod-openapi";
import { type Database, queryRows } from "../lib/db";
import type { Services } from "../lib/services";
import { NOTIFICATION_TYPES } from "../badges/notifications";
import { NOTIFY_KINDS, type NotifyKind } from "./alerts";
import { cachedRow, type Prefetched } from "./cached-row";
import { notifyKeys, PREFERENCES_CACHE_TTL_SECONDS } from "./keys";

/**
 * A user's push preferences, checked before anything is queued: on/off per kind and per
 * notification type, who may reach them by direct message or mention (Mastodon's policy), and
 * quiet hours in their own time zone, during which pushes are held until the hours end (not
 * lost) unless the kind is marked urgent. Postgres holds them (`notify_preferences`, no row: the
 * defaults); Redis caches each user's on their database.
 */

export const POLICIES = ["everyone", "followed", "followers", "none"] as const;
export type Policy = (typeof POLICIES)[number];

const Clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be HH:MM (00:00 to 23:59)");
const TimeZone = z.string().max(64).refine((zone) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, "must be an IANA time zone (e.g. Europe/Paris)");

export const PreferencesSchema = z
  .object({
    kinds: z.object(Object.fromEntries(NOTIFY_KINDS.map((k) => [k, z.boolean()])) as Record<NotifyKind, z.ZodBoolean>).partial().strict().default({})
      .openapi({ description: "Pushes of each kind on or off (absent: on). `author` pushes only ever come from the authors the user chose (`/v1/me/notification-authors`); `author: false` silences them all and keeps the choices", example: { dm: true, broadcast: false } }),
    types: z.object(Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, z.boolean()])) as Record<(typeof NOTIFICATION_TYPES)[number], z.ZodBoolean>).partial().strict().default({})
      .openapi({ description: "Notification types on or off (absent: on)", example: { like: false } }),
    policy: z.object({ dm: z.enum(POLICIES).default("everyone"), mention: z.enum(POLICIES).default("everyone") }).strict().default({ dm: "everyone", mention: "everyone" })
      .openapi({ description: "Who may reach the user by a push for a direct message or a mention: everyone, people they follow (`followed`), their `followers`, or `none`" }),
    quietHours: z
      .object({ start: Clock, end: Clock, timeZone: TimeZone, urgent: z.array(z.enum(NOTIFY_KINDS)).max(NOTIFY_KINDS.length).default([]) })
      .strict()
      .nullable()
      .default(null)
      .openapi({ description: "Pushes are held from `start` to `end` (local time in `timeZone`; may cross midnight) and sent when the hours end, except kinds listed in `urgent`", example: { start: "22:00", end: "07:00", timeZone: "Europe/Paris", urgent: ["dm"] } }),
  })
  .strict()
  .openapi("NotificationPreferences");
export type Preferences = z.infer<typeof PreferencesSchema>;

export const DEFAULT_PREFERENCES: Preferences = PreferencesSchema.parse({});

/** Seconds until the quiet hours end, or 0 when they are not on now. */
export function quietSecondsLeft(quiet: NonNullable<Preferences["quietHours"]>, now: number): number {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: quiet.timeZone, hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" }).formatToParts(new Date(now));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = part("hour") * 3600 + part("minute") * 60 + part("second");
  const toSeconds = (clock: string) => Number(clock.slice(0, 2)) * 3600 + Number(clock.slice(3)) * 60;
  const start = toSeconds(quiet.start);
  const end = toSeconds(quiet.end);
  if (start === end) return 0;
  const inside = start < end ? local >= start && local < end : local >= start || local < end;
  return inside ? (end - local + 86400) % 86400 : 0;
}

export type Decision = { send: false; why: string } | { send: true; holdSeconds: number };

/**
 * Whether a push of `kind` (and notification `type`) goes to the user, and how long it is held.
 * `relation` answers the policy's question (does the user follow `from`, does `from` follow them)
 * only when the policy asks it: one indexed Postgres lookup, never for `everyone`.
 */
export async function decide(
  prefs: Preferences,
  event: { kind: NotifyKind; type?: string; from?: string },
  relation: (question: "followed" | "followers") => Promise<boolean>,
  now: number = Date.now(),
): Promise<Decision> {
  // `author` is on by default too: choosing an author is the opt-in, this only a switch for all of them.
  const kindOn = prefs.kinds[event.kind] ?? true;
  if (!kindOn) return { send: false, why: `${event.kind} off` };
  if (event.kind === "notification" && event.type && prefs.types[event.type as keyof Preferences["types"]] === false) return { send: false, why: `${event.type} off` };
  const policy = event.kind === "dm" ? prefs.policy.dm : event.kind === "notification" && event.type === "mention" ? prefs.policy.mention : "everyone";
  if (policy === "none") return { send: false, why: "policy none" };
  if (policy !== "everyone" && (event.from === undefined || !(await relation(policy)))) return { send: false, why: `policy ${policy}` };
  const quiet = prefs.quietHours;
  const holdSeconds = quiet && !quiet.urgent.includes(event.kind) ? quietSecondsLeft(quiet, now) : 0;
  return { send: true, holdSeconds };
}

/** Does `userId` follow `otherId` (`followed`), or does `otherId` follow `userId` (`followers`)? One statement. */
export async function related(db: Database, userId: string, otherId: string, question: "followed" | "followers"): Promise<boolean> {
  const [follower, followee] = question === "followed" ? [userId, otherId] : [otherId, userId];
  const rows = await queryRows<{ yes: boolean }>(db, `SELECT EXISTS (SELECT 1 FROM follows WHERE follower_id = $1 AND followee_id = $2) AS yes`, [follower, followee]);
  return rows[0]?.yes === true;
}

type PreferenceServices = Pick<Services, "db" | "redisFor" | "waitUntil">;

/** The user's preferences: the cached copy (one GET), or Postgres (then cached with SET NX). */
export async function userPreferences(services: PreferenceServices, userId: string, prefetched?: Prefetched): Promise<Preferences> {
  return cachedRow(services, userId, {
    key: notifyKeys.preferences(userId),
    ttlSeconds: PREFERENCES_CACHE_TTL_SECONDS,
    what: "preferences",
    from: (cached) => (cached && typeof cached === "object" ? PreferencesSchema.parse(cached) : undefined),
    load: () => loadPreferences(services.db, userId),
  }, prefetched);
}

async function loadPreferences(db: Database, userId: string): Promise<Preferences> {
  const [row] = await queryRows<{ preferences: string }>(db, `SELECT preferences FROM notify_preferences WHERE user_id = $1`, [userId]);
  return row ? PreferencesSchema.parse(JSON.parse(row.preferences)) : DEFAULT_PREFERENCES;
}

/** Whether broadcasts reach the user (on unless turned off): what their FCM tokens' topic membership follows. */
export function broadcastWanted(prefs: Preferences): boolean {
  return prefs.kinds.broadcast ?? true;
}

/**
 * Stores the user's preferences and replaces the cached copy (plain SET: a read's NX fill never
 * overwrites it). A Redis failure after the commit answers 503: Postgres has the change, and the
 * cached copy's TTL bounds how long the old one is used. Returns the preferences it replaced too
 * (the defaults for a first save), from the same statement: its sub-select reads the row as it
 * was before the statement (Postgres' snapshot), so no read of its own is needed.
 */
export async function savePreferences(services: PreferenceServices, userId: string, prefs: Preferences): Promise<{ saved: Preferences; previous: Preferences }> {
  const [row] = await queryRows<{ previous: string | null }>(
    services.db,
    `INSERT INTO notify_preferences (user_id, preferences) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET preferences = EXCLUDED.preferences, updated_at = now()
     RETURNING (SELECT p.preferences FROM notify_preferences p WHERE p.user_id = $1) AS previous`,
    [userId, JSON.stringify(prefs)],
  );
  await services.redisFor(userId).set(notifyKeys.preferences(userId), JSON.stringify(prefs), { ex: PREFERENCES_CACHE_TTL_SECONDS });
  return { saved: prefs, previous: row?.previous ? PreferencesSchema.parse(typeof row.previous === "string" ? JSON.parse(row.previous) : row.previous) : DEFAULT_PREFERENCES };
}
