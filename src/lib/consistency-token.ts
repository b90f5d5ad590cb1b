/**
 * The consistency token of `X-Consistency-Token` (docs/regions.md#read-your-own-writes): the
 * Upstash sync token of each Redis database a request wrote to, so that a later request sending it
 * back has its reads on those databases wait until the nearest read region has caught up.
 *
 * Opaque to apps, but ours: `v2` then one `.<database index>~<base64url of the sync token>~<tag>`
 * per database, e.g. `v2.0~bG9jYWw6MTIz~<43 characters>`. The tag is the HMAC-SHA-256 of
 * `v2.<database index>~<base64url of the sync token>` under the deployment's secret
 * (`consistency-signing.ts`, which checks and makes tags): a client can hand back only sync tokens
 * the deployment answered, entry by entry. Each database's entry carries its own tag so that a
 * client keeping the newest entry per database from answers that raced (two writes in flight on
 * different databases) sends entries that each still verify. Every character is URL-safe, so it
 * also survives a query string or a cookie.
 *
 * This module only reads and writes the structure (no secret, no WebCrypto): the typed client
 * (`src/client/`) imports it to keep the newest entry per database, so it uses Web APIs only.
 */

import { base64UrlDecode, base64UrlEncode } from "./base64url";

export const CONSISTENCY_TOKEN_HEADER = "X-Consistency-Token";

/**
 * Longest header value accepted. An entry of a 60-character sync token (ours are shorter) is about
 * 130 characters, so 4,096 holds some 30 databases: more than a setting lists.
 */
export const MAX_CONSISTENCY_TOKEN_CHARS = 4096;
/** Highest database index a token may name (a setting lists far fewer). */
const MAX_DATABASE_INDEX = 255;
/** Longest sync token of one database (Upstash's are short; ours are ≤ 60 characters). */
const MAX_SYNC_TOKEN_CHARS = 256;

export const CONSISTENCY_TOKEN_VERSION = "v2";
/** An HMAC-SHA-256 tag in base64url: 32 bytes, 43 characters. */
const TAG = "[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]"; // the last character holds 4 bits: one spelling per tag
const ENTRY = new RegExp(`^(0|[1-9]\\d{0,2})~([A-Za-z0-9_-]{1,344})~(${TAG})$`);
const SYNC_TOKEN = /^[\x21-\x7e]+$/;

/** The sync token of each database, by index (a sparse array: absent = none). */
export type SyncTokens = (string | undefined)[];

/** One database's entry as the deployment issued it: its sync token, and the tag that proves it. */
export interface SignedSyncToken {
  token: string;
  /** base64url HMAC-SHA-256 of `signedText(index, token)`. */
  tag: string;
}

/** The entry of each database, by index (a sparse array: absent = none). */
export type SignedSyncTokens = (SignedSyncToken | undefined)[];

/** A header value that is not a consistency token this API issued. */
export class MalformedConsistencyTokenError extends Error {}

/** What the tag of database `index`'s entry signs: the entry's text before its tag, with the version. */
export function signedText(index: number, token: string): string {
  return `${CONSISTENCY_TOKEN_VERSION}.${index}~${base64UrlEncode(Uint8Array.from(token, (ch) => ch.charCodeAt(0)))}`;
}

/**
 * Reads a header value's entries (structure only: whether the tags are the deployment's is
 * `verifyConsistencyToken`'s to say); throws MalformedConsistencyTokenError naming what is wrong.
 */
export function readConsistencyToken(value: string): SignedSyncTokens {
  if (value.length > MAX_CONSISTENCY_TOKEN_CHARS) throw new MalformedConsistencyTokenError(`longer than ${MAX_CONSISTENCY_TOKEN_CHARS} characters`);
  const parts = value.split(".");
  if (parts[0] !== CONSISTENCY_TOKEN_VERSION || parts.length < 2) {
    throw new MalformedConsistencyTokenError(`not a consistency token this API issued (expected "${CONSISTENCY_TOKEN_VERSION}.<database>~<token>~<tag>…")`);
  }
  const entries: SignedSyncTokens = [];
  for (let i = 1; i < parts.length; i++) {
    const match = ENTRY.exec(parts[i]!);
    const index = match ? Number(match[1]) : NaN;
    if (!match || index > MAX_DATABASE_INDEX) throw new MalformedConsistencyTokenError(`entry ${i} is not "<database>~<base64url token>~<tag>"`);
    if (entries[index] !== undefined) throw new MalformedConsistencyTokenError(`database ${index} is named twice`);
    let token: string;
    try {
      token = String.fromCharCode(...base64UrlDecode(match[2]!));
    } catch {
      throw new MalformedConsistencyTokenError(`entry ${i} is not base64url`);
    }
    if (token.length > MAX_SYNC_TOKEN_CHARS || !SYNC_TOKEN.test(token)) throw new MalformedConsistencyTokenError(`entry ${i} holds no printable sync token`);
    entries[index] = { token, tag: match[3]! };
  }
  return entries;
}

/** The header value for `entries`, or undefined when they name no database. */
export function writeConsistencyToken(entries: SignedSyncTokens): string | undefined {
  let value = CONSISTENCY_TOKEN_VERSION;
  entries.forEach((entry, index) => {
    if (entry) value += `${signedText(index, entry.token).slice(CONSISTENCY_TOKEN_VERSION.length)}~${entry.tag}`;
  });
  return value === CONSISTENCY_TOKEN_VERSION ? undefined : value;
}

/** The sync token of each database a header value names, unverified (what a test or a log reads). */
export function parseConsistencyToken(value: string): SyncTokens {
  return syncTokensOf(readConsistencyToken(value));
}

/** The sync tokens of `entries`, by database. */
export function syncTokensOf(entries: SignedSyncTokens): SyncTokens {
  return entries.map((entry) => entry?.token);
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

/** `held` with every database of `seen` brought to the entry of the newer sync token, tag and all (a new array). */
export function mergeSignedSyncTokens(held: SignedSyncTokens, seen: SignedSyncTokens): SignedSyncTokens {
  const merged = held.slice();
  seen.forEach((entry, index) => {
    if (entry && newerSyncToken(merged[index]?.token, entry.token) === entry.token) merged[index] = entry;
  });
  return merged;
}
