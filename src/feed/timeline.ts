import { completeFromSnapshot, completeSnapshot, decodeCachedCounters, readCounters, shownCounts } from "../counters/counters";
import { edgeCacheBoundMs, edgeCounters, type ReadTicket } from "../counters/edge-cache";
import { counterKeys } from "../counters/keys";
import { unpackCounters } from "../counters/packing";
import { fieldsOf } from "../counters/registry";
import { isoTimestamp } from "../db/columns";
import { heldSyncTokens } from "../lib/consistency";
import { ApiError, isDependencyFailure, isRedisCommandError } from "../lib/errors";
import { isId } from "../lib/ids";
import { decodeCursor, encodeCursor } from "../lib/pagination";
import { errorText, log } from "../lib/log";
import { readOnlyScriptOf } from "../lib/read-only-scripts";
import { rawCommand } from "../lib/redis";
import { commandFailure, isRedisOutage } from "../lib/redis-failures";
import { databaseOf, groupByDatabase, settleEach } from "../lib/redis-topology";
import type { ScriptRunner } from "../lib/script-batch";
import type { Services } from "../lib/services";
import { FILL_CACHES } from "./fill.lua";
import { INIT_TIMELINE } from "./init.lua";
import {
  maxPulledAccounts,
  DEFAULT_TIMELINE_CAP,
  RANKED_CANDIDATES,
  EMPTY_TIMELINE_TTL_SECONDS,
  feedKeys,
  FLAGS_CAP,
  POST_CACHE_TTL_SECONDS,
  TIMELINE_TTL_SECONDS,
  timelineMember,
  TOMBSTONE,
  TOMBSTONE_TTL_SECONDS,
} from "./keys";
import { rebuildSets } from "../safety/cache";
import { safetyNow } from "../safety/clock";
import { suspendedArg } from "../safety/copy";
import { safetyKeysOf } from "../safety/keys";
import { MARK_BUILDING, READ_PAGE, READ_RANKED, UPKEEP_TIMELINE } from "./page.lua";
import { postCopies } from "./post-copies";
import { decodeRankedCursor, encodeRankedCursor, isRankedCursor, rankingExpired, type RankedCursor } from "./ranked-cursor";
import { firstPageWatch, type FirstPageWatch } from "./unseen";
import { type CounterSnapshot, readFlagRange, readFlagsOf, readPageFromPostgres, readPosts, readTimelineBuild, type FlagRow } from "./store";

export type Post = { id: string; authorId: string; text: string; createdAt: string };
export type PostCounts = { likes: number; comments: number; forwards: number; views: number; favorites: number };
export type FeedItem = { post: Post; counts: PostCounts; liked: boolean; favorited: boolean };
export type FeedPage = { items: FeedItem[]; nextCursor: string | null; degraded: boolean };

const POST_FIELDS = fieldsOf("post");
/** Builds that found an unfollow racing them try again this often, then answer from Postgres. */
const BUILD_ATTEMPTS = 3;

/** The timeline cap in force (`FEED_TIMELINE_CAP`, default 1,000). */
export function timelineCap(env: { FEED_TIMELINE_CAP?: string }): number {
  const n = Number(env.FEED_TIMELINE_CAP);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_TIMELINE_CAP;
}

/** The cached form of a post: JSON `[authorId, text, createdAt, createdAtMs]` (the ranked read ages posts from the last). */
export const encodeCachedPost = (p: { authorId: string; text: string; createdAt: string }) =>
  JSON.stringify([p.authorId, p.text, p.createdAt, Date.parse(p.createdAt)]);

export { maxPulledAccounts };

/**
 * What a page script answered, before hydration fills its misses: the members and what was cached
 * for them, whether more follow, whether the TTLs are due for a renewal (`renewal_due`), and on a
 * first page with read regions the merged top it saw and the `feed` badge's marker.
 */
type RawPage = {
  members: string[];
  posts: (string | false)[];
  counts: unknown[];
  flags: (string | false)[];
  more: boolean;
  renew?: boolean;
  top?: string | false;
  marker?: string | false;
  /** Tombstoned timeline members a ranking met beyond the page (dropped with the page's upkeep). */
  gone?: string[];
};
type ScriptAnswer = ({ cold: true } | { retry: true } | { missing: string[] } | { ready: true } | { epoch: string } | RawPage) & {
  cold?: boolean;
  retry?: boolean;
  ready?: boolean;
  epoch?: string;
  missing?: string[];
  safetyMiss?: boolean;
};

/** A page read found the reader's safety sets not cached: reads more than this answer from Postgres. */
const SAFETY_ATTEMPTS = 3;

function decodeFeedCursor(cursor: string): string {
  const [id] = decodeCursor(cursor, 1) as [string];
  if (!isId(id)) throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
  return id;
}

/**
 * Runs one of the feed's scripts. `readonly`: the page reads (`#!lua flags=no-writes`), sent as
 * EVALSHA_RO so a read region can answer them; every other script is a write, for the primary.
 */
async function run(redis: ScriptRunner, source: string, keys: string[], args: (string | number)[], options: { readonly?: boolean } = {}): Promise<ScriptAnswer> {
  let raw: unknown;
  try {
    raw = await (options.readonly ? readOnlyScriptOf(redis, source) : redis.createScript(source)).exec(keys, args.map(String));
  } catch (err) {
    if (isRedisCommandError(err)) throw commandFailure("Feed script", err);
    throw err;
  }
  const answer = (typeof raw === "string" ? JSON.parse(raw) : raw) as ScriptAnswer;
  if ("members" in answer && !Array.isArray(answer.members)) answer.members = []; // cjson: {} for an empty table
  return answer;
}

/**
 * The caller's home timeline, newest first: posts of the accounts they follow and their own, each
 * hydrated with its counters and the caller's like/favourite flags.
 *
 * Warm: ONE Redis round trip and no Postgres (N > 1: TWO — the reader's database for the ids,
 * flags, outboxes and the posts that live there, then one call per other database holding posts of
 * the page this isolate's copies do not answer, in parallel, for their posts and counters:
 * `completeRemote`; one when the copies answer them all), every call read-only.
 * What the read found to write (tombstoned members to drop, TTLs due) goes out after the answer
 * (`afterAnswer`). Cold (no timeline): a write marks the timeline as building, one statement reads
 * it from Postgres, then one script writes it while a read-only call serves the page from the rows
 * read. Misses (post, counters or flags not cached) cost one statement per kind; the caches are
 * filled after the answer.
 * Redis down: one Postgres statement, `degraded: true`. Postgres down: what Redis holds, items it
 * cannot hydrate left out, `degraded: true`.
 */
export async function readHomeFeed(
  services: Services,
  userId: string,
  page: { limit: number; cursor?: string; order?: "chronological" | "ranked" },
): Promise<FeedPage> {
  if (page.order === "ranked") return readRankedFeed(services, userId, page);
  const before = page.cursor ? decodeFeedCursor(page.cursor) : null;
  try {
    // N > 1: the start of round 1, from which its counters of the reader's database's posts are aged in the counters' edge copy.
    const ticket = services.databases > 1 ? edgeCounters.begin() : undefined;
    const raw = await readPage(services, userId, before, page.limit, before === null ? firstPageWatch(services) : undefined);
    if (raw === "postgres") return await pageFromPostgres(services, userId, before, page.limit, false);
    const last = raw.members[raw.members.length - 1];
    const nextCursor = raw.more && last ? encodeCursor([last.split(":")[0]!]) : null;
    return { ...(await hydrate(services, userId, { ...raw, ticket }, "after answer")), nextCursor };
  } catch (err) {
    if (err instanceof ApiError || !isRedisOutage(err)) throw err;
    return pageFromPostgres(services, userId, before, page.limit, true);
  }
}

/**
 * KEYS of the page scripts (PAGE_KEY_COUNT): timeline, flags, unfollow epoch, pulled set, activity,
 * the `feed` badge's marker, and the reader's safety sets (src/safety: the pages leave out the
 * posts of users the reader blocked, who blocked the reader, or whom the reader mutes).
 */
const pageKeys = (userId: string) => [
  feedKeys.timeline(userId),
  feedKeys.flags(userId),
  feedKeys.unfollowEpoch(userId),
  feedKeys.bigFollows(userId),
  feedKeys.activity(),
  feedKeys.seen(userId),
  ...safetyKeysOf(userId),
];

/**
 * The config arguments every page script reads (READ_CONFIG in page.lua.ts). `suspended`: the
 * suspended users as the isolate's copy holds them (src/safety's `suspendedArg`: no round trip),
 * whose posts the page leaves out as it leaves out those the reader's own sets hide.
 */
const configArgs = (env: Services["env"], suspended: string) => [
  TIMELINE_TTL_SECONDS,
  feedKeys.postPrefix(),
  counterKeys.cache("post", ""),
  feedKeys.outboxPrefix(),
  maxPulledAccounts(env),
  POST_FIELDS.length,
  ...POST_FIELDS,
  safetyNow(env),
  suspended,
];

/**
 * The raw page from Redis (a read-only call), building the timeline first when it is not built;
 * "postgres" when builds keep racing unfollows. `watch`: a first page's, told what the read saw of
 * the `feed` badge's marker (read regions on) and whether the read built the timeline.
 */
async function readPage(services: Services, userId: string, before: string | null, limit: number, watch?: FirstPageWatch): Promise<RawPage | "postgres"> {
  const max = before ? `(${before}` : "+inf";
  const config = configArgs(services.env, await suspendedArg(services));
  const read = () => run(services.redisFor(userId), READ_PAGE, pageKeys(userId), [max, limit, watch ? "1" : "", ...config], { readonly: true });
  let answer = await read();
  for (let attempt = 1, safetyAttempt = 1; answer.cold || answer.safetyMiss; ) {
    if (answer.safetyMiss) {
      // The reader's safety sets are cached by one Postgres read, then the page is read again.
      if (safetyAttempt++ > SAFETY_ATTEMPTS) return "postgres";
      await rebuildSets(services, userId, answer.epoch ?? "");
      answer = await read();
      continue;
    }
    if (attempt++ > BUILD_ATTEMPTS) return "postgres";
    const built = await buildTimeline(services, userId, max, limit, watch);
    // Built by another read meanwhile, or an unfollow moved the epoch during the build (the
    // timeline is still cold), or the safety sets went missing meanwhile: read again, and build again if need be.
    if ("again" in built) answer = await read();
    else return built;
  }
  const page = answer as RawPage;
  if (watch && page.top !== undefined) watch.saw(page.top, page.marker ?? false);
  return page;
}

/**
 * Marks the timeline as building (a write, on the reader's database's primary: MARK_BUILDING), then
 * one statement reads it from Postgres, then — side by side — one script writes it (if no unfollow
 * happened since the mark's epoch) and a read-only call serves the page below `max` from the rows
 * read (READ_PAGE with them: the outboxes, post caches, counters and flags as a warm page reads
 * them). `again` when there is nothing to serve from this build: another read built the timeline
 * first, or an unfollow moved the epoch (the rows may hold that account).
 */
async function buildTimeline(services: Services, userId: string, max: string, limit: number, watch?: FirstPageWatch) {
  const redis = services.redisFor(userId);
  const mark = await run(redis, MARK_BUILDING, [feedKeys.timeline(userId), feedKeys.unfollowEpoch(userId)], [EMPTY_TIMELINE_TTL_SECONDS]);
  if (mark.ready) return { again: true } as const;
  const cap = timelineCap(services.env);
  const build = await readTimelineBuild(services.db, userId, cap, limit, FLAGS_CAP, services.databases);
  const posts = [...build.posts].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0));
  const pairs: string[] = [];
  for (const p of posts) pairs.push(timelineMember(p.id, p.author_id), p.id);
  // The page's rows: the build's rows below the cursor — all of them, as the page may leave out
  // posts of users the reader's safety sets hide and read on past them, as it does in a timeline.
  const below = max === "+inf" ? null : BigInt(max.slice(1));
  const rows: string[] = [];
  for (const p of posts) {
    if (below === null || BigInt(p.id) < below) rows.push(timelineMember(p.id, p.author_id), p.id);
  }
  const config = configArgs(services.env, await suspendedArg(services));
  const bigs = [build.bigFollowees.length, ...build.bigFollowees];
  const [written, page] = await Promise.all([
    run(redis, INIT_TIMELINE, pageKeys(userId), [mark.epoch!, cap, EMPTY_TIMELINE_TTL_SECONDS, watch ? "1" : "", ...config, ...bigs, ...pairs]),
    run(redis, READ_PAGE, pageKeys(userId), [max, limit, "", ...config, ...bigs, ...rows], { readonly: true }),
  ]);
  if (written.retry || page.safetyMiss) return { again: true } as const;
  watch?.built();
  // Cache what the build read and the page lacks, in the page's own miss handling.
  const known = new Map<string, string>();
  for (const p of posts) {
    if (p.text !== null && p.created_at !== null) known.set(p.id, encodeCachedPost({ authorId: p.author_id, text: p.text, createdAt: isoTimestamp(p.created_at) }));
  }
  const floor = posts.length > 0 ? posts[posts.length - 1]!.id : null;
  const flagsComplete = build.flags.filter((f) => f.kind === "l").length < FLAGS_CAP && build.flags.filter((f) => f.kind === "v").length < FLAGS_CAP;
  return {
    ...(page as RawPage),
    known,
    // Only the first page's posts had their counters read: the snapshot says nothing of others.
    counterSnapshot: { snapshot: build.counters, ids: new Set(posts.slice(0, limit).map((p) => p.id)) },
    built: floor && flagsComplete ? { floor, flags: build.flags } : undefined,
  };
}

/**
 * Sends a write a page found to do — fills, the timeline's upkeep — once the
 * answer is on its way (`waitUntil`): the answer never waits on the primary for it. Its failure
 * only loses a cache write (an outage, expected, is not even logged).
 */
export function afterAnswer(services: Services, what: string, write: Promise<unknown>): void {
  services.waitUntil(
    write.catch((err: unknown) => {
      if (!isRedisOutage(err)) log.error({ message: `feed: ${what} failed`, error: errorText(err) });
    }),
  );
}

/** The timeline's upkeep a read reported: tombstoned members to drop, TTLs to renew (`UPKEEP_TIMELINE`). Nothing is sent when there is neither. */
function upkeep(services: Services, userId: string, gone: readonly string[], renew: boolean): void {
  if (gone.length === 0 && !renew) return;
  const write = services
    .redisFor(userId)
    .createScript(UPKEEP_TIMELINE)
    .exec([feedKeys.timeline(userId), feedKeys.bigFollows(userId), feedKeys.flags(userId)], [String(TIMELINE_TTL_SECONDS), renew ? "1" : "", ...gone]);
  afterAnswer(services, "timeline upkeep", write);
}

type Parsed = { id: string; authorId: string; member: string };
export type Flags = { liked: boolean; favorited: boolean };

/**
 * Fills the page's misses (one statement per kind) and shapes the items. The caches the misses
 * were read for are written by one script per database: after the answer for a page
 * (`fill: "after answer"`), before returning when the caller reads Redis again right after and
 * needs them there (`"await"`: a ranked page's candidates). Tombstoned members the page met and
 * TTLs the read found due go out after the answer (`upkeep`).
 */
async function hydrate(
  services: Services,
  userId: string,
  raw: RawPage & { known?: Map<string, string>; counterSnapshot?: { snapshot: CounterSnapshot; ids: Set<string> }; built?: { floor: string; flags: FlagRow[] }; complete?: true; ticket?: ReadTicket },
  fill: "after answer" | "await",
): Promise<{ items: FeedItem[]; degraded: boolean }> {
  const members: Parsed[] = raw.members.map((m) => {
    const [id, authorId] = m.split(":") as [string, string];
    return { id, authorId, member: m };
  });
  const gone = Array.isArray(raw.gone) ? raw.gone : []; // cjson: {} for an empty table
  if (members.length === 0) {
    upkeep(services, userId, gone, raw.renew === true);
    return { items: [], degraded: false };
  }
  // N > 1: posts of other databases than the reader's, from their own databases (round 2), unless
  // they were read there already (`complete`: a ranked first page's).
  const unreachable = services.databases > 1 && !raw.complete ? await completeRemote(services, userId, members, raw, raw.ticket) : new Set<string>();

  const posts = new Map<string, string>();
  const counts = new Map<string, number[]>();
  members.forEach((m, i) => {
    const cached = raw.posts[i];
    if (typeof cached === "string") posts.set(m.id, cached);
    else if (raw.known?.has(m.id)) posts.set(m.id, raw.known.get(m.id)!);
    const row = decodeCachedCounters(raw.counts[i], POST_FIELDS.length);
    if (row) counts.set(m.id, row);
  });

  // Flags: the hash answers for the items at or above its floor (when built and not overflowed);
  // the items below it are answered by Postgres — the build's rows, or one read — and only they.
  const [floor, overflowed] = [raw.flags[0], raw.flags[1]];
  const hashFloor = typeof floor === "string" && !overflowed ? floor : null;
  const flag = new Map<string, Flags>();
  members.forEach((m, i) => {
    if (hashFloor !== null && BigInt(m.id) >= BigInt(hashFloor)) flag.set(m.id, { liked: raw.flags[2 + 2 * i] === "1", favorited: raw.flags[3 + 2 * i] === "1" });
  });

  let degraded = false;
  const postMisses = members.filter((m) => !posts.has(m.id)).map((m) => m.id);
  const allCountMisses = members.filter((m) => !counts.has(m.id) && posts.get(m.id) !== TOMBSTONE).map((m) => m.id);
  // The posts of a database that did not answer: their counters from Postgres (what a Redis outage
  // answers today, `degraded`), not warmed into a database that is down.
  const countMisses = allCountMisses.filter((id) => !unreachable.has(id));
  const countsUnreachable = allCountMisses.filter((id) => unreachable.has(id));
  if (unreachable.size > 0) degraded = true;
  const caches: { posts: [string, string][]; flags?: { floor: string; seen: string; rows: FlagRow[] } } = { posts: [] };
  if (raw.built && flag.size < members.length) {
    // The build read the flags from its oldest post up with the timeline: no statement needed.
    caches.flags = { floor: raw.built.floor, seen: typeof floor === "string" ? floor : "", rows: raw.built.flags };
    applyFlags(flag, members.filter((m) => !flag.has(m.id) && BigInt(m.id) >= BigInt(raw.built!.floor)), raw.built.flags);
  }
  for (const [id, value] of raw.known ?? []) if (raw.posts[members.findIndex((m) => m.id === id)] === false) caches.posts.push([id, value]);

  // A build read the first page's counters with the watermark: complete and cache them from that
  // snapshot (the counters' own warm script), with no statement of their own.
  const covered = countMisses.filter((id) => raw.counterSnapshot?.ids.has(id));
  if (raw.counterSnapshot && covered.length > 0) {
    const warmed = await completeSnapshot(services, "post", covered, raw.counterSnapshot.snapshot, "warm");
    if (warmed) {
      for (const [id, row] of warmed) counts.set(id, row);
      countMisses.splice(0, countMisses.length, ...countMisses.filter((id) => !counts.has(id)));
    }
  }
  const uncovered = members.filter((m) => !flag.has(m.id));
  if (postMisses.length > 0 || countMisses.length > 0 || uncovered.length > 0 || countsUnreachable.length > 0) {
    const results = await Promise.allSettled([
      postMisses.length > 0 ? readPosts(services.db, postMisses) : Promise.resolve([]),
      countMisses.length > 0 ? completeFromSnapshot(services, "post", countMisses, "warm") : Promise.resolve(new Map<string, number[]>()),
      uncovered.length > 0 ? readFlags(services, userId, uncovered, hashFloor, Boolean(overflowed) || caches.flags !== undefined) : Promise.resolve(null),
      countsUnreachable.length > 0 ? readCounters(services, "post", countsUnreachable) : Promise.resolve(null),
    ]);
    const [postRows, warmed, flagRead, stale] = results;
    if (stale.status === "fulfilled" && stale.value) for (const [id, row] of stale.value.values) counts.set(id, row);
    else if (stale.status === "rejected") degraded = noteFailure(stale.reason);
    if (postRows.status === "fulfilled") {
      for (const r of postRows.value) {
        const value = r.deleted ? TOMBSTONE : encodeCachedPost({ authorId: r.author_id, text: r.text, createdAt: isoTimestamp(r.created_at) });
        posts.set(r.id, value);
        caches.posts.push([r.id, value]);
      }
    } else degraded = noteFailure(postRows.reason);
    if (warmed.status === "fulfilled") for (const [id, row] of warmed.value) counts.set(id, row);
    else degraded = noteFailure(warmed.reason);
    if (flagRead.status === "fulfilled" && flagRead.value) {
      applyFlags(flag, uncovered, flagRead.value.rows);
      if (flagRead.value.build) caches.flags = { ...flagRead.value.build, seen: typeof floor === "string" ? floor : "", rows: flagRead.value.rows };
    } else if (flagRead.status === "rejected") degraded = noteFailure(flagRead.reason);
  }
  if (caches.posts.length > 0 || caches.flags) {
    const written = writeFill(services, userId, { ...caches, posts: caches.posts.filter(([id]) => !unreachable.has(id)) });
    if (fill === "await") await written;
    else afterAnswer(services, "cache fill", written);
  }
  upkeep(services, userId, [...members.filter((m) => posts.get(m.id) === TOMBSTONE).map((m) => m.member), ...gone], raw.renew === true);

  const items: FeedItem[] = [];
  for (const m of members) {
    const cached = posts.get(m.id);
    const row = counts.get(m.id);
    // Deleted (tombstone) or unknown posts are never shown; a post or counters Postgres could not
    // give (Postgres down) leave the item out rather than show it half-drawn.
    if (cached === undefined || cached === TOMBSTONE || !row) continue;
    const [authorId, text, createdAt] = JSON.parse(cached) as [string, string, string];
    const f = flag.get(m.id) ?? { liked: false, favorited: false };
    if (!flag.has(m.id)) degraded = true;
    items.push({ post: { id: m.id, authorId, text, createdAt }, counts: postCounts(row), ...f });
  }
  return { items, degraded };
}

/** A Postgres failure while filling misses degrades the page; anything else is a bug and fails it. */
function noteFailure(err: unknown): true {
  if (isDependencyFailure(err) || (err instanceof ApiError && err.code === "unavailable")) return true;
  throw err;
}

/** Sets the flags of `members` (only those the rows were read for) from Postgres rows. */
function applyFlags(flag: Map<string, Flags>, members: Parsed[], rows: FlagRow[]) {
  const liked = new Set(rows.filter((r) => r.kind === "l").map((r) => r.post_id));
  const faved = new Set(rows.filter((r) => r.kind === "v").map((r) => r.post_id));
  for (const m of members) flag.set(m.id, { liked: liked.has(m.id), favorited: faved.has(m.id) });
}

/**
 * The reader's flags for the page's items the flags hash does not answer for (all below its
 * floor, or all when it has none): extends the hash down to the oldest of them (one range
 * statement, up to the floor), or — when the hash overflowed, a build already fills it, or the
 * range holds more than FLAGS_CAP reactions — reads just those posts and builds nothing.
 */
export async function readFlags(services: Services, userId: string, uncovered: readonly Pick<Parsed, "id">[], floor: string | null, exactOnly: boolean) {
  const minId = uncovered.reduce((min, m) => (BigInt(m.id) < BigInt(min) ? m.id : min), uncovered[0]!.id);
  if (!exactOnly) {
    const rows = await readFlagRange(services.db, userId, minId, floor, FLAGS_CAP);
    const full = rows.filter((r) => r.kind === "l").length >= FLAGS_CAP || rows.filter((r) => r.kind === "v").length >= FLAGS_CAP;
    if (!full) return { rows, build: { floor: minId } };
  }
  return { rows: await readFlagsOf(services.db, userId, uncovered.map((m) => m.id)), build: undefined };
}

/**
 * One script caches the posts and flags the page read from Postgres (N > 1: one per database, in
 * parallel — the flags on the reader's, each post on its own). A Redis failure here only loses the caching.
 */
export async function writeFill(services: Services, userId: string, fill: { posts: [string, string][]; flags?: { floor: string; seen: string; rows: FlagRow[] } }) {
  const own = databaseOf(userId, services.databases);
  const byDatabase = groupByDatabase(fill.posts, ([id]) => id, services.databases);
  if (fill.flags && !byDatabase.has(own)) byDatabase.set(own, []);
  const settled = await settleEach(byDatabase, (index, posts) => {
    const flags = index === own ? fill.flags : undefined;
    const args: (string | number)[] = [POST_CACHE_TTL_SECONDS, TOMBSTONE_TTL_SECONDS, TOMBSTONE, posts.length, ...posts.map(([, v]) => v)];
    if (flags) {
      args.push(flags.floor, flags.seen, TIMELINE_TTL_SECONDS, FLAGS_CAP);
      for (const r of flags.rows) args.push(`${r.kind}${r.post_id}`, "1");
    } else {
      args.push("", "", TIMELINE_TTL_SECONDS, FLAGS_CAP);
    }
    return services.redisAt(index).createScript(FILL_CACHES).exec([feedKeys.flags(userId), ...posts.map(([id]) => feedKeys.post(id))], args.map(String));
  });
  for (const outcome of settled.values()) {
    if (outcome.status === "fulfilled") continue;
    if (isRedisCommandError(outcome.reason)) throw commandFailure("Feed fill script", outcome.reason);
    if (!isRedisOutage(outcome.reason)) throw outcome.reason;
  }
}

/**
 * Round 2 of a page at N > 1: the posts and counters of the page's posts that live on other
 * databases than the reader's. Writes them into `raw` (what round 1 read there for them is not
 * theirs); posts round 1 already found tombstoned (a delete writes its tombstone to every database)
 * are not asked for. Answers the ids whose database failed: left as misses, their posts and
 * counters are read from Postgres.
 *
 * What this isolate holds is not asked for (`readOtherDatabases`), so a warm page whose posts this
 * isolate drew within the bound is one round, as at N = 1. `ticket`: taken before round 1, whose
 * exact counters of the reader's database's own posts refresh the counters' copy too (a copy is
 * never older than what a page here already showed).
 */
async function completeRemote(services: Services, userId: string, members: Parsed[], raw: { posts: (string | false)[]; counts: unknown[] }, ticket?: ReadTicket): Promise<Set<string>> {
  const own = databaseOf(userId, services.databases);
  const boundMs = edgeCacheBoundMs(services.env);
  const byDatabase = groupByDatabase(
    members.flatMap((m, i): (OtherDatabasePost & { i: number })[] => {
      if (raw.posts[i] !== TOMBSTONE) return [{ id: m.id, post: undefined, createdAtMs: undefined, counts: undefined, i }];
      postCopies.forget(m.id);
      return [];
    }),
    (m) => m.id,
    services.databases,
  );
  if (ticket && boundMs > 0) {
    for (const m of byDatabase.get(own) ?? []) {
      const row = decodeCachedCounters(raw.counts[m.i], POST_FIELDS.length);
      if (row) edgeCounters.store("post", m.id, row, ticket, boundMs);
    }
  }
  byDatabase.delete(own);
  const failed = await readOtherDatabases(services, byDatabase);
  const unreachable = new Set<string>();
  for (const [index, list] of byDatabase) {
    const reason = failed.get(index);
    if (reason !== undefined && (reason instanceof ApiError || !isRedisOutage(reason))) throw reason;
    for (const m of list) {
      if (reason !== undefined) {
        raw.posts[m.i] = m.post ?? false;
        raw.counts[m.i] = false;
        unreachable.add(m.id);
        continue;
      }
      // An entry its database no longer caches (and did not tombstone): a copy, which never changes, still answers.
      raw.posts[m.i] = m.post ?? postCopies.get(m.id) ?? false;
      raw.counts[m.i] = m.counts ?? false;
    }
  }
  return unreachable;
}

/** A post of another database than the reader's, as `readOtherDatabases` found it. */
type OtherDatabasePost = {
  id: string;
  /** Its entry (TOMBSTONE: deleted), from its copy or its database; undefined when neither had it. */
  post: string | undefined;
  /** The entry's creation time (`entryCreatedAtMs`). */
  createdAtMs: number | undefined;
  /** Its counters (POST_FIELDS order), from the counters' edge copy or its database. */
  counts: readonly number[] | undefined;
};

/**
 * Round 2 at N > 1, for chronological and ranked pages alike: the entries and counters of posts
 * that live on other databases than the reader's (`byDatabase`), filled into each item. What this
 * isolate holds is not asked for: a post's counters from the counters' edge copy under that copy's
 * own rules (younger than `COUNTER_EDGE_CACHE_MS`, dropped by this isolate's writes; none while the
 * request holds a consistency token for that database: the client wrote there, and reads its
 * write), and beside them its entry from its copy (`postCopies`: entries never change). A database
 * whose posts are not all held is asked with ONE bare MGET (one billed command, no script) for the
 * entries and counters of ALL of them, in parallel (≤ 6 at once): their copies are then refreshed
 * together and come due together, so a later page asks once, not once per post whose copy happens
 * to be due; and a database asked for a post's counters is asked for its entry too, so a tombstone
 * that reached only the post's own database drops it within the bound (its copy is dropped here).
 * Answers the databases that failed, with why (their items keep what the copies gave).
 */
async function readOtherDatabases(services: Services, byDatabase: Map<number, OtherDatabasePost[]>): Promise<Map<number, unknown>> {
  const boundMs = edgeCacheBoundMs(services.env);
  const held = heldSyncTokens();
  const asks = new Map<number, OtherDatabasePost[]>();
  const now = edgeCounters.now(); // one clock for the batch (workerd's only moves on I/O)
  for (const [index, list] of byDatabase) {
    // A held token for a database reads it; so does a copy turned off.
    if (boundMs <= 0 || held?.[index] !== undefined) {
      asks.set(index, list);
      continue;
    }
    let complete = true;
    for (const p of list) {
      const counts = edgeCounters.lookup("post", p.id, boundMs, now);
      const copy = counts ? postCopies.copy(p.id) : undefined;
      if (counts && copy !== undefined) {
        p.counts = counts.values;
        p.post = copy.value;
        p.createdAtMs = copy.createdAtMs;
      } else complete = false;
    }
    if (!complete) asks.set(index, list);
  }
  const failed = new Map<number, unknown>();
  if (asks.size === 0) return failed;
  // Post caches are the JSON text hydrate reads; counters are decoded by the counters' own rule.
  const read = edgeCounters.begin();
  const settled = await settleEach(asks, async (index, list) => {
    const keys = list.map((p) => feedKeys.post(p.id));
    for (const p of list) keys.push(counterKeys.cache("post", p.id));
    return (await rawCommand(services.redisAt(index), ["MGET", ...keys])) as unknown[];
  });
  for (const [index, list] of asks) {
    const outcome = settled.get(index)!;
    if (outcome.status === "rejected") {
      failed.set(index, outcome.reason);
      continue;
    }
    const values = outcome.value;
    list.forEach((p, k) => {
      const value = values[k];
      let copy: ReturnType<typeof postCopies.copy>;
      if (value === TOMBSTONE) postCopies.forget(p.id);
      else if (typeof value === "string") {
        // An entry never changes: a copy already held stays as it is (no second creation-time parse).
        const kept = postCopies.copy(p.id);
        copy = kept?.value === value ? kept : postCopies.keep(p.id, value);
      }
      p.post = typeof value === "string" ? value : undefined;
      p.createdAtMs = copy?.createdAtMs;
      const row = unpackCounters(values[list.length + k], POST_FIELDS.length)?.map(Number);
      p.counts = row;
      // A complete answer of a reachable database: exact as of this read.
      if (row && boundMs > 0) edgeCounters.store("post", p.id, row, read, boundMs);
    });
  }
  return failed;
}

/** A post's counters as the feed shows them (the counters capability's rule: never below zero). */
export function postCounts(row: readonly number[] | undefined): PostCounts {
  const byField = shownCounts(POST_FIELDS, row);
  return { likes: byField.likes ?? 0, comments: byField.comments ?? 0, forwards: byField.forwards ?? 0, views: byField.views ?? 0, favorites: byField.favorites ?? 0 };
}

/** Redis down (or builds racing unfollows): one Postgres statement for the whole hydrated page, hidden authors left out. */
async function pageFromPostgres(services: Services, userId: string, before: string | null, limit: number, degraded: boolean): Promise<FeedPage> {
  const rows = await readPageFromPostgres(services.db, userId, before, limit, safetyNow(services.env));
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const items = pageRows.map((r) => ({
    post: { id: r.id, authorId: r.author_id, text: r.text, createdAt: isoTimestamp(r.created_at) },
    counts: postCounts(POST_FIELDS.map((f) => Number(r.counts?.[f] ?? 0))),
    liked: r.liked,
    favorited: r.favorited,
  }));
  const last = pageRows[pageRows.length - 1];
  return { items, nextCursor: more && last ? encodeCursor([last.id]) : null, degraded };
}

/**
 * A ranked item's score: engagement over age, `(1 + likes + 2·comments + 3·forwards) /
 * (age_hours + 2)^1.5` — READ_RANKED's formula, computed as it computes it (`scoreOf`), so a
 * score made here is the very double Redis makes (used when Redis is down, and at N > 1 for the
 * candidates this isolate's copies answer).
 */
export function rankScore(counts: PostCounts, createdAtMs: number, now: number): number {
  return scoreOf(counts.likes, counts.comments, counts.forwards, createdAtMs, now);
}

/**
 * rank_candidates' arithmetic (page.lua.ts) step for step: (age + 2)^1.5 as base · sqrt(base),
 * IEEE operations only, since `**` and C's pow differ in the last bit for ~9% of inputs, which
 * would break exact ties between posts scored here and posts scored by a database.
 */
function scoreOf(likes: number, comments: number, forwards: number, createdAtMs: number, now: number): number {
  const ageHours = Math.max(0, now - createdAtMs) / 3_600_000;
  const base = ageHours + 2;
  return (1 + likes + 2 * comments + 3 * forwards) / (base * Math.sqrt(base));
}

/**
 * Where a ranked cursor goes on: the ranking it carries (ranked-cursor.ts), or — the degraded
 * walk's `["pg", offset]` — the Postgres ranking again from that offset. A cursor of the stored
 * rankings before (`[snapshot, offset]`) names a ranking kept nowhere now: expired, as after 15
 * minutes, and the client starts again.
 */
function rankedPosition(cursor: string, now: number): RankedCursor | { pg: number } {
  if (isRankedCursor(cursor)) return decodeRankedCursor(cursor, now);
  const [name, offset] = decodeCursor(cursor, 2) as [string, string];
  if (/^\d{1,4}$/.test(offset) && Number(offset) <= RANKED_CANDIDATES) {
    if (name === "pg") return { pg: Number(offset) };
    if (/^[a-z0-9-]{1,40}$/.test(name)) throw rankingExpired();
  }
  throw new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
}

/** The next cursor of a ranking: the ids not shown yet, or null when none are left. */
const nextRanked = (ranking: RankedCursor): string | null => (ranking.ids.length > 0 ? encodeRankedCursor(ranking) : null);

/** The post id of a timeline member (`postId:authorId`), or of a bare post id. */
const postIdOf = (member: string) => {
  const cut = member.indexOf(":");
  return cut < 0 ? member : member.slice(0, cut);
};

/** Builds, fills and retries before a ranked first page gives up on Redis and ranks from Postgres. */
const RANKED_ATTEMPTS = 4;

/**
 * The ranked home page: the newest RANKED_CANDIDATES items of the merged timeline scored in the
 * page script (read-only), the first page answered with the ranking's other ids in its cursor
 * (ranked-cursor.ts, 15 minutes), so paging walks one ranking, items never jump between pages, and
 * nothing is stored: a later page hydrates its slice (`readRankedSlice`). Dropping the cursor
 * ranks again. Warm: one round trip at N = 1, read-only. Redis down: the candidates are ranked
 * from one Postgres statement (`degraded: true`; its `pg` cursors rank again on every page).
 */
async function readRankedFeed(services: Services, userId: string, page: { limit: number; cursor?: string }): Promise<FeedPage> {
  const now = Date.now();
  if (page.cursor) {
    const at = rankedPosition(page.cursor, now);
    return "pg" in at ? rankedFromPostgres(services, userId, at.pg, page.limit) : readRankedSlice(services, userId, at, page.limit);
  }
  const fields = POST_FIELDS as readonly string[];
  const watch = firstPageWatch(services);
  // N > 1: a first page's candidates live on several databases: the reader's answers them and the
  // reader's flags, each post's database scores its own, and this Worker merges the rankings.
  const mode = services.databases > 1 ? "members" : "new";
  const args = [
    mode,
    page.limit,
    watch ? "1" : "",
    now,
    RANKED_CANDIDATES,
    fields.indexOf("likes") + 1,
    fields.indexOf("comments") + 1,
    fields.indexOf("forwards") + 1,
    ...configArgs(services.env, await suspendedArg(services)),
  ];
  try {
    for (let attempt = 0; attempt < RANKED_ATTEMPTS; attempt++) {
      const answer = await run(services.redisFor(userId), READ_RANKED, pageKeys(userId), args, { readonly: true });
      if (answer.safetyMiss) {
        // The reader's safety sets are cached by one Postgres read, then ranked again.
        await rebuildSets(services, userId, answer.epoch ?? "");
        continue;
      }
      if (answer.cold) {
        // Build the timeline (its chronological first page only fills caches), then rank.
        const built = await buildTimeline(services, userId, "+inf", page.limit, watch);
        if (!("again" in built)) await hydrate(services, userId, built, "await");
        continue;
      }
      if (answer.missing) {
        // Cache the candidates' posts and counters the ranking needs, then rank again.
        await hydrate(services, userId, { members: answer.missing, posts: answer.missing.map(() => false), counts: [], flags: [], more: false }, "await");
        continue;
      }
      const raw = answer as RawPage & { rest?: string[] };
      if (watch && raw.top !== undefined) watch.saw(raw.top, raw.marker ?? false);
      let served: RawPage = raw;
      let rest = Array.isArray(raw.rest) ? raw.rest : []; // cjson: {} for an empty table
      if (mode === "members") {
        const ranked = await rankAcrossDatabases(services, userId, answer as unknown as Candidates, now, page.limit);
        if ("missing" in ranked) {
          await hydrate(services, userId, { members: ranked.missing, posts: ranked.missing.map(() => false), counts: [], flags: [], more: false }, "await");
          continue;
        }
        served = ranked.page;
        rest = ranked.rest;
      }
      const { items, degraded } = await hydrate(services, userId, served, "after answer");
      return { items, nextCursor: nextRanked({ at: now, shown: page.limit, ids: rest }), degraded };
    }
    return await rankedFromPostgres(services, userId, 0, page.limit);
  } catch (err) {
    if (err instanceof ApiError || !isRedisOutage(err)) throw err;
    return rankedFromPostgres(services, userId, 0, page.limit);
  }
}

/**
 * A later ranked page: the next ids of the ranking its cursor carries, through the read-only page
 * path (READ_RANKED mode 'page' on the reader's database: posts, counters, flags; at N > 1 round 2
 * for the posts of other databases), deleted posts skipped. The script re-checks each id's author
 * against the reader's safety sets, so a block or mute made mid-walk holds from the next page on,
 * and reads on past what it leaves out (the cursor goes on after the last id it took). No
 * snapshot, no wait, nothing for the primary. Redis down: the Postgres ranking from where the walk
 * is (`degraded`).
 */
async function readRankedSlice(services: Services, userId: string, ranking: RankedCursor, limit: number): Promise<FeedPage> {
  // Every id not shown yet: the script serves the first `limit` the reader's safety sets and the
  // isolate's copy of the suspended set let through (a block, mute or suspension made since the
  // first page), reading on past the hidden ones.
  const args = ["page", limit, "", ranking.at, RANKED_CANDIDATES, 0, 0, 0, ...configArgs(services.env, await suspendedArg(services)), ...ranking.ids];
  try {
    let raw = await run(services.redisFor(userId), READ_RANKED, pageKeys(userId), args, { readonly: true });
    for (let attempt = 1; raw.safetyMiss; attempt++) {
      // The reader's safety sets are cached by one Postgres read, then the page is read again.
      if (attempt > SAFETY_ATTEMPTS) return await rankedFromPostgres(services, userId, ranking.shown, limit);
      await rebuildSets(services, userId, raw.epoch ?? "");
      raw = await run(services.redisFor(userId), READ_RANKED, pageKeys(userId), args, { readonly: true });
    }
    const page = raw as RawPage & { used?: number };
    const used = typeof page.used === "number" ? page.used : Math.min(limit, ranking.ids.length);
    const { items, degraded } = await hydrate(services, userId, page, "after answer");
    return { items, nextCursor: nextRanked({ at: ranking.at, shown: ranking.shown + used, ids: ranking.ids.slice(used) }), degraded };
  } catch (err) {
    if (err instanceof ApiError || !isRedisOutage(err)) throw err;
    return rankedFromPostgres(services, userId, ranking.shown, limit);
  }
}

/** READ_RANKED's order: score descending, ties newest first. */
function rank(items: FeedItem[], now: number): FeedItem[] {
  return items
    .map((item) => ({ item, score: rankScore(item.counts, Date.parse(item.post.createdAt), now) }))
    .sort((a, b) => b.score - a.score || (BigInt(b.item.post.id) > BigInt(a.item.post.id) ? 1 : -1))
    .map((r) => r.item);
}

/**
 * READ_RANKED's answer in mode "members": the candidates' post ids, newest first, the reader's
 * flags hash's floor and overflow mark (`flags`: f, x), which candidates it marks (`on`: 2p + 1 for a like of
 * the candidate at 0-based place p, 2p + 2 for a favourite), and the reader's database's own share
 * of the ranking (`order` indexes the candidates, 1-based; each one's score as '%.17g' text; the
 * post entries and packed counters of its first `limit`; the tombstoned candidates: see
 * ranking_answer in page.lua.ts).
 */
type Candidates = {
  ids: string[];
  flags: (string | false)[];
  on: number[];
  renew?: boolean;
  order?: number[];
  scores?: string[];
  posts?: string[];
  counts?: (string | false)[];
  gone?: string[];
};

/** The merged ranking of a first page at N > 1: the post ids after the page's, in ranked order (the cursor's), and the page's hydration with the tombstoned candidates (`gone`). */
type Ranking = { rest: string[]; page: RawPage };

/** A candidate of another database than the reader's: what scores and hydrates it once known, then its score. */
type Remote = OtherDatabasePost & { position: number; score: number };

/**
 * A scored candidate of a ranked first page at N > 1: round 1's own share (its packed counters)
 * or a Remote (its row), created with every field in this order, so all are one object shape.
 */
type Scored = { id: string; position: number; score: number; post: string | false | undefined; createdAtMs: number | undefined; counts: string | false | readonly number[] | undefined };

/**
 * N > 1, round 2 of a ranked first page: round 1 scored the reader's database's own share (Lua);
 * the candidates of every other database are scored here, by rank_candidates' own arithmetic
 * (`scoreOf`: the same doubles), from what this isolate holds or else one MGET per database
 * (`readOtherDatabases`, as a chronological page's round 2), so a warm ranked page is one request,
 * as at N = 1. The lists are merged by score (ties: the newer
 * post first, as READ_RANKED), so the order is N = 1's. Answers the candidates to fill when some
 * database lacks posts or counters (the caller fills them and asks again); a database that fails
 * fails the ranking (the caller answers it from Postgres).
 */
async function rankAcrossDatabases(services: Services, userId: string, candidates: Candidates, now: number, limit: number): Promise<Ranking | { missing: string[] }> {
  const ids = Array.isArray(candidates.ids) ? candidates.ids : []; // cjson: {} for an empty table
  const n = services.databases;
  const own = databaseOf(userId, n);
  const fields = POST_FIELDS as readonly string[];
  const [iLikes, iComments, iForwards] = [fields.indexOf("likes"), fields.indexOf("comments"), fields.indexOf("forwards")];
  // Every ranked candidate: its score, its place among the candidates (newest first: the tie-break)
  // and what hydrates it (round 1's own share: for its first `limit` only). One shape for all.
  // Round 1's own share arrives ranked (`order`: score descending, ties newest first); the other
  // databases' candidates are scored and sorted here; then the two lists are merged.
  const ownRanked: Scored[] = [];
  const otherScored: Scored[] = [];
  // Tombstoned candidates, as members (round 1's) or bare ids (the upkeep takes both).
  const gone = Array.isArray(candidates.gone) ? [...candidates.gone] : [];
  const skip = gone.length > 0 ? new Set<string>(gone.map(postIdOf)) : undefined;
  // Round 1's own share: what the reader's database scored of the posts that live there (a copy of
  // another database's post found there, which no path writes, is scored from its own database).
  const order = Array.isArray(candidates.order) ? candidates.order : [];
  const inOwnShare = new Uint8Array(ids.length);
  for (let k = 0; k < order.length; k++) {
    const position = order[k]! - 1;
    const id = ids[position];
    if (id === undefined || databaseOf(id, n) !== own) continue;
    inOwnShare[position] = 1;
    ownRanked.push({ id, position, score: Number(candidates.scores?.[k]), post: candidates.posts?.[k], createdAtMs: undefined, counts: candidates.counts?.[k] });
  }
  // The others, by database, newest first. The reader's own posts round 1 could not score are not
  // cached there: filled, then asked again.
  const others: Remote[] = [];
  for (let position = 0; position < ids.length; position++) {
    const id = ids[position]!;
    if (inOwnShare[position] !== 1 && !skip?.has(id)) others.push({ id, position, score: 0, post: undefined, createdAtMs: undefined, counts: undefined });
  }
  const byDatabase = groupByDatabase(others, (c) => c.id, n);
  const missing = (byDatabase.get(own) ?? []).map((c) => c.id);
  byDatabase.delete(own);
  const failed = await readOtherDatabases(services, byDatabase);
  for (const [index, list] of byDatabase) {
    const reason = failed.get(index);
    // A database that fails answers the whole ranking from Postgres (the caller's outage path).
    if (reason !== undefined) throw isRedisCommandError(reason) ? commandFailure("Feed ranking read", reason) : reason;
    for (const c of list) {
      if (c.post === TOMBSTONE) gone.push(c.id);
      else if (c.post === undefined || !c.counts) missing.push(c.id);
      else {
        // The entry's creation time, as the script reads it (an entry without one ages from now).
        const row = c.counts;
        c.score = scoreOf(row[iLikes]!, row[iComments]!, row[iForwards]!, c.createdAtMs ?? now, now);
        otherScored.push(c);
      }
    }
  }
  if (missing.length > 0) return { missing };
  const ranked = mergeRanked(ownRanked, otherScored.sort(rankedBefore));
  const top = ranked.slice(0, limit);
  // An empty timeline's answer has no flags (nor candidates): cjson leaves the field out.
  const flags = Array.isArray(candidates.flags) ? candidates.flags : [];
  const on = new Set(Array.isArray(candidates.on) ? candidates.on : []);
  const page: RawPage & { complete: true } = {
    members: top.map((c) => c.id),
    posts: top.map((c) => c.post ?? false),
    counts: top.map((c) => (typeof c.counts === "string" ? (unpackCounters(c.counts, POST_FIELDS.length) ?? false) : (c.counts ?? false))),
    flags: [flags[0] ?? false, flags[1] ?? false, ...top.flatMap((c) => [on.has(2 * c.position + 1) && "1", on.has(2 * c.position + 2) && "1"])],
    more: ranked.length > limit,
    renew: candidates.renew === true,
    gone,
    complete: true,
  };
  return { rest: ranked.slice(limit).map((c) => c.id), page };
}

/** READ_RANKED's order between two scored candidates: score descending, ties by place (newest first). */
const rankedBefore = (a: { score: number; position: number }, b: { score: number; position: number }) => b.score - a.score || a.position - b.position;

/**
 * Two lists each in READ_RANKED's order, as one: the reader's database's share comes ranked by its
 * script, so only the other databases' candidates are sorted (a comparator sort of ~200 instead of
 * ~300 on every ranked first page at N > 1) and the two merged in one pass.
 */
function mergeRanked<T extends { score: number; position: number }>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(rankedBefore(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Redis down: the newest candidates from one Postgres statement, ranked here; `degraded: true`. */
async function rankedFromPostgres(services: Services, userId: string, offset: number, limit: number): Promise<FeedPage> {
  const candidates = await pageFromPostgres(services, userId, null, RANKED_CANDIDATES, true);
  const ranked = rank(candidates.items, Date.now());
  const items = ranked.slice(offset, offset + limit);
  return { items, nextCursor: ranked.length > offset + limit ? encodeCursor(["pg", offset + limit]) : null, degraded: true };
}
