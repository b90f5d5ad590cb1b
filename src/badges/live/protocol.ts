import type { CheapKind } from "./values";

/**
 * The live badge socket's protocol and limits, shared by the Worker's route, the push calls and the
 * `BadgeHub` object (which alone imports the Workers runtime).
 */

/** Sockets one user may hold at once (all devices and tabs); the next is refused with CLOSE_TOO_MANY_SOCKETS. */
export const MAX_SOCKETS_PER_USER = 10;
/** Client messages above this many bytes are refused (the only ones expected are `ping` and `badges`). */
export const MAX_CLIENT_MESSAGE_BYTES = 1024;
/** After a push, a socket gets its next one no sooner than this (carrying the latest values). */
export const PUSH_INTERVAL_MS = 1_000;
/** A socket that got a degraded snapshot (Redis down) is offered a fresh one this often. */
export const DEGRADED_RETRY_MS = 5_000;
/**
 * A count bumped in place (broadcast, post) within this long of a read is read again instead: the
 * read may already hold the change that the bump reports (the write lands in Redis before the bump
 * reaches the hub, and a queued fan-out page takes up to its batch timeout). A post's page, a
 * broadcast and a red-dot stamp also say when they were written: any read since then is read
 * again, however late they come.
 */
export const FRESH_READ_MS = 10_000;
/** A second tally change for one user within this long is followed by a read (arrival order is not write order). */
export const TALLY_ORDER_MS = 2_000;

export const CLOSE_TOKEN_EXPIRED = 4001;
/** The user was suspended by an operator: do not reconnect (the upgrade answers 403 `suspended` until lifted). */
export const CLOSE_SUSPENDED = 4003;
export const CLOSE_TOO_MANY_SOCKETS = 4008;
export const CLOSE_MESSAGE_TOO_BIG = 1009;

/** What the Worker hands the hub with an upgrade (headers of the forwarded request). */
export const HUB_HEADERS = { user: "X-Badge-User", cap: "X-Badge-Cap", expiresAt: "X-Badge-Expires", protocol: "X-Badge-Protocol" } as const;

/**
 * A shard-wide event: every online user's value moves the same way, with nothing read. `writtenAt`:
 * the Worker's time before the write (a user read since then is read again instead of moved).
 */
export type HubStamp = { kind: "broadcasts"; writtenAt: number } | { kind: "reddots"; channel: string; writtenAt: number };
/**
 * What a tally write (notifications, DMs) answered: the key's new count and the new total, or
 * `all` cleared. The hub sets them as they are: the push costs no Redis command at all.
 */
export type TallyChange = { kind: Exclude<CheapKind, "feed">; key?: string; count?: number; total: number; all?: true };
/** One follower of a fan-out page: their `authors` badge is one more; `feed`: the post was new to their timeline (the hub reads their `feed` badge). */
export type PostedTo = { userId: string; feed: boolean };
/**
 * A read that ended this long before a post was published (or a broadcast or red-dot stamp
 * written), or later, may already hold it (the Worker's and the hub's clocks may differ by a
 * little): the hub reads again instead of moving the value in place.
 */
export const PUBLISHED_CLOCK_SLACK_MS = 50;

/** A big account's post (`add`, published at `publishedAt` when known) or its delete (`remove`): one call per shard, like a broadcast. */
export type BigPost = { op: "add" | "remove"; authorId: string; postId: string; publishedAt?: number };
