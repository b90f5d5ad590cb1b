/** Helpers of the follow-list tests (`follow-lists*.test.ts`): the API's pages, Postgres' own (the oracle) and the cached lists. */
import { expect } from "vitest";
import { isoTimestamp } from "../../src/db/columns";
import type { Env } from "../../src/env";
import { queryRows } from "../../src/lib/db";
import { encodeCursor } from "../../src/lib/pagination";
import type { Services } from "../../src/lib/services";
import { followListKeys, type FollowDirection } from "../../src/social/keys";
import { api, show } from "../support/api";

export type Page = { items: { userId: string; followedAt: string }[]; nextCursor: string | null };

export function followListHelpers(services: Services) {
  /** Through this isolate's Worker, which waits for the request's background work (a build) as the runtime does. */
  const here: Partial<Env> = {};

  async function listPage(direction: FollowDirection, userId: string, limit: number, cursor: string | null, env: Partial<Env> = here): Promise<Page> {
    const res = await api("GET", `/v1/users/${userId}/${direction}?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { env });
    expect(res.status, show(res)).toBe(200);
    return res.body as Page;
  }

  /** The whole list as Postgres holds it, newest first, without `hidden` (the oracle; its own SQL). */
  async function postgresEdges(direction: FollowDirection, userId: string, hidden: ReadonlySet<string> = new Set()) {
    const [self, other] = direction === "followers" ? ["followee_id", "follower_id"] : ["follower_id", "followee_id"];
    const rows = await queryRows<{ id: string; at: string }>(
      services.db,
      `SELECT ${other}::text AS id, created_at::text AS at FROM follows WHERE ${self} = $1 ORDER BY created_at DESC, ${other} DESC`,
      [userId],
    );
    return rows.filter((r) => !hidden.has(r.id));
  }

  /** Postgres' page at `offset` as the endpoint has always answered it (toPage's items and cursor). */
  function expectedPage(edges: { id: string; at: string }[], offset: number, limit: number): Page {
    const rows = edges.slice(offset, offset + limit);
    const more = edges.length > offset + limit;
    const last = rows[rows.length - 1];
    return { items: rows.map((r) => ({ userId: r.id, followedAt: isoTimestamp(r.at) })), nextCursor: more && last ? encodeCursor([last.at, last.id]) : null };
  }

  /** Walks the list through the API with page sizes from `sizes`, each page compared field by field with Postgres'. */
  async function expectExact(direction: FollowDirection, userId: string, options: { hidden?: ReadonlySet<string>; sizes?: () => number; env?: Partial<Env> } = {}) {
    const edges = await postgresEdges(direction, userId, options.hidden);
    let cursor: string | null = null;
    let offset = 0;
    let pages = 0;
    do {
      const limit = options.sizes ? options.sizes() : 100;
      const page = await listPage(direction, userId, limit, cursor, options.env);
      expect(page, `${direction} of ${userId}, page ${pages} (offset ${offset}, limit ${limit})`).toEqual(expectedPage(edges, offset, limit));
      cursor = page.nextCursor;
      offset += limit;
      pages++;
    } while (cursor && pages < 200);
    return edges;
  }

  /** The cached list: the other users in order (sentinel apart) and which sentinel it has. */
  async function cachedList(direction: FollowDirection, userId: string) {
    const raw = (await services.redisFor(userId).zrange(followListKeys.list(direction, userId), 0, -1, { rev: true })) as string[];
    return { ids: raw.filter((m) => !m.startsWith("#")).map((m) => m.replace(/^0+/, "")), sentinel: raw.find((m) => m.startsWith("#")) };
  }

  const follow = (follower: string, followee: string, env: Partial<Env> = here) => api("PUT", `/v1/me/following/${followee}`, { as: { userId: follower }, env });
  const unfollowOf = (follower: string, followee: string, env: Partial<Env> = here) => api("DELETE", `/v1/me/following/${followee}`, { as: { userId: follower }, env });

  return { here, listPage, postgresEdges, expectedPage, expectExact, cachedList, follow, unfollowOf };
}
