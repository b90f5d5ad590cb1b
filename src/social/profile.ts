import { isoTimestamp } from "../db/columns";
import { queryRows } from "../lib/db";
import { DependencyUnavailableError } from "../lib/errors";
import { errorText, log } from "../lib/log";
import { readOnlyScriptOf } from "../lib/read-only-scripts";
import { commandFailure, isBudgetRefusal, isRedisCommandError, isRedisOutage } from "../lib/redis-failures";
import type { ScriptRunner } from "../lib/script-batch";
import { afterResponse, type Services } from "../lib/services";
import {
  PROFILE_BUILD_TEXT_BUDGET,
  PROFILE_CAP,
  PROFILE_COMPLETE,
  PROFILE_EPOCH_TTL_SECONDS,
  PROFILE_HELD,
  PROFILE_PARTIAL,
  PROFILE_RENEW_AFTER_SECONDS,
  PROFILE_TTL_SECONDS,
  PROFILE_VISIBLE,
  profileKeys,
} from "./keys";
import { BUILD_PROFILE, DROP_PROFILE, READ_PROFILE, WRITE_PROFILE } from "./profile.lua";

/**
 * An author's profile cache (docs/social.md "Profiles"): their newest posts on their own database,
 * kept exact by every post, publish and delete, read by one read-only call, built after the
 * answer of a read that missed it.
 */

export type ProfilePost = { id: string; authorId: string; text: string; createdAt: string };

/** The cap in force (`PROFILE_CACHE_CAP`, default PROFILE_CAP). */
export function profileCap(env: { PROFILE_CACHE_CAP?: string }): number {
  const n = Number(env.PROFILE_CACHE_CAP);
  return Number.isInteger(n) && n > 0 ? n : PROFILE_CAP;
}

const keysOf = (authorId: string) => [profileKeys.posts(authorId), profileKeys.epoch(authorId)];

/** A cache member: `h`/`v` and JSON `[id, text, createdAt]`. */
export const profileEntry = (post: { id: string; text: string; createdAt: string }, held: boolean) =>
  `${held ? PROFILE_HELD : PROFILE_VISIBLE}${JSON.stringify([post.id, post.text, post.createdAt])}`;

function entryPost(authorId: string, member: string): ProfilePost {
  const [id, text, createdAt] = JSON.parse(member.slice(1)) as [string, string, string];
  return { id, authorId, text, createdAt };
}

/** What the cache said of a page: its posts (up to `want`), a miss (with the epoch to build at), or a page below its range. */
export type ProfileRead = { posts: ProfilePost[]; renew?: { epoch: string } } | { miss: true; epoch: string } | { past: true; rebuild: boolean };

/**
 * Up to `want` posts of the author below `before`, newest first, from the cache: one read-only call
 * on the author's database. `own`: the author reads (held posts included). A Redis outage or a
 * budget refusal throws as it came (the caller answers from Postgres); a script error is a 500.
 */
export async function readProfile(services: Pick<Services, "redisFor">, authorId: string, before: bigint | undefined, want: number, own: boolean): Promise<ProfileRead> {
  let raw: unknown;
  try {
    raw = await readOnlyScriptOf(services.redisFor(authorId), READ_PROFILE).exec(keysOf(authorId), [
      before === undefined ? "+inf" : `(${before}`,
      String(want),
      own ? "1" : "",
      String(PROFILE_TTL_SECONDS - PROFILE_RENEW_AFTER_SECONDS),
    ]);
  } catch (err) {
    // A database over its command budget answers as an outage does: Postgres answers the page.
    if (isRedisCommandError(err) && !isBudgetRefusal(err)) throw commandFailure("Profile script", err);
    throw err;
  }
  const got = (typeof raw === "string" ? JSON.parse(raw) : raw) as { miss?: boolean; epoch?: unknown; past?: boolean; rebuild?: boolean; entries?: unknown; renew?: boolean };
  if (got.miss) return { miss: true, epoch: String(got.epoch ?? "") };
  if (got.past) return { past: true, rebuild: got.rebuild === true };
  // cjson encodes an empty table as {}.
  const entries = Array.isArray(got.entries) ? (got.entries as string[]) : [];
  const posts = entries.map((m) => entryPost(authorId, m));
  return got.renew ? { posts, renew: { epoch: String(got.epoch ?? "") } } : { posts };
}

/**
 * After the answer of a read that missed, or found the TTL due (the renewal is a build: a change
 * whose cache write was lost to a Redis outage longer than the drops' retries shows by the next
 * day's renewal at the latest): the cache built from Postgres, on services of its own.
 * `epoch`: what the read saw; without it (a partial cache left with no entry) it is read first,
 * before the build's Postgres read, which is all the rule needs.
 */
export function buildProfileLater(services: Pick<Services, "env" | "events" | "waitUntil">, authorId: string, epoch?: string): void {
  services.waitUntil(
    afterResponse(services, (s) => buildProfile(s, authorId, epoch)).catch((err: unknown) => {
      if (!isRedisOutage(err)) log.error({ message: "profile cache build failed", authorId, error: errorText(err) });
    }),
  );
}

/**
 * Builds the author's cache from Postgres: their newest live posts (held included), at most the
 * cap and PROFILE_BUILD_TEXT_BUDGET of text, `c` when that is all of them, else `p`. Written only
 * if the epoch is still `epoch` (what the read that missed saw before any Postgres read): a change
 * since may be missing from this read. Answers whether it was written.
 */
export async function buildProfile(services: Pick<Services, "db" | "env" | "redisFor">, authorId: string, epoch?: string): Promise<boolean> {
  epoch ??= String((await services.redisFor(authorId).get<string | number>(profileKeys.epoch(authorId))) ?? "");
  const cap = profileCap(services.env);
  const rows = await queryRows<{ id: string; text: string; created_at: string; held: boolean }>(
    services.db,
    `SELECT id::text AS id, text, created_at::text AS created_at, held_at IS NOT NULL AS held
       FROM posts WHERE author_id = $1 AND deleted_at IS NULL ORDER BY posts.id DESC LIMIT $2`, // (posts.id: `id` alone would sort the text column)
    [authorId, cap + 1],
  );
  const args: string[] = [];
  let text = 0;
  let kept = 0;
  for (const row of rows.slice(0, cap)) {
    text += row.text.length;
    if (kept > 0 && text > PROFILE_BUILD_TEXT_BUDGET) break;
    args.push(row.id, profileEntry({ id: row.id, text: row.text, createdAt: isoTimestamp(row.created_at) }, row.held));
    kept++;
  }
  const complete = kept === rows.length;
  const written = await services
    .redisFor(authorId)
    .createScript(BUILD_PROFILE)
    .exec(keysOf(authorId), [epoch, String(PROFILE_TTL_SECONDS), complete ? PROFILE_COMPLETE : PROFILE_PARTIAL, ...args]);
  return Number(written) === 1;
}

/** One change of the author's profile, as WRITE_PROFILE applies it. */
export type ProfileChange =
  | { op: "add"; post: { id: string; text: string; createdAt: string }; held: boolean }
  | { op: "publish"; post: { id: string; text: string; createdAt: string } }
  | { op: "remove"; postId: string };

/** Delays of the drops that follow a change whose write failed (within a Worker's 30 s after the response). */
export const PROFILE_DROP_DELAYS_MS = [250, 1_000, 4_000] as const;

/**
 * Applies a change to the author's cache after Postgres committed it: one script on the author's
 * database (`redis`: an event's batch, so it rides the round the other subscribers share, or the
 * request's client). A write that fails leaves a cache that may lack the change, so the cache is
 * dropped in the background (`later`: the emitter's services), tried again over
 * PROFILE_DROP_DELAYS_MS; the failure is still thrown to the caller.
 */
export async function writeProfile(
  redis: ScriptRunner,
  later: Pick<Services, "redisFor" | "waitUntil">,
  env: { PROFILE_CACHE_CAP?: string },
  authorId: string,
  change: ProfileChange,
): Promise<void> {
  const args =
    change.op === "remove"
      ? ["remove", change.postId, "", "0"]
      : [change.op, change.post.id, profileEntry(change.post, change.op === "add" && change.held), String(profileCap(env))];
  try {
    await redis.createScript(WRITE_PROFILE).exec(keysOf(authorId), [...args, String(PROFILE_EPOCH_TTL_SECONDS)]);
  } catch (err) {
    later.waitUntil(dropProfile(later, authorId));
    if (isRedisCommandError(err)) throw commandFailure("Profile script", err);
    if (isRedisOutage(err)) throw new DependencyUnavailableError("redis", err);
    throw err;
  }
}

async function dropProfile(services: Pick<Services, "redisFor">, authorId: string): Promise<void> {
  for (const delay of PROFILE_DROP_DELAYS_MS) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    try {
      await services.redisFor(authorId).createScript(DROP_PROFILE).exec(keysOf(authorId), [String(PROFILE_EPOCH_TTL_SECONDS)]);
      return;
    } catch (err) {
      log.warn({ message: "profile cache drop after a failed write failed", authorId, error: errorText(err) });
    }
  }
  log.error({ message: "profile cache may lack a change until it expires: its write and drops failed", authorId });
}

/** The account deletion's last social step: the author's cache and epoch. */
export async function deleteProfileKeys(services: Pick<Services, "redisFor">, authorId: string): Promise<void> {
  await services.redisFor(authorId).del(...keysOf(authorId));
}
