import type { Badges } from "../badges";
import { getDirectMessages } from "../dms";
import { FEED_UNSEEN_CAP, feedKeys } from "../../feed/keys";
import { GET_FEED_UNSEEN, GET_FEED_UNSEEN_MANY } from "../../feed/unseen.lua";
import { getNotifications } from "../notifications";
import { safetyKeysOf } from "../../safety/keys";
import { groupByDatabase, settleEach } from "../../lib/redis-topology";
import type { Services } from "../../lib/services";
import { capAll, capped, runReadScript, type Capped, type ScriptRedis } from "../shared";

/**
 * What a live socket tracks: every badge kind of `GET /v1/me/badges`, in the same shapes, without
 * the envelope (`cap`, `degraded`). A push names only the kinds whose value changed.
 */
export type BadgeValues = Omit<Badges, "cap" | "degraded">;
export type BadgeKind = keyof BadgeValues;

export function valuesOf(badges: Badges): BadgeValues {
  const { cap: _cap, degraded: _degraded, ...values } = badges;
  return values;
}

/**
 * Whether two badge values are equal: the same fields with equal values, in any order (two reads of
 * one hash may list its fields in different orders). Walks the values, builds no string: a
 * broadcast compares 10,000 sockets' values, and a JSON form per side cost more than the rest of
 * the push.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  if (keysA.length !== Object.keys(b).length) return false;
  for (const key of keysA) {
    if (!Object.hasOwn(b, key) || !sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * The kinds whose value differs between what a socket was sent and what is known now. The kinds
 * are the values' own keys (`valuesOf`), so a kind added to the badges read is pushed with no list
 * to keep in step.
 */
export function changedKinds(sent: BadgeValues, current: BadgeValues): Partial<BadgeValues> {
  const changed: Partial<BadgeValues> = {};
  for (const kind of Object.keys(current) as BadgeKind[]) {
    if (!sameValue(sent[kind], current[kind])) (changed as Record<string, unknown>)[kind] = current[kind];
  }
  return changed;
}

/** One more of a capped count (a broadcast, a followed author's post). */
export function oneMore(value: Capped, cap: number): Capped {
  return value.capped ? value : capped(value.count + 1, cap);
}

/**
 * Kinds a push may read on their own: a tally is one small hash, read by one script of two billed
 * commands; `feed` is the marker, the big accounts followed and a ZCOUNT of the timeline above the
 * marker, four (more when a followed big account posted since: `feed_unseen`). The whole badges
 * script bills 15–16 (`keys.ts`). The same reads the badges script makes, so the values are the
 * ones a poll would answer.
 */
export const CHEAP_KINDS = ["notifications", "dms", "feed"] as const satisfies readonly BadgeKind[];
export type CheapKind = (typeof CHEAP_KINDS)[number];

/** The cheap kinds' values; with `feed`, also the big accounts the user follows (`bigFollows`), which the same read saw. */
export async function readCheapKinds(
  redis: ScriptRedis,
  userId: string,
  cap: number,
  kinds: CheapKind[],
  maxPulled: number,
  safetyClock = Date.now(),
  suspended = "",
): Promise<{ values: Partial<BadgeValues>; bigFollows: string[] | null }> {
  const values: Partial<BadgeValues> = {};
  let bigFollows: string[] | null = null;
  await Promise.all(
    kinds.map(async (kind) => {
      if (kind === "notifications") {
        const n = await getNotifications(redis, userId);
        values.notifications = { byType: capAll(n.byType, cap), total: capped(n.total, cap) };
      } else if (kind === "dms") {
        values.dms = capped((await getDirectMessages(redis, userId)).total, cap);
      } else {
        const [count, bigs] = await runReadScript<[number, string[]]>(redis, GET_FEED_UNSEEN, feedUnseenKeys(userId), feedUnseenArgs(maxPulled, safetyClock, suspended));
        values.feed = capped(Number(count), cap);
        bigFollows = (bigs ?? []).map(String);
      }
    }),
  );
  return { values, bigFollows };
}

// The reader's safety sets too: `feed` leaves out what their blocks and mutes hide, as the badges read does.
const feedUnseenKeys = (userId: string) => [feedKeys.seen(userId), feedKeys.timeline(userId), feedKeys.bigFollows(userId), feedKeys.activity(), ...safetyKeysOf(userId)];
// And the suspended users (src/safety's `suspendedArg`): their posts count for nobody.
const feedUnseenArgs = (maxPulled: number, safetyClock: number, suspended: string) => [feedKeys.outboxPrefix(), maxPulled, FEED_UNSEEN_CAP, safetyClock, suspended];

