import { readCounters } from "../counters/counters";
import { isoTimestamp } from "../db/columns";
import { ApiError, DependencyUnavailableError, isRedisCommandError } from "../lib/errors";
import { rawCommand } from "../lib/redis";
import { runReadOnly } from "../lib/read-only-scripts";
import { commandFailure, isBudgetRefusal, isRedisOutage } from "../lib/redis-failures";
import { databaseOf } from "../lib/redis-topology";
import type { Services } from "../lib/services";
import { blockedAmong } from "../safety/cache";
import { isSuspended, moderationCopy } from "../safety/copy";
import { safetyKeysOf } from "../safety/keys";
import { blockedError } from "../safety/store";
import { READ_POST_DETAIL } from "./detail.lua";
import { feedKeys, TOMBSTONE } from "./keys";
import { postCopies } from "./post-copies";
import { readPostDetailRow } from "./store";
import { afterAnswer, encodeCachedPost, postCounts, readFlags, writeFill, type Flags, type Post, type PostCounts } from "./timeline";

/** A post as its own screen shows it: the post, its counts, and the reader's like and favourite. */
export type PostDetail = Post & { counts: PostCounts } & Flags;

const NO_FLAGS: Flags = { liked: false, favorited: false };

/**
 * A live post's detail (`GET /v1/posts/{id}`), from the caches a feed page reads, all of them
 * read-only, so the read region next to the reader answers it: the post's entry (`feed:post:{id}`,
 * on the post's database), its cached counters (the counters' read; not cached: read and cached
 * by the counters once the post is known live), and the reader's flags hash (on the reader's
 * database), side by side. A block between reader and author is asked of safety's cached sets
 * once the author is known: in the entry's own call when post and reader share a database (always
 * at N = 1), beside the rest when this isolate has drawn the post before (the author of a post
 * never changes), else right after the entry (a second near round): `firstRound`.
 *
 * 404 for a deleted post (tombstone), one held by the term filter (never cached: its entry is
 * written when it is published), one by a suspended author (the isolate's copy), or none; 403
 * `blocked` either way of a block. A miss reads Postgres (one statement, the block check in it)
 * and caches the entry or tombstone after the answer; flags the hash cannot answer are read from
 * Postgres and extend the hash (the page's rule, `readFlags`). Redis down: Postgres answers
 * (the counters' own fallback for the counts); so does a database over its command budget.
 */
export async function readPostDetail(services: Services, postId: string, readerId?: string): Promise<PostDetail> {
  const [{ entry, flagsRead, earlyBlock }, counts] = await Promise.all([
    firstRound(services, postId, readerId),
    // Cached values only: a post that turns out deleted must not have its counters cached back.
    readCounters(services, "post", [postId], { cachedOnly: true }).then(
      (value) => ({ status: "fulfilled" as const, value }),
      (reason: unknown) => ({ status: "rejected" as const, reason }),
    ),
  ]);
  const asksBlock = (authorId: string) => readerId !== undefined && readerId !== authorId;
  if (counts.status === "rejected") throw counts.reason;

  let post: Post;
  let blocked: boolean | undefined;
  const cached = entry.status === "fulfilled" ? entry.value : undefined;
  if (entry.status === "rejected" && !redisCannotAnswer(entry.reason)) throw entry.reason;
  if (cached === TOMBSTONE) throw notFound(postId);
  if (typeof cached === "string") {
    const [authorId, text, createdAt] = JSON.parse(cached) as [string, string, string];
    post = { id: postId, authorId, text, createdAt };
    postCopies.keep(postId, cached);
  } else {
    // Not cached (or Redis down): Postgres says what the post is, and the block with it.
    const row = await readPostDetailRow(services.db, postId, readerId);
    if (!row || row.deleted || row.held) {
      if (row?.deleted && entry.status === "fulfilled") afterAnswer(services, "post detail fill", writeFill(services, postId, { posts: [[postId, TOMBSTONE]] }));
      throw notFound(postId);
    }
    post = { id: postId, authorId: row.author_id, text: row.text, createdAt: isoTimestamp(row.created_at) };
    blocked = row.blocked;
    // NX: a tombstone written meanwhile wins (FILL_CACHES).
    if (entry.status === "fulfilled") afterAnswer(services, "post detail fill", writeFill(services, postId, { posts: [[postId, encodeCachedPost(post)]] }));
  }
  if (isSuspended(await moderationCopy(services), post.authorId)) throw notFound(postId);
  if (blocked === undefined && asksBlock(post.authorId)) blocked = await blockStands(services, readerId!, post, earlyBlock);
  if (blocked) throw blockedError("You cannot read this post");

  const [row, flags] = await Promise.all([
    counts.value.values.get(postId) ?? readCounters(services, "post", [postId]).then((read) => read.values.get(postId)),
    readerId === undefined ? NO_FLAGS : readerFlags(services, readerId, postId, flagsRead),
  ]);
  return { ...post, counts: postCounts(row), ...flags };
}

type FirstRound = { entry: PromiseSettledResult<unknown>; flagsRead: PromiseSettledResult<unknown>; earlyBlock: PromiseSettledResult<Set<string> | null> };

/**
 * The first (near) round: the entry, the reader's flag fields and, when it can be asked already,
 * the block. Post and reader on one database (always at N = 1): one read-only call answers all
 * three (`READ_POST_DETAIL`). Otherwise a GET of the entry and an HMGET of the flags side by side,
 * and the block beside them when this isolate has drawn the post before (its copy names the
 * author, which never changes); else it is asked once the entry named the author.
 */
async function firstRound(services: Services, postId: string, readerId: string | undefined): Promise<FirstRound> {
  const none = { status: "fulfilled" as const, value: null };
  if (readerId !== undefined && databaseOf(readerId, services.databases) === databaseOf(postId, services.databases)) {
    try {
      const raw = await runReadOnly<string>(services.redisFor(postId), READ_POST_DETAIL, [feedKeys.post(postId), feedKeys.flags(readerId), ...safetyKeysOf(readerId)], [postId, readerId]);
      const got = (typeof raw === "string" ? JSON.parse(raw) : raw) as { entry: string | false; flags: (string | false)[]; safety?: "blocked" | "ok" | "miss" };
      const author = typeof got.entry === "string" && got.entry !== TOMBSTONE ? (JSON.parse(got.entry) as [string])[0] : undefined;
      const block = got.safety === "blocked" ? new Set([author!]) : got.safety === "ok" ? new Set<string>() : null;
      return {
        entry: { status: "fulfilled", value: got.entry === false ? null : got.entry },
        flagsRead: { status: "fulfilled", value: got.flags.map((f) => (f === false ? null : f)) },
        earlyBlock: { status: "fulfilled", value: block },
      };
    } catch (err) {
      if (isRedisCommandError(err) && !isBudgetRefusal(err)) throw commandFailure("Post detail script", err);
      const failed = { status: "rejected" as const, reason: err };
      return { entry: failed, flagsRead: failed, earlyBlock: none };
    }
  }
  const copy = postCopies.get(postId);
  const knownAuthor = copy === undefined ? undefined : (JSON.parse(copy) as [string])[0];
  const [entry, flagsRead, earlyBlock] = await Promise.allSettled([
    rawCommand(services.redisFor(postId), ["GET", feedKeys.post(postId)]),
    readerId === undefined ? Promise.resolve(null) : rawCommand(services.redisFor(readerId), ["HMGET", feedKeys.flags(readerId), "f", "x", `l${postId}`, `v${postId}`]),
    knownAuthor !== undefined && readerId !== undefined && readerId !== knownAuthor ? blockedAmong(services, readerId, [knownAuthor]) : Promise.resolve(null),
  ]);
  return { entry, flagsRead, earlyBlock };
}

/** Redis down, or the database over its command budget: Postgres answers what Redis would have. */
const redisCannotAnswer = (err: unknown) => isRedisOutage(err) || isBudgetRefusal(err);

const notFound = (postId: string) => new ApiError("not_found", `Post ${postId} not found`);

/** Whether a block stands between the reader and the post's author: the early answer, else safety's sets now; Postgres when Redis is down. */
async function blockStands(services: Services, readerId: string, post: Post, early: PromiseSettledResult<Set<string> | null>): Promise<boolean> {
  try {
    const among = early.status === "fulfilled" && early.value !== null ? early.value : await blockedAmong(services, readerId, [post.authorId]);
    return among.has(post.authorId);
  } catch (err) {
    if (!(err instanceof DependencyUnavailableError) && !redisCannotAnswer(err)) throw err;
    const row = await readPostDetailRow(services.db, post.id, readerId);
    return row?.blocked === true;
  }
}

/**
 * The reader's like and favourite: the flags hash answers for posts at or above its floor (built,
 * not overflowed), as on a feed page; otherwise Postgres, which extends the hash down to this post
 * after the answer (or, Redis down, answers alone).
 */
async function readerFlags(services: Services, readerId: string, postId: string, read: PromiseSettledResult<unknown>): Promise<Flags> {
  const fields = read.status === "fulfilled" && Array.isArray(read.value) ? (read.value as (string | null)[]) : undefined;
  if (read.status === "rejected" && !redisCannotAnswer(read.reason)) throw read.reason;
  const [floor, overflowed, liked, favorited] = fields ?? [];
  const hashFloor = typeof floor === "string" && !overflowed ? floor : null;
  if (hashFloor !== null && BigInt(postId) >= BigInt(hashFloor)) return { liked: liked === "1", favorited: favorited === "1" };
  const got = await readFlags(services, readerId, [{ id: postId }], hashFloor, fields === undefined || Boolean(overflowed));
  const kinds = new Set(got.rows.filter((r) => r.post_id === postId).map((r) => r.kind));
  if (got.build && fields !== undefined) {
    afterAnswer(services, "post detail flags fill", writeFill(services, readerId, { posts: [], flags: { ...got.build, seen: typeof floor === "string" ? floor : "", rows: got.rows } }));
  }
  return { liked: kinds.has("l"), favorited: kinds.has("v") };
}
