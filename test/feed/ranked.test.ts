/**
 * The ranked feed's cursor carries its ranking (src/feed/ranked-cursor.ts): its size for the
 * largest ranking, what it refuses, and a walk over it — likes between pages change what the items
 * show, never where they are; deleted and unknown ids are skipped; the degraded cursor still walks.
 */
import { describe, expect, it } from "vitest";
import { RANKED_CANDIDATES, RANKING_TTL_MS } from "../../src/feed/keys";
import { decodeRankedCursor, encodeRankedCursor, RANKED_CURSOR_MAX_LENGTH } from "../../src/feed/ranked-cursor";
import { ApiError } from "../../src/lib/errors";
import { base64UrlEncode } from "../../src/lib/base64url";
import { encodeCursor } from "../../src/lib/pagination";
import { api, type ApiResponse, newId, show } from "../support/api";
import { eventually, follow, post, removePost, type Item } from "./support";

/** A cursor of raw varints, as a forger would write one. */
function forged(values: number[]): string {
  const bytes: number[] = [];
  for (let v of values) {
    while (v >= 0x80) {
      bytes.push((v % 0x80) + 0x80);
      v = Math.floor(v / 0x80);
    }
    bytes.push(v);
  }
  return `r1.${base64UrlEncode(Uint8Array.from(bytes))}`;
}

/** The 400 a cursor is refused with: its message, and the field it names. */
function refusal(cursor: string, now = Date.now()): [string, string] | "accepted" {
  try {
    decodeRankedCursor(cursor, now);
    return "accepted";
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "bad_request") throw err;
    return [err.message, (err.details as { field: string }[] | undefined)?.[0]?.field ?? ""];
  }
}
const INVALID = ["Invalid cursor", "cursor"];

describe("ranked cursor", () => {
  it("carries the largest ranking in at most 3,203 characters: 299 ids after a first page of one, 13-digit ids in 2,805", () => {
    const at = Date.now();
    // The smallest id and each difference from it at least 2^42 (13 digits: a 7-byte varint), or 2^49 (below 2^53: 8 bytes).
    const spread = (base: number, step: number) => Array.from({ length: RANKED_CANDIDATES - 1 }, (_, k) => String(base + (k === 0 ? 0 : step + k)));
    const thirteen = spread(4_500_000_000_000, 2 ** 42);
    const largest = spread(2 ** 50, 2 ** 52);
    expect(thirteen.every((id) => id.length === 13)).toBe(true);
    expect(largest.every((id) => Number(id) < 2 ** 53)).toBe(true);
    for (const [ids, length] of [
      [thirteen, 2_805],
      [largest, 3_203],
    ] as const) {
      const cursor = encodeRankedCursor({ at, shown: 1, ids });
      expect(cursor.length).toBe(length);
      expect(cursor.length).toBeLessThanOrEqual(RANKED_CURSOR_MAX_LENGTH);
      expect(decodeRankedCursor(cursor, at)).toEqual({ at, shown: 1, ids });
    }
    // The bench's readers (6-digit ids a few thousand apart): about 3 characters an id.
    const ids = Array.from({ length: 280 }, (_, k) => String(400_000 + ((k * 7_919) % 20_000)));
    expect(encodeRankedCursor({ at, shown: 20, ids }).length).toBeLessThan(1_000);
  });

  it("refuses what it did not write with 400 naming cursor, and a ranking past its 15 minutes as expired", () => {
    const now = Date.now();
    const good = encodeRankedCursor({ at: now, shown: 2, ids: ["17", "12", "40"] });
    expect(refusal(good, now)).toBe("accepted");
    expect(refusal(forged([now, 2, 12, 5, 0, 28]), now), "the same, written by hand").toBe("accepted");
    for (const [name, cursor] of [
      ["another tag", good.replace("r1.", "r2.")],
      ["not base64url", `${good.slice(0, -1)}*`],
      ["cut inside a varint", forged([now, 2, 12, 5, 0, 300]).slice(0, -1)],
      ["no id", forged([now, 2, 12])],
      ["an id twice", forged([now, 2, 12, 5, 5, 0])],
      ["the smallest id not among them", forged([now, 2, 12, 5, 28])],
      ["an id 0", forged([now, 2, 0, 0, 5])],
      ["a varint past 2^53", forged([now, 2, 2 ** 53, 0])],
      ["a padded varint", `r1.${base64UrlEncode(Uint8Array.from([...[0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 2, 12, 0]))}`],
      ["more ids than a ranking has", forged([now, 2, 1, ...Array.from({ length: RANKED_CANDIDATES - 1 }, (_, k) => k)])],
      ["a time ahead of the clock", forged([now + 10 * 60_000, 2, 12, 0])],
      ["longer than any ranking", `r1.${"A".repeat(RANKED_CURSOR_MAX_LENGTH)}`],
    ] as const) {
      expect(refusal(cursor, now), name).toEqual(INVALID);
    }
    expect(refusal(encodeRankedCursor({ at: now - RANKING_TTL_MS - 1, shown: 2, ids: ["12"] }), now)).toEqual(["This ranking has expired", "cursor"]);
    expect(refusal(encodeRankedCursor({ at: now - RANKING_TTL_MS + 1, shown: 2, ids: ["12"] }), now)).toBe("accepted");
  });
});

describe("GET /v1/me/feed?order=ranked over the cursor's ranking", () => {
  const ids = (items: Item[]) => items.map((i) => i.post.id);
  async function walk(reader: string, cursor: string, limit: number): Promise<Item[]> {
    const items: Item[] = [];
    for (let next: string | null = cursor; next; ) {
      const res: ApiResponse = await api("GET", `/v1/me/feed?order=ranked&limit=${limit}&cursor=${next}`, { as: { userId: reader } });
      expect(res.status, show(res)).toBe(200);
      items.push(...res.body.items);
      next = res.body.nextCursor;
    }
    return items;
  }

  it("likes between pages change what the later items show, never their order: no item moves, repeats or is skipped", async () => {
    const [reader, author] = [newId(), newId()];
    await follow(reader, author);
    const posts: string[] = [];
    for (let i = 0; i < 9; i++) posts.push(await post({ userId: author }, `p${i}`));
    const first = await api("GET", "/v1/me/feed?order=ranked&limit=3", { as: { userId: reader } });
    expect(first.status, show(first)).toBe(200);
    const cursor = first.body.nextCursor as string;
    const before = await walk(reader, cursor, 2);
    expect([...ids(first.body.items), ...ids(before)].sort()).toEqual([...posts].sort());
    // The last three items of the ranking get liked, by the reader and others: they would rank first now.
    const liked = ids(before).slice(-3);
    for (const id of liked) {
      for (const who of [reader, newId(), newId()]) {
        const res = await api("PUT", `/v1/posts/${id}/likes/me`, { as: { userId: who } });
        expect(res.status, show(res)).toBe(200);
      }
    }
    const after = await eventually(
      () => walk(reader, cursor, 2),
      (items) => items.filter((i) => liked.includes(i.post.id)).every((i) => i.liked && i.counts.likes === 3),
    );
    expect(ids(after), "the same ranking: no item moved, repeated or was skipped").toEqual(ids(before));
    // A new ranking (no cursor) puts them first.
    const fresh = await api("GET", "/v1/me/feed?order=ranked&limit=3", { as: { userId: reader } });
    expect(new Set(ids(fresh.body.items))).toEqual(new Set(liked));
  });

  it("skips deleted and unknown posts a cursor names; the degraded Postgres cursor still walks", async () => {
    const [reader, author] = [newId(), newId()];
    await follow(reader, author);
    const posts: string[] = [];
    for (let i = 0; i < 4; i++) posts.push(await post({ userId: author }, `q${i}`));
    await removePost(author, posts[1]!);
    const unknown = String(Number(posts[3]) + 1_000_000_000);
    const cursor = encodeRankedCursor({ at: Date.now(), shown: 1, ids: [posts[0]!, posts[1]!, unknown, posts[2]!] });
    // The walk from there shows the live posts only, in the ranking's order. Whether a page reads
    // on past what it leaves out (a reader with something hidden, or anyone suspended in the
    // deployment: the author of each id is checked) or ends short (nothing to hide: the ids as
    // they are, the Worker drops what it cannot show) depends on state other test files share.
    const shown: string[] = [];
    let next: string | null = cursor;
    for (let pages = 0; next && pages < 4; pages++) {
      const res: { status: number; body: any; headers: Headers } = await api("GET", `/v1/me/feed?order=ranked&limit=3&cursor=${next}`, { as: { userId: reader } });
      expect(res.status, show(res)).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(3);
      shown.push(...ids(res.body.items));
      next = res.body.nextCursor;
    }
    expect([shown, next]).toEqual([[posts[0], posts[2]], null]);

    const degraded = await api("GET", `/v1/me/feed?order=ranked&limit=2&cursor=${encodeCursor(["pg", 0])}`, { as: { userId: reader } });
    expect(degraded.status, show(degraded)).toBe(200);
    expect(degraded.body.degraded).toBe(true);
    expect(degraded.body.items).toHaveLength(2);
    expect(degraded.body.nextCursor).toBe(encodeCursor(["pg", 2]));
  });
});
