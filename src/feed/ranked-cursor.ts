/**
 * The ranked feed's cursor carries its ranking: the ranking's time and the ids of the ranked posts
 * not shown yet, so a next page reads exactly its slice through the read-only page path and no
 * ranking is stored anywhere (a read region answers every page; docs/feed.md, "Ranked feed").
 *
 * Format: `r1.` + base64url of varints (7 bits a byte, low first): the ranking's time (ms since the
 * epoch), how many of its items the walk has shown (where a degraded page ranked from Postgres
 * goes on), the smallest id, then each id minus that smallest one, in ranked order. Ids are below
 * 2^53 (they are zset scores), so a varint is at most 8 bytes. The longest cursor follows a first
 * page of one item: RANKED_CANDIDATES - 1 = 299 ids, 6 (time) + 1 (shown) + 8 (smallest id) + 1
 * (its own difference, 0) + 298 × 8 = 2,400 bytes, 3,203 characters with the tag; with 13-digit
 * ids (below 2^44: 7 bytes) 2,805 (test/feed/ranked.test.ts) — RANKED_CURSOR_MAX_LENGTH (4 KB)
 * bounds what the route accepts.
 *
 * Not signed: a cursor names posts, and every post is readable by anyone (`GET /v1/posts/{id}`
 * needs no token); the flags a page shows are the caller's own; deleted and unknown ids are skipped
 * as on any page. A forged cursor shows nothing its caller could not read otherwise, and costs what
 * a page of `limit` posts costs.
 */
import { ApiError } from "../lib/errors";
import { base64UrlDecode, base64UrlEncode } from "../lib/base64url";
import { RANKED_CANDIDATES, RANKING_TTL_MS } from "./keys";

const TAG = "r1.";
/** The longest cursor a ranking can give (299 ids below 2^53, see above), and what the route accepts. */
export const RANKED_CURSOR_MAX_LENGTH = 4096;
/** A cursor's time may run ahead of this Worker's clock by this much (isolates' clocks), no more. */
const CLOCK_SKEW_MS = 60_000;
/** Varints above this are not ids or times this endpoint writes. */
const MAX_VALUE = Number.MAX_SAFE_INTEGER;

/** A ranking's time, how many of its items were shown, and the ids of the others, ranked. */
export type RankedCursor = { at: number; shown: number; ids: string[] };

const invalid = () => new ApiError("bad_request", "Invalid cursor", [{ field: "cursor", message: "is not a cursor this endpoint issued" }]);
const expired = () => new ApiError("bad_request", "This ranking has expired", [{ field: "cursor", message: "names a ranking that expired: start again without a cursor" }]);

/** Whether `cursor` is in this module's format (the degraded and older formats are not). */
export const isRankedCursor = (cursor: string) => cursor.startsWith(TAG);

function pushVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) + 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** The cursor of the ranking made at `at` (ms) whose first `shown` items were shown: `ids` (post ids, decimal) follow, in ranked order. */
export function encodeRankedCursor({ at, shown, ids }: RankedCursor): string {
  const values = ids.map(Number);
  const base = Math.min(...values);
  const bytes: number[] = [];
  pushVarint(bytes, at);
  pushVarint(bytes, shown);
  pushVarint(bytes, base);
  for (const v of values) pushVarint(bytes, v - base);
  return TAG + base64UrlEncode(Uint8Array.from(bytes));
}

/**
 * The ranking a cursor carries. Anything this module did not write — a bad tag, bad base64url, a
 * varint that runs past the end or past 2^53, no id or more than RANKED_CANDIDATES with those
 * shown, an id twice or not positive, a time ahead of the clock — is a 400 naming `cursor`; a ranking older than
 * RANKING_TTL_MS is the 400 "This ranking has expired" (start again without a cursor).
 */
export function decodeRankedCursor(cursor: string, now: number): RankedCursor {
  if (!isRankedCursor(cursor) || cursor.length > RANKED_CURSOR_MAX_LENGTH) throw invalid();
  let bytes: Uint8Array;
  try {
    bytes = base64UrlDecode(cursor.slice(TAG.length));
  } catch {
    throw invalid();
  }
  let pos = 0;
  const next = (): number => {
    let value = 0;
    let scale = 1;
    for (let k = 0; k < 8; k++) {
      if (pos >= bytes.length) throw invalid();
      const b = bytes[pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        // No padded encodings (a last byte of 0 after others), no value past 2^53.
        if ((b === 0 && k > 0) || value > MAX_VALUE) throw invalid();
        return value;
      }
      scale *= 0x80;
    }
    throw invalid();
  };
  const at = next();
  const shown = next();
  const base = next();
  const ids: string[] = [];
  const seen = new Set<number>();
  while (pos < bytes.length) {
    const id = base + next();
    if (id < 1 || id > MAX_VALUE || seen.has(id) || shown + ids.length >= RANKED_CANDIDATES) throw invalid();
    seen.add(id);
    ids.push(String(id));
  }
  if (ids.length === 0 || !seen.has(base) || at > now + CLOCK_SKEW_MS) throw invalid();
  if (now - at > RANKING_TTL_MS) throw expired();
  return { at, shown, ids };
}

/** The answer to a cursor of an earlier format whose ranking was stored in Redis: expired, start again. */
export const rankingExpired = expired;
