import { recordFanoutCompletion } from "../lib/ops/record";
import { isRedisCommandError } from "../lib/errors";
import { commandFailure } from "../lib/redis-failures";
import { groupByDatabase, settleEach } from "../lib/redis-topology";
import type { ScriptRunner } from "../lib/script-batch";
import type { Services } from "../lib/services";
import { DELIVER_PAGE, POST_IS_LIVE } from "./deliver.lua";
import { copyToOutboxes, onEveryDatabase } from "./everywhere";
import { SYNC_FOLLOW } from "./follow.lua";
import { feedKeys, FOLLOW_COPY, OUTBOX_CAP, OUTBOX_TTL_SECONDS, TIMELINE_TTL_SECONDS, timelineMember, TOMBSTONE } from "./keys";
import { FANOUT_PAGE_SIZE, type FeedMessage, MAX_FANOUT_PAGES, SEND_BATCH_LIMIT } from "./messages";
import { endTransition, readFollowerPage, readNewestPostIds, readPageStarts } from "./store";
import { BEGIN_TRANSITION, END_TRANSITION, FILL_OUTBOX, TRANSITION_PAGE } from "./transition.lua";
import { timelineCap } from "./timeline";
import { safetyNow } from "../safety/clock";
import { safetyKeysOf } from "../safety/keys";

/** What handling one message did, for the consumer's log line and the tests. */
export type Delivery =
  | { kind: "fanout"; followers: number; touched: number; next: boolean }
  | { kind: "sync"; outcome: string }
  | { kind: "big-post"; op: "add" | "remove"; announced: boolean }
  | { kind: "transition"; to: "big" | "normal"; followers: number; touched: number; next: boolean };

async function script<T>(redis: ScriptRunner, source: string, keys: string[], args: (string | number)[]): Promise<T> {
  try {
    return (await redis.createScript(source).exec(keys, args.map(String))) as T;
  } catch (err) {
    throw isRedisCommandError(err) ? commandFailure("Feed delivery script", err) : err;
  }
}

/**
 * One page of an author's followers and the keyset of the next page (null on the last). One row
 * more than a page tells whether a next page exists, so the last page sends no empty message.
 */
async function followerPage(services: Pick<Services, "db">, authorId: string, after: { createdAt: string; followerId: string } | null) {
  const rows = await readFollowerPage(services.db, authorId, after, FANOUT_PAGE_SIZE + 1);
  const page = rows.slice(0, FANOUT_PAGE_SIZE);
  const last = page[page.length - 1];
  const next = rows.length > FANOUT_PAGE_SIZE && last ? { createdAt: last.created_at, followerId: last.follower_id } : null;
  return { page, next };
}

/**
 * Handles one queue message. Fan-out: one Postgres page of followers, ONE Redis call for the whole
 * page; the first page then enqueues every other page as its own message (so a 100,000-follower
 * fan-out is 100 small retriable messages, delivered in parallel). Sync: the followee's newest posts from Postgres, one Redis call that acts
 * on the latest follow intent. Throws on failure: the queue retries, then dead-letters.
 */
export async function deliver(services: Services, message: FeedMessage): Promise<Delivery> {
  const cap = timelineCap(services.env);
  if (message.kind === "fanout") {
    const { page, next } = await followerPage(services, message.authorId, message.after);
    const [touched, landed] = await deliverPage(services, message, cap, page.map((f) => f.follower_id));
    // The page announces whom the post reached (live badges push from it; one call per hub shard,
    // no second walk of the followers): `add` names the followers still following and whether the
    // post was new to their timeline; `remove` names the page's followers. Followers who unfollowed
    // since the page was read (negated positions) are not named.
    if (page.length > 0) {
      const followers = page.map((f) => f.follower_id);
      let reached: { userId: string; landed: boolean }[];
      if (message.op === "add") {
        const at = (i: number) => followers[Math.abs(i) - 1]!;
        const inFeed = new Set(landed.filter((i) => Number(i) > 0).map((i) => at(Number(i))));
        const gone = new Set(landed.filter((i) => Number(i) < 0).map((i) => at(Number(i))));
        reached = followers.filter((u) => !gone.has(u)).map((userId) => ({ userId, landed: inFeed.has(userId) }));
      } else {
        reached = followers.map((userId) => ({ userId, landed: false }));
      }
      const event = { type: "feed.delivered", op: message.op, postId: message.postId, authorId: message.authorId, followers: reached, publishedAt: message.publishedAt, at: Date.now() } as const;
      services.waitUntil(services.events.emit(event, services));
    }
    // The first page, once delivered, enqueues all the others (a failed send retries this
    // idempotent page and sends them again; a duplicate page changes nothing).
    let enqueued = 0;
    if (message.after === null && !message.split && next) {
      const starts = await readPageStarts(services.db, message.authorId, FANOUT_PAGE_SIZE, MAX_FANOUT_PAGES);
      for (let i = 0; i < starts.length; i += SEND_BATCH_LIMIT) {
        const batch = starts.slice(i, i + SEND_BATCH_LIMIT);
        await services.env.FEED_QUEUE.sendBatch(batch.map((s) => ({ body: { ...message, after: { createdAt: s.created_at, followerId: s.follower_id }, split: true } })));
        enqueued += batch.length;
      }
    }
    // The fan-out is complete when its last page (in keyset order: the author's oldest followers)
    // is delivered: one XADD, recorded for the operations view (`GET /v1/admin/status`). Pages run
    // in parallel, so another page may still finish a moment later; a page retried after it
    // recorded (its ack lost) records once more. Either way the figure is publish → the last
    // followers' timelines, as the queue delivered them.
    if (message.op === "add" && next === null && page.length > 0 && message.publishedAt !== undefined) {
      await recordFanoutCompletion(services.redis, message.postId, message.publishedAt);
    }
    return { kind: "fanout", followers: page.length, touched: Number(touched), next: enqueued > 0 };
  }
  if (message.kind === "big-post") {
    // Its followers are never walked: the announcement carries the author, and live badges reach
    // its online followers through one call per hub shard. A post deleted while this waited in the
    // queue is not announced (its delete is).
    // The tombstone is on every database: the post's own (at N = 1 the one database, `services.redis`).
    const postRedis = services.databases === 1 ? services.redis : services.redisFor(message.postId);
    const live = message.op === "remove" || Number(await script<number>(postRedis, POST_IS_LIVE, [feedKeys.post(message.postId)], [TOMBSTONE])) === 1;
    // N > 1: the post into every database's outbox copy again (the publish's copy may have missed a
    // database that was down: this retries until every one has it; idempotent).
    if (live && message.op === "add" && services.databases > 1) await copyToOutboxes(services, message.postId, message.authorId, -1);
    if (live) {
      const event = { type: "feed.big-posted", op: message.op, postId: message.postId, authorId: message.authorId, publishedAt: message.publishedAt, at: Date.now() } as const;
      await services.events.emit(event, services);
    }
    return { kind: "big-post", op: message.op, announced: live };
  }
  if (message.kind === "sync") {
    const posts = await readNewestPostIds(services.db, message.followeeId, FOLLOW_COPY);
    const pairs = posts.flatMap((p) => [timelineMember(p.id, message.followeeId), p.id]);
    const outcome = await script<string>(
      services.redisFor(message.followerId),
      SYNC_FOLLOW,
      [feedKeys.timeline(message.followerId), feedKeys.intent(message.followerId, message.followeeId), feedKeys.bigFollows(message.followerId), feedKeys.bigStates(), ...safetyKeysOf(message.followerId).slice(0, 3)],
      [message.followeeId, cap, TIMELINE_TTL_SECONDS, safetyNow(services.env), ...pairs],
    );
    // Posts copied in, or a big account pulled or dropped: the follower's `feed` badge and pulled set
    // moved. A sync that changed nothing ('unchanged', 'none', 'expired') pushes nothing: a late
    // re-read would only race the in-place moves of a fan-out page for no gain.
    if (outcome === "added" || outcome === "pulled" || outcome === "removed") {
      await services.events.emit({ type: "feed.timelines-changed", userIds: [message.followerId], at: Date.now() }, services);
    }
    return { kind: "sync", outcome: String(outcome) };
  }
  if (message.kind === "transition") return transition(services, message, cap);
  throw new Error(`Unknown feed message ${JSON.stringify(message)}`);
}

/**
 * One page of a big-account transition. The first page starts it (the state first, so posts
 * published from now on reach the outbox; then, for `to: "big"`, the outbox from Postgres), every
 * page walks 1,000 followers, the last one ends it (Postgres, then Redis). Idempotent per page.
 */
async function transition(
  services: Services,
  message: Extract<FeedMessage, { kind: "transition" }>,
  cap: number,
): Promise<Delivery> {
  const { authorId, to } = message;
  const op = to === "big" ? "to-big" : "to-normal";
  if (message.after === null) {
    // The state, the outbox and the activity set are on every database (one call each, in parallel).
    await onEveryDatabase(services, (redis) => script(redis, BEGIN_TRANSITION, [feedKeys.bigStates(), feedKeys.outbox(authorId)], [authorId, op]));
    if (to === "big") {
      const posts = await readNewestPostIds(services.db, authorId, OUTBOX_CAP);
      const pairs = posts.flatMap((p) => [timelineMember(p.id, authorId), p.id]);
      await onEveryDatabase(services, (redis) => script(redis, FILL_OUTBOX, [feedKeys.outbox(authorId), feedKeys.activity()], [authorId, OUTBOX_CAP, ...pairs]));
    }
  }
  const { page, next } = await followerPage(services, authorId, message.after);
  // One call per database holding some of the page's followers, in parallel (each reads its own outbox copy).
  const byDatabase = groupByDatabase(page, (f) => f.follower_id, services.databases);
  const settled = await settleEach(byDatabase, (index, list) =>
    script<number>(
      services.redisAt(index),
      TRANSITION_PAGE,
      [
        feedKeys.outbox(authorId),
        ...list.flatMap((f) => [feedKeys.timeline(f.follower_id), feedKeys.bigFollows(f.follower_id), feedKeys.intent(f.follower_id, authorId), ...safetyKeysOf(f.follower_id).slice(0, 3)]),
      ],
      [op, authorId, cap, TIMELINE_TTL_SECONDS, safetyNow(services.env)],
    ),
  );
  let touched = 0;
  for (const outcome of settled.values()) {
    if (outcome.status === "rejected") throw outcome.reason; // the page is retried whole: idempotent
    touched += Number(outcome.value);
  }
  // The page's followers pull the account now (or stopped pulling it): live hubs learn it by a read.
  if (Number(touched) > 0) await services.events.emit({ type: "feed.timelines-changed", userIds: page.map((f) => f.follower_id), at: Date.now() }, services);
  if (next) {
    await services.env.FEED_QUEUE.send({ ...message, after: next });
  } else {
    await endTransition(services.db, authorId, to);
    await onEveryDatabase(services, (redis) => script(redis, END_TRANSITION, [feedKeys.bigStates(), feedKeys.outbox(authorId), feedKeys.activity()], [authorId, to, OUTBOX_TTL_SECONDS]));
  }
  return { kind: "transition", to, followers: page.length, touched: Number(touched), next: next !== null };
}

/**
 * One fan-out page: one DELIVER_PAGE call per database holding some of the followers, in parallel
 * (one call at N = 1). Each database checks its own copy of the post's tombstone (a delete writes it
 * to every database). Answers the timelines touched and, for the page as a whole, DELIVER_PAGE's
 * positions (1-based in `followers`, negated for the unfollowed). A database failing fails the page
 * once all are settled: the queue retries it whole, and a page delivered twice changes nothing.
 */
async function deliverPage(
  services: Services,
  message: Extract<FeedMessage, { kind: "fanout" }>,
  cap: number,
  followers: string[],
): Promise<[number, number[]]> {
  if (followers.length === 0) return [0, []];
  const positions = followers.map((userId, i) => ({ userId, at: i + 1 }));
  const byDatabase = groupByDatabase(positions, (p) => p.userId, services.databases);
  const settled = await settleEach(byDatabase, (index, list) =>
    script<number[]>(
      services.redisAt(index),
      DELIVER_PAGE,
      [
        feedKeys.post(message.postId),
        ...list.map((p) => feedKeys.timeline(p.userId)),
        ...list.map((p) => feedKeys.intent(p.userId, message.authorId)),
        // An add checks each follower's safety sets (src/safety) on the follower's database.
        ...(message.op === "add" ? list.flatMap((p) => safetyKeysOf(p.userId).slice(0, 3)) : []),
      ],
      [message.op, timelineMember(message.postId, message.authorId), message.postId, cap, TOMBSTONE, ...(message.op === "add" ? [message.authorId, safetyNow(services.env)] : [])],
    ),
  );
  let touched = 0;
  const landed: number[] = [];
  for (const [index, list] of byDatabase) {
    const outcome = settled.get(index)!;
    if (outcome.status === "rejected") throw outcome.reason;
    const [count = 0, ...local] = outcome.value;
    touched += Number(count);
    for (const i of local) landed.push(Math.sign(Number(i)) * list[Math.abs(Number(i)) - 1]!.at);
  }
  return [touched, landed];
}

