import { env } from "cloudflare:test";
import { afterAll, expect } from "vitest";
import type { Env } from "../../src/env";
import { redisFor } from "../../src/lib/redis";
import type { Services } from "../../src/lib/services";
import { queryRows } from "../../src/counters/store";
import { servicesFor } from "../counters/support";
import { api, type As, show } from "../support/api";

export const redis = redisFor(env as unknown as Env);

/** Polls `read` until `done` holds (queue deliveries are asynchronous), failing with the last value. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms; last value: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}

export type Item = { post: { id: string; authorId: string; text: string; createdAt: string }; counts: Record<string, number>; liked: boolean; favorited: boolean };

/** GET /v1/me/feed for `userId`, failing with the response when not 200. */
export async function feed(userId: string, query = "", options: { env?: Partial<Env> } = {}) {
  const res = await api("GET", `/v1/me/feed${query ? `?${query}` : ""}`, { as: { userId }, ...options });
  if (res.status !== 200) throw new Error(show(res));
  return res.body as { items: Item[]; nextCursor: string | null; degraded: boolean };
}

/** Post ids of the whole timeline, walked page by page with `limit`. */
export async function walk(userId: string, limit = 20, options: { env?: Partial<Env> } = {}): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const page = await feed(userId, `limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, options);
    ids.push(...page.items.map((i) => i.post.id));
    cursor = page.nextCursor;
    if (!cursor) return ids;
  }
  throw new Error("more than 200 pages");
}

export async function post(as: As, text = "hello"): Promise<string> {
  const res = await api("POST", "/v1/posts", { as, body: { text } });
  expect(res.status, show(res)).toBe(201);
  return res.body.id as string;
}

export async function follow(followerId: string, followeeId: string, method: "PUT" | "DELETE" = "PUT", options: { env?: Partial<Env> } = {}) {
  const res = await api(method, `/v1/me/following/${followeeId}`, { as: { userId: followerId }, ...options });
  expect(res.status, show(res)).toBe(200);
}

export async function removePost(userId: string, postId: string) {
  const res = await api("DELETE", `/v1/posts/${postId}`, { as: { userId } });
  expect(res.status, show(res)).toBe(200);
}

/** Ids newest first, as the timeline orders them. */
export const newestFirst = (ids: string[]) => [...ids].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : BigInt(b) < BigInt(a) ? -1 : 0));

/**
 * `count` posts by `authorId` in Postgres only, in 5 age groups (the same created_at within a
 * group, 3 hours between groups): many exact ties for the ranked order's tie-break. Their ids, by
 * `k` (post k is in group k % 5).
 */
export async function insertAgedPosts(db: Services["db"], authorId: string, count: number): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    `INSERT INTO posts (author_id, text, created_at)
     SELECT $1, 'ranked ' || k, date_trunc('second', now()) - ((k % 5) * interval '3 hours') FROM generate_series(0, $2::int - 1) k
     RETURNING id::text AS id`,
    [authorId, count],
  );
  return rows.map((r) => r.id);
}

/**
 * Services for calling domain functions directly from a test file, closed after its last test: a
 * Neon pool left open holds WebSockets past the file's end, which can stall the Workers pool.
 */
export function fileServices(overrides: Partial<Env> = {}): Services {
  const { services, close } = servicesFor(overrides);
  afterAll(close);
  return services;
}

/**
 * Services whose Postgres pool runs `between` right after the first statement matching `read`
 * returns, before the consumer goes on to Redis: the interleaving "delivery reads Postgres →
 * `between` → delivery writes Redis", forced rather than hoped for.
 */
export function servicesPausingAfter(read: RegExp, between: () => Promise<unknown>) {
  const { services, close } = servicesFor();
  const pool = (services.db as unknown as { $client: { query: (text: string, params?: unknown[]) => Promise<unknown> } }).$client;
  const query = pool.query.bind(pool);
  let paused = false;
  pool.query = async (text, params) => {
    const result = await query(text, params);
    if (!paused && read.test(text)) {
      paused = true;
      await between();
    }
    return result;
  };
  return { services, close, paused: () => paused };
}
