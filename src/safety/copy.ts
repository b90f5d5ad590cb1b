import { queryRows } from "../lib/db";
import { ApiError, DependencyUnavailableError } from "../lib/errors";
import { errorText, log } from "../lib/log";
import { commandFailure, isRedisCommandError, isRedisOutage } from "../lib/redis-failures";
import { runReadOnly } from "../lib/read-only-scripts";
import { afterResponse, type Services } from "../lib/services";
import { BUILD_COPY, READ_COPY, WRITE_SUSPENDED, WRITE_TERMS } from "./copy.lua";
import { moderationKeys, SUSPENDED_VERSION, TERMS_VERSION } from "./keys";

/**
 * Each isolate's copy of the suspended set and the term list (`moderationKeys`, database 0), so
 * that the check every authenticated request makes (`authenticate` → `isSuspended`) and the term
 * match of every new post read memory, not Redis.
 *
 * Freshness: a copy younger than REFRESH_MS is used as is; older, it is still used and refreshed
 * in the background (`waitUntil`, one script call: two ZSCOREs when nothing moved); older than
 * STALE_MS (an isolate that was idle, or a cold one) the request waits for the refresh — the only
 * case a request pays the round trip. So a suspension, a lift or a new term list applies on every
 * isolate within STALE_MS + one round trip of its write, and at once on the isolate that wrote it.
 */
export const REFRESH_MS = 2_000;
export const STALE_MS = 5_000;

export type ModerationCopy = {
  readonly suspended: ReadonlySet<string>;
  /** The set's version (`v`) and the terms' (`t`) this copy was read at. */
  readonly version: string;
  readonly termsVersion: string;
  readonly terms: readonly string[];
  /** When it was read (isolate clock, ms). */
  readonly readAt: number;
};

type Slot = { copy?: ModerationCopy; refreshing?: Promise<ModerationCopy> };

/** One slot per Redis deployment the isolate serves (tests point requests at other stacks). Bounded. */
const slots = new Map<string, Slot>();
const MAX_SLOTS = 16;

function slotOf(services: Pick<Services, "env">): Slot {
  const id = services.env.UPSTASH_REDIS_DATABASES || services.env.UPSTASH_REDIS_REST_URL || "";
  let slot = slots.get(id);
  if (!slot) {
    if (slots.size >= MAX_SLOTS) slots.clear();
    slot = {};
    slots.set(id, slot);
  }
  return slot;
}

const EMPTY: ModerationCopy = { suspended: new Set(), version: "", termsVersion: "", terms: [], readAt: 0 };

/** The isolate's copy, fresh within the bounds above (see the module comment). */
export async function moderationCopy(services: Pick<Services, "env" | "events" | "waitUntil" | "redis" | "db">): Promise<ModerationCopy> {
  const slot = slotOf(services);
  const copy = slot.copy;
  const age = copy ? Date.now() - copy.readAt : Infinity;
  if (copy && age < REFRESH_MS) return copy;
  if (copy && age < STALE_MS) {
    if (!slot.refreshing) services.waitUntil(afterResponse(services, (s) => refresh(s, slot)).catch(() => undefined));
    return copy;
  }
  return refresh(services, slot);
}

/** 403 `suspended` when the isolate's copy says so (the socket upgrades, which verify their token themselves). */
export async function refuseSuspended(services: Pick<Services, "env" | "events" | "waitUntil" | "redis" | "db">, userId: string): Promise<void> {
  if (isSuspended(await moderationCopy(services), userId)) throw new ApiError("suspended", "This account is suspended");
}

/** Whether the copy says `userId` is suspended. */
export function isSuspended(copy: ModerationCopy, userId: string): boolean {
  return copy.suspended.has(userId);
}

/** The joined form of each copy's suspended set, made once per copy (a copy never changes). */
const joined = new WeakMap<ReadonlySet<string>, string>();

/**
 * The suspended users as one script argument (ids joined by ','; '' when none), for the reads
 * that filter inside their own script (`safety_suspended` / `safety_add_suspended` of
 * verdict.lua.ts): feed pages, "N new posts", unread per author. At most MAX_SUSPENDED ids.
 */
export function suspendedArgOf(copy: ModerationCopy): string {
  if (copy.suspended.size === 0) return "";
  let arg = joined.get(copy.suspended);
  if (arg === undefined) {
    arg = [...copy.suspended].join(",");
    joined.set(copy.suspended, arg);
  }
  return arg;
}

/** `suspendedArgOf` of the isolate's copy (fresh within the copy's bound: no round trip on a busy isolate). */
export async function suspendedArg(services: Pick<Services, "env" | "events" | "waitUntil" | "redis" | "db">): Promise<string> {
  return suspendedArgOf(await moderationCopy(services));
}

/** One refresh at a time per slot; a failure keeps the copy there (or none) and is logged, never thrown. */
function refresh(services: Pick<Services, "env" | "redis" | "db">, slot: Slot): Promise<ModerationCopy> {
  slot.refreshing ??= readCopy(services, slot.copy ?? EMPTY)
    .then((copy) => (slot.copy = copy))
    .catch((err: unknown) => {
      // Failing open: a Redis or Postgres outage must not refuse every signed-in request.
      log.warn({ message: "moderation copy not refreshed", error: errorText(err) });
      const kept = { ...(slot.copy ?? EMPTY), readAt: Date.now() - REFRESH_MS };
      slot.copy = kept;
      return kept;
    })
    .finally(() => (slot.refreshing = undefined));
  return slot.refreshing;
}

async function readCopy(services: Pick<Services, "redis" | "db">, held: ModerationCopy): Promise<ModerationCopy> {
  const readAt = Date.now();
  const answer = (await run(services, READ_COPY, [held.version, held.termsVersion], true)) as false | null | [string, string, string[] | 0, string | 0];
  if (!answer) return rebuild(services, "nx", readAt);
  const [version, termsVersion, members, terms] = answer;
  return {
    version: String(version),
    termsVersion: String(termsVersion),
    suspended: members === 0 ? held.suspended : new Set(members.map(String).filter((m) => m !== SUSPENDED_VERSION && m !== TERMS_VERSION)),
    terms: terms === 0 ? (String(termsVersion) === held.termsVersion ? held.terms : []) : parseTerms(terms),
    readAt,
  };
}

function parseTerms(raw: unknown): string[] {
  const value = typeof raw === "string" ? JSON.parse(raw) : raw;
  return Array.isArray(value) ? value.map(String) : [];
}

/**
 * Builds the set and the terms from Postgres and caches them. `nx`: a reader's rebuild, written
 * only while the set is still missing; `replace`: a writer's, read after its own commit.
 */
async function rebuild(services: Pick<Services, "redis" | "db">, mode: "nx" | "replace", readAt = Date.now()): Promise<ModerationCopy> {
  const rows = await queryRows<{ id: string | null; ms: string | null; terms: string[] | null; version: number | null }>(
    services.db,
    `SELECT user_id::text AS id, (extract(epoch FROM created_at) * 1000)::bigint::text AS ms, NULL::text[] AS terms, NULL::int AS version FROM safety_suspensions
     UNION ALL
     SELECT NULL, NULL, terms, version FROM safety_moderation_terms WHERE id = 1`,
    [],
  );
  const suspended = rows.filter((r) => r.id !== null) as { id: string; ms: string }[];
  const termsRow = rows.find((r) => r.id === null);
  const terms = termsRow?.terms ?? [];
  const termsVersion = String(termsRow?.version ?? 0);
  // A version no earlier copy can hold: a rebuilt set differs from whatever was cached before.
  const version = String(Date.now());
  await run(services, BUILD_COPY, [mode, version, termsVersion, JSON.stringify(terms), ...suspended.flatMap((s) => [s.id, s.ms])]);
  return { version, termsVersion, suspended: new Set(suspended.map((s) => s.id)), terms, readAt };
}

/** After a suspension or lift committed: the cached set, and this isolate's copy at once. */
export async function writeSuspended(services: Pick<Services, "env" | "redis" | "db">, op: "add" | "rem", userId: string, atMs: number): Promise<void> {
  const slot = slotOf(services);
  const wrote = await run(services, WRITE_SUSPENDED, [op, userId, atMs]);
  if (Number(wrote) !== 1) {
    slot.copy = await rebuild(services, "replace");
    return;
  }
  const base = slot.copy ?? EMPTY;
  const suspended = new Set(base.suspended);
  if (op === "add") suspended.add(userId);
  else suspended.delete(userId);
  // Keep the old version: the next refresh sees `v` moved and reloads the members as Redis has them.
  slot.copy = { ...base, suspended, readAt: base === EMPTY ? 0 : base.readAt };
}

/** After a new term list committed (its `version`): the cached terms, and this isolate's copy at once. */
export async function writeTerms(services: Pick<Services, "env" | "redis" | "db">, terms: readonly string[], version: number): Promise<void> {
  const slot = slotOf(services);
  const wrote = await run(services, WRITE_TERMS, [version, JSON.stringify(terms)]);
  if (Number(wrote) !== 1) {
    slot.copy = await rebuild(services, "replace");
    return;
  }
  const base = slot.copy ?? EMPTY;
  slot.copy = { ...base, terms: [...terms], termsVersion: String(version), readAt: base === EMPTY ? 0 : base.readAt };
}

async function run(services: Pick<Services, "redis">, source: string, args: (string | number)[], readOnly = false): Promise<unknown> {
  const keys = [moderationKeys.suspended(), moderationKeys.terms()];
  try {
    return readOnly ? await runReadOnly(services.redis, source, keys, args.map(String)) : await services.redis.createScript(source).exec(keys, args.map(String));
  } catch (err) {
    if (isRedisCommandError(err)) throw commandFailure("Moderation script", err);
    if (isRedisOutage(err)) throw new DependencyUnavailableError("redis", err);
    throw err;
  }
}
