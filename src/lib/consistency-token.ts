/**
 * The consistency token of `X-Consistency-Token` (docs/scale.md#read-your-own-writes): the
 * Upstash sync token of each Redis database a request wrote to, so that a later request sending it
 * back has its reads on those databases wait until the nearest read region has caught up.
 *
 * Opaque to apps, but ours: `v1` then one `.<database index>~<base64url of the sync token>` per
 * database, e.g. `v1.0~MTIz.2~NDU2`. Every character is URL-safe, so it also survives a query
 * string or a cookie. The typed client (`src/client/`) imports this module to keep the newest token
 * per database, so it uses Web APIs only.
 */

import { base64UrlDecode, base64UrlEncode } from "./base64url";

export const CONSISTENCY_TOKEN_HEADER = "X-Consistency-Token";

/** Longest header value accepted: 64 databases with the longest sync tokens fit with room to spare. */
export const MAX_CONSISTENCY_TOKEN_CHARS = 4096;
/** Highest database index a token may name (a setting lists far fewer). */
const MAX_DATABASE_INDEX = 255;
/** Longest sync token of one database (Upstash's are short; ours are ≤ 60 characters). */
const MAX_SYNC_TOKEN_CHARS = 256;

const VERSION = "v1";
const ENTRY = /^(0|[1-9]\d{0,2})~([A-Za-z0-9_-]{1,344})$/;
const SYNC_TOKEN = /^[\x21-\x7e]+$/;

/** The sync token of each database, by index (a sparse array: absent = none). */
export type SyncTokens = (string | undefined)[];

/** A header value that is not a consistency token this API issued. */
export class MalformedConsistencyTokenError extends Error {}

/** Parses a header value; throws MalformedConsistencyTokenError naming what is wrong. */
export function parseConsistencyToken(value: string): SyncTokens {
  if (value.length > MAX_CONSISTENCY_TOKEN_CHARS) throw new MalformedConsistencyTokenError(`longer than ${MAX_CONSISTENCY_TOKEN_CHARS} characters`);
  const parts = value.split(".");
  if (parts[0] !== VERSION || parts.length < 2) throw new MalformedConsistencyTokenError(`not a consistency token this API issued (expected "${VERSION}.<database>~<token>…")`);
  const tokens: SyncTokens = [];
  for (let i = 1; i < parts.length; i++) {
    const match = ENTRY.exec(parts[i]!);
    const index = match ? Number(match[1]) : NaN;
    if (!match || index > MAX_DATABASE_INDEX) throw new MalformedConsistencyTokenError(`entry ${i} is not "<database>~<base64url token>"`);
    if (tokens[index] !== undefined) throw new MalformedConsistencyTokenError(`database ${index} is named twice`);
    let token: string;
    try {
      token = String.fromCharCode(...base64UrlDecode(match[2]!));
    } catch {
      throw new MalformedConsistencyTokenError(`entry ${i} is not base64url`);
    }
    if (token.length > MAX_SYNC_TOKEN_CHARS || !SYNC_TOKEN.test(token)) throw new MalformedConsistencyTokenError(`entry ${i} holds no printable sync token`);
    tokens[index] = token;
  }
  return tokens;
}

/** The header value for `tokens`, or undefined when they name no database. */
export function formatConsistencyToken(tokens: SyncTokens): string | undefined {
  let value = VERSION;
  tokens.forEach((token, index) => {
    if (token) value += `.${index}~${base64UrlEncode(Uint8Array.from(token, (ch) => ch.charCodeAt(0)))}`;
  });
  return value === VERSION ? undefined : value;
}

const COUNTED = /^(.*?)(\d{1,18})$/;

/**
 * The newer of two sync tokens of one database. Upstash's are opaque strings ending in a number
 * that only grows along one replication history (the local stack's are `<replication id>:<offset>`);
 * two tokens of the same history compare by that number. Otherwise (another history, after a
 * failover, or a format we cannot read) the one seen later, `seen`, wins.
 */
export function newerSyncToken(held: string | undefined, seen: string): string {
  if (held === undefined || held === seen) return seen;
  const a = COUNTED.exec(held);
  const b = COUNTED.exec(seen);
  if (a && b && a[1] === b[1]) return Number(a[2]) > Number(b[2]) ? held : seen;
  return seen;
}

/** `held` with every database of `seen` brought to the newer token (a new array). */
export function mergeSyncTokens(held: SyncTokens, seen: SyncTokens): SyncTokens {
  const merged = held.slice();
  seen.forEach((token, index) => {
    if (token) merged[index] = newerSyncToken(merged[index], token);
  });
  return merged;
}
