import { expect } from "vitest";
import { api, show, type ApiResponse } from "../support/api";

export const service = () => ({ userId: "9000000000000001", role: "service" as const });

/** Every page of a /v1/me list with `limit` items a page (asserting each page's shape), in order. */
export async function pageThrough<T>(userId: string, path: string, limit: () => number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const n = limit();
    const res: ApiResponse = await api("GET", `${path}?limit=${n}${cursor ? `&cursor=${cursor}` : ""}`, { as: { userId } });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.items.length).toBeLessThanOrEqual(n);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (!cursor) return items;
    expect(res.body.items.length).toBe(n);
  }
  throw new Error("too many pages");
}

/** followers/following of users as the counters API reads them. */
export async function followCounts(...ids: string[]): Promise<Record<string, { followers: number; following: number }>> {
  const res = await api("GET", `/v1/counters/user?ids=${ids.join(",")}`);
  expect(res.status, show(res)).toBe(200);
  return Object.fromEntries(res.body.items.map((i: { id: string; counts: { followers: number; following: number } }) => [i.id, { followers: i.counts.followers, following: i.counts.following }]));
}

/** The user's notification and DM badges. */
export async function badges(userId: string) {
  const notifications = (await api("GET", "/v1/me/notifications", { as: { userId } })).body;
  const dms = (await api("GET", "/v1/me/dms", { as: { userId } })).body;
  return { notifications, dms };
}

export async function ok(res: Promise<ApiResponse> | ApiResponse): Promise<ApiResponse> {
  const r = await res;
  expect(r.status, show(r)).toBe(200);
  return r;
}
