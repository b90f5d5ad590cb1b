import { runScript } from "../lib/run-script";
import type { Services } from "../lib/services";
import type { NotifyKind } from "./alerts";
import { COUNT_IN_AUTHOR_WINDOW } from "./author-windows.lua";
import { MAX_AUTHOR_THREAD_WINDOWS, notifyKeys, WINDOW_SLACK_SECONDS } from "./keys";
import { COUNT_IN_WINDOW } from "./windows.lua";

/**
 * Bursts collapse: a batch window per user and thread. The first event of a window enqueues one
 * push delayed by the window and marks the window in Redis (the user's database, with a TTL);
 * later events in it only count. When the push is sent it reads and clears the count (GETDEL) and
 * says "… and N others". 50 likes on one post in a minute are one or two pushes, not 50; so are
 * a chosen author's posts in a row, whatever threads they name (`openedAuthorWindow`). Direct messages, mentions and replies have no window: each is
 * sent at once (the platforms' collapse key, the thread, still replaces an undelivered one).
 */

/** Seconds of a kind's (and notification type's) batch window; 0: none. An author posting a thread of posts is one push too. */
export function windowSeconds(kind: NotifyKind, type?: string): number {
  if (kind === "notification" && (type === "like" || type === "follow" || type === "repost")) return 30;
  if (kind === "author") return 30;
  return 0;
}

/**
 * Counts an event in the window; true when it opened it (then its caller enqueues the delayed
 * push). The opener bills one command (SET NX EX); a later event three (that SET, then EVALSHA +
 * INCR): a lone event, the most common, stays cheapest. The script, not a bare INCR, counts the
 * later ones, so a window whose key vanished in between (its push took it) is opened again with a
 * TTL rather than left without one.
 */
export async function openedWindow(services: Pick<Services, "redisFor">, userId: string, thread: string, seconds: number): Promise<boolean> {
  const redis = services.redisFor(userId);
  const key = notifyKeys.window(userId, thread);
  const ttl = seconds + WINDOW_SLACK_SECONDS;
  if ((await redis.set(key, 1, { nx: true, ex: ttl })) === "OK") return true;
  return Number(await runScript<number>(redis, COUNT_IN_WINDOW, [key], [ttl])) === 1;
}

/** The thread of a chosen author's posts whose alert names none, and the author's own window. */
export const authorThread = (authorId: string) => `author:${authorId}`;

/**
 * `openedWindow` for a chosen author's post: the window it counts in is the thread's while that
 * thread has one open or fewer than MAX_AUTHOR_THREAD_WINDOWS of the author's threads do, else
 * the author's own (`author:{authorId}`). The author chooses the thread, so a thread per post
 * cannot mean a push per post. Returns the window's thread when this post opened it (the push
 * then shows that thread), undefined when it was counted in one already open. One SET NX for a
 * post on the author's own thread (as any window); one EVALSHA for a thread of the author's.
 */
export async function openedAuthorWindow(services: Pick<Services, "redisFor">, userId: string, authorId: string, thread: string, seconds: number): Promise<string | undefined> {
  const own = authorThread(authorId);
  if (thread === own) return (await openedWindow(services, userId, own, seconds)) ? own : undefined;
  const keys = [notifyKeys.window(userId, thread), notifyKeys.window(userId, own), notifyKeys.authorThreads(userId, authorId)];
  const [n, inThread] = await runScript<[number, number]>(services.redisFor(userId), COUNT_IN_AUTHOR_WINDOW, keys, [seconds + WINDOW_SLACK_SECONDS, MAX_AUTHOR_THREAD_WINDOWS]);
  if (Number(n) !== 1) return undefined;
  return Number(inThread) === 1 ? thread : own;
}

/** The events of a window past its first (what "… and N others" says), clearing it. One GETDEL. */
export async function takeWindowCount(services: Pick<Services, "redisFor">, userId: string, thread: string): Promise<number> {
  const n = await services.redisFor(userId).getdel<number | string>(notifyKeys.window(userId, thread));
  return Math.max(0, Number(n ?? 0) - 1);
}
