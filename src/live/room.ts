import { DurableObject } from "cloudflare:workers";
import { applyLogLevel } from "../lib/log";
import type { Env } from "../env";
import { redisAt } from "../lib/redis";
import { topologyOf } from "../lib/redis-topology";
import { FanLookups, type FanLookup } from "./fan-lookups";
import type { LiveRoomMessage } from "./messages";
import type { Caller } from "../lib/caller";
import { ownerAfterStart } from "./ownership";
import type { LocationHint } from "./placement";

/** An HTTP viewer whose last refresh is older than this is dropped; a WebSocket must ping within it. */
export const PRESENCE_TIMEOUT_MS = 60_000;
/** Counts are pushed to watchers (and shards report to their primary) at most this often. */
export const PUSH_INTERVAL_MS = 1_000;
/** A room whose last session ended this long ago, with no new one, is deleted. */
export const EXPIRE_AFTER_MS = 6 * 60 * 60 * 1000;
/** A socket whose token expired is closed with this code (as the badge socket is); the client reconnects with a fresh token. */
export const CLOSE_TOKEN_EXPIRED = 4001;
/** Close code of a socket ejected because a block now stands between its user and the room's host. */
export const CLOSE_BLOCKED = 4003;
/** Close code of a socket whose user was suspended (the badge socket's too): the client must not reconnect. */
export const CLOSE_SUSPENDED = 4003;
/** Rows deleted per alarm run while a room expires: a huge room never blocks the object for long. */
export const EXPIRE_CHUNK_ROWS = 1_000;

/**
 * What every object of a room needs to know about the live session: the Worker reads it from the
 * room's primary object (shard 0) and hands it to the shard that owns a user. A shard adopts a newer
 * session on first use, so starting a session never has to touch all shards.
 */
export type SessionDescriptor = {
  roomId: string;
  sessionId: string;
  hostId: string;
  startedAt: number;
  /** Number of objects the room is spread over (1 = unsharded). */
  shards: number;
  /** Index of the object this descriptor is for; 0 is the primary. */
  shard: number;
  endedAt: number | null;
  /**
   * The hint the room's objects are created with (`placement.ts`): the one its first session asked
   * for, kept by the primary until the room expires; null when none was given or the room is older
   * than the record. Shards are reached with it so that one first used by a viewer is created next
   * to the primary, not next to that viewer.
   */
  location: LocationHint | null;
};

export type Counts = { viewers: number; onlineFans: number };
export type ConnectionKind = "http" | "ws";
export type EnterResult =
  | ({ status: "ok"; joined: boolean; isFan: boolean } & Counts)
  | { status: "stale" }
  /** The follow cache could not say (`cache`: what the lookup saw); the Worker resolves the status and calls again. */
  | { status: "need_fan"; cache: Exclude<FanLookup, "follows" | "not_following"> };
export type SocketMode = "view" | "watch";

/** `expiresAt`: the token's `exp` in ms (absent on sockets accepted before it was recorded). */
type SocketAttachment = { connId: string; userId: string; mode: SocketMode; connectedAt: number; lastSeenAt: number; expiresAt?: number };
type ScheduleKind = "sweep" | "push" | "expire" | "tokens";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, host_id TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER)`,
  // One row per person in the room now; user ids are TEXT because SQLite integers come back as JS
  // numbers, which lose 64-bit ids.
  `CREATE TABLE IF NOT EXISTS viewers (user_id TEXT PRIMARY KEY, is_fan INTEGER NOT NULL, joined_at INTEGER NOT NULL) WITHOUT ROWID`,
  // Fan pages of the host walk this; it only holds fans, so it costs nothing per non-fan.
  `CREATE INDEX IF NOT EXISTS viewers_fans ON viewers (user_id) WHERE is_fan = 1`,
  // One row per device: a user is a viewer while at least one of their connections exists.
  `CREATE TABLE IF NOT EXISTS connections (user_id TEXT NOT NULL, conn_id TEXT NOT NULL, kind TEXT NOT NULL, last_seen_at INTEGER NOT NULL, PRIMARY KEY (user_id, conn_id)) WITHOUT ROWID`,
  // The timeout sweep finds stale HTTP viewers oldest first without scanning WebSocket rows.
  `CREATE INDEX IF NOT EXISTS connections_http_seen ON connections (last_seen_at) WHERE kind = 'http'`,
  `CREATE TABLE IF NOT EXISTS attendance (session_id TEXT NOT NULL, user_id TEXT NOT NULL, is_fan INTEGER NOT NULL, first_joined_at INTEGER NOT NULL, last_joined_at INTEGER NOT NULL, last_left_at INTEGER, PRIMARY KEY (session_id, user_id)) WITHOUT ROWID`,
  // Work the single alarm must do; the alarm is always set to the earliest due time.
  `CREATE TABLE IF NOT EXISTS schedule (kind TEXT PRIMARY KEY, due_at INTEGER NOT NULL)`,
  // Primary only: the latest counts each other shard reported, summed into the pushed total.
  `CREATE TABLE IF NOT EXISTS shard_counts (shard INTEGER PRIMARY KEY, viewers INTEGER NOT NULL, online_fans INTEGER NOT NULL)`,
  // Primary only: the room's owner (`ownership.ts`), one row. Not in EXPIRING_TABLES: expiry keeps it.
  `CREATE TABLE IF NOT EXISTS owner (one INTEGER PRIMARY KEY CHECK (one = 1), user_id TEXT NOT NULL, since INTEGER NOT NULL)`,
];

/** Tables emptied, chunk by chunk, when a room expires, with their primary-key columns. */
const EXPIRING_TABLES: [table: string, key: string][] = [
  ["connections", "user_id, conn_id"],
  ["viewers", "user_id"],
  ["attendance", "session_id, user_id"],
  ["sessions", "id"],
  ["shard_counts", "shard"],
  ["meta", "key"],
];
/** What an expired room that has an owner drops (one that has none deletes its whole storage). */
const DROPPED_ON_EXPIRY = [...EXPIRING_TABLES.map(([table]) => table), "schedule"];

/** What the Worker reads of a room's primary: its session and its owner (null: nobody yet). */
export type RoomState = { session: SessionDescriptor | null; ownerId: string | null };

export type StartResult =
  | { status: "started"; session: SessionDescriptor; previous: SessionDescriptor | null; ownerId: string }
  /** Another user owns the room: nothing was changed. */
  | { status: "forbidden" };

/**
 * One live room, or one shard of a big room: who is online (SQLite rows, counts in memory), their
 * connections (HTTP refreshes or hibernatable WebSockets), attendance per session, and the one alarm
 * that drives timeouts, the coalesced push and expiry. Counts are O(1) to read; they are rebuilt
 * from SQLite when the object wakes after eviction.
 */
export class LiveRoom extends DurableObject<Env> {
  protected counts: Counts = { viewers: 0, onlineFans: 0 };
  private session: SessionDescriptor | null = null;
  /** Primary only: the room's owner, kept across expiry (`ownership.ts`). */
  private ownerId: string | null = null;
  private alarmAt: number | null = null;
  private nextSweepAt: number | null = null;
  private lastPushAt = 0;
  private migrated = false;
  /** Tests move this object's clock forward (timeouts, expiry) instead of waiting. */
  clockOffsetMs = 0;
  /** Tests point this object's fan lookups at other Redis databases (chaos bridges) than its bindings'. */
  redisBindings: Pick<Env, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN" | "UPSTASH_REDIS_DATABASES"> | null = null;
  /**
   * Each viewer's follow cache is on the viewer's database (`databaseOf(viewerId, n)` of the
   * topology in this object's bindings): one lookup queue, and one pipeline per trip, per database.
   */
  private readonly fanLookups = new FanLookups(() => {
    const bindings = this.redisBindings ?? this.env;
    return { n: topologyOf(bindings).n, redisAt: (index) => redisAt(bindings, index) };
  });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    applyLogLevel(env.LOG_LEVEL);
    // Answered by the runtime without waking a hibernated object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
    void ctx.blockConcurrencyWhile(async () => {
      this.load();
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  protected now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  protected get sql() {
    return this.ctx.storage.sql;
  }

  private load() {
    for (const statement of SCHEMA) this.sql.exec(statement);
    this.migrated = true;
    const row = this.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'session'`).toArray()[0];
    // A session stored before placements were recorded has no `location`.
    const stored = row ? (JSON.parse(row.value) as Partial<SessionDescriptor> & Omit<SessionDescriptor, "location">) : null;
    this.session = stored ? { ...stored, location: stored.location ?? null } : null;
    this.ownerId = this.loadOwner();
    const counts = this.sql
      .exec<{ viewers: number; fans: number | null }>(`SELECT count(*) AS viewers, sum(is_fan) AS fans FROM viewers`)
      .one();
    this.counts = { viewers: counts.viewers, onlineFans: counts.fans ?? 0 };
    const sweep = this.sql.exec<{ due_at: number }>(`SELECT due_at FROM schedule WHERE kind = 'sweep'`).toArray()[0];
    this.nextSweepAt = sweep?.due_at ?? null;
  }

  /**
   * The recorded owner; a primary with sessions from before owners were recorded is owned by the
   * host of its newest session (written down at its next start or expiry), so a room already live
   * is never left for a stranger to claim.
   */
  private loadOwner(): string | null {
    const row = this.sql.exec<{ user_id: string }>(`SELECT user_id FROM owner`).toArray()[0];
    if (row) return row.user_id;
    if (this.session?.shard !== 0) return null;
    const newest = this.sql.exec<{ host_id: string }>(`SELECT host_id FROM sessions ORDER BY CAST(id AS INTEGER) DESC LIMIT 1`).toArray()[0];
    return newest?.host_id ?? null;
  }

  private recordOwner(userId: string, now: number) {
    this.sql.exec(
      `INSERT INTO owner (one, user_id, since) VALUES (1, ?, ?)
       ON CONFLICT (one) DO UPDATE SET user_id = excluded.user_id, since = CASE WHEN user_id = excluded.user_id THEN since ELSE excluded.since END`,
      userId,
      now,
    );
    this.ownerId = userId;
  }

  /** After expiry wiped storage, the next call recreates the (empty) tables. */
  protected ready() {
    if (!this.migrated) this.load();
  }

  // ---------------------------------------------------------------- sessions

  /**
   * Primary only: starts a session (ending a live one here) if `caller` may (`ownerAfterStart`,
   * decided here so that two users racing for a room nobody owns cannot both win); the Worker ends
   * `previous` on its shards. A refused start changes nothing.
   */
  async startSession(input: {
    roomId: string;
    hostId: string;
    shards: number;
    location: LocationHint | null;
    caller: Caller;
    assignOwner: boolean;
  }): Promise<StartResult> {
    this.ready();
    const { caller, assignOwner, ...start } = input;
    const ownerId = ownerAfterStart(this.ownerId, { hostId: start.hostId, assignOwner, caller });
    if (ownerId === null) return { status: "forbidden" };
    const now = this.now();
    const previous = this.session && this.session.endedAt === null ? this.session : null;
    const lastId = this.sql.exec<{ id: string }>(`SELECT id FROM sessions ORDER BY CAST(id AS INTEGER) DESC LIMIT 1`).toArray()[0];
    // Monotonic per room, so a shard can tell a newer session from a stale descriptor.
    const sessionId = String(Math.max(now, lastId ? Number(lastId.id) + 1 : 0));
    if (previous) this.endLocally(previous.sessionId, now);
    const session: SessionDescriptor = { ...start, location: this.placement(start.location, lastId === undefined), sessionId, startedAt: now, shard: 0, endedAt: null };
    this.ctx.storage.transactionSync(() => {
      this.adopt(session);
      this.sql.exec(`DELETE FROM shard_counts`);
      this.recordOwner(ownerId, now);
    });
    this.markChanged();
    await this.rearm();
    return { status: "started", session, previous, ownerId };
  }

  /**
   * The room's recorded placement: set by its first session (`first`, no session row yet) to the
   * hint that start asked for, since that start's `get` created the object; a room with sessions
   * from before the record is recorded as unknown (null). Later starts' hints change nothing:
   * Cloudflare reads a hint only when it creates the object.
   */
  private placement(requested: LocationHint | null, first: boolean): LocationHint | null {
    const row = this.sql.exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'location'`).toArray()[0];
    if (row) return JSON.parse(row.value) as LocationHint | null;
    const location = first ? requested : null;
    this.sql.exec(`INSERT INTO meta (key, value) VALUES ('location', ?)`, JSON.stringify(location));
    return location;
  }

  /** Ends `sessionId` if it is this object's live session: everyone leaves, expiry is scheduled. */
  async endSession(sessionId: string): Promise<{ ended: boolean }> {
    this.ready();
    const ended = this.endLocally(sessionId, this.now());
    await this.rearm();
    return { ended };
  }

  /** The current (or last) session as this object knows it (the Worker reads the primary's `state()`). */
  async current(): Promise<SessionDescriptor | null> {
    this.ready();
    return this.session;
  }

  /** Primary only: the session and the owner, in one call (what the Worker caches for 5 s). */
  async state(): Promise<RoomState> {
    this.ready();
    return { session: this.session, ownerId: this.ownerId };
  }

  /** Primary only: ids of the last `n` sessions, newest first. */
  async lastSessions(n: number): Promise<string[]> {
    this.ready();
    return this.sql
      .exec<{ id: string }>(`SELECT id FROM sessions ORDER BY CAST(id AS INTEGER) DESC LIMIT ?`, n)
      .toArray()
      .map((r) => r.id);
  }

  private adopt(session: SessionDescriptor) {
    this.sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('session', ?)`, JSON.stringify(session));
    this.sql.exec(
      `INSERT INTO sessions (id, host_id, started_at, ended_at) VALUES (?, ?, ?, NULL) ON CONFLICT (id) DO NOTHING`,
      session.sessionId,
      session.hostId,
      session.startedAt,
    );
    this.sql.exec(`DELETE FROM schedule WHERE kind = 'expire'`);
    this.session = session;
  }

  /**
   * Accepts `d` when it is this object's live session, adopts it when it is newer (a shard's first
   * use in a session), and reports a stale descriptor otherwise so the Worker rereads the primary.
   */
  protected checkSession(d: SessionDescriptor): boolean {
    const current = this.session;
    if (current && d.sessionId === current.sessionId) return current.endedAt === null;
    if (current && Number(d.sessionId) < Number(current.sessionId)) return false;
    // The primary is where sessions start: it never adopts one from a descriptor.
    if (d.endedAt !== null || d.shard === 0) return false;
    const now = this.now();
    if (current && current.endedAt === null) this.endLocally(current.sessionId, now);
    this.ctx.storage.transactionSync(() => this.adopt({ ...d, endedAt: null }));
    return true;
  }

  private endLocally(sessionId: string, now: number): boolean {
    const session = this.session;
    if (!session || session.sessionId !== sessionId || session.endedAt !== null) return false;
    const ended: SessionDescriptor = { ...session, endedAt: now };
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `UPDATE attendance SET last_left_at = ? WHERE session_id = ? AND user_id IN (SELECT user_id FROM viewers)`,
        now,
        sessionId,
      );
      this.sql.exec(`DELETE FROM viewers`);
      this.sql.exec(`DELETE FROM connections`);
      this.sql.exec(`UPDATE sessions SET ended_at = ? WHERE id = ?`, now, sessionId);
      this.sql.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('session', ?)`, JSON.stringify(ended));
      this.sql.exec(`DELETE FROM schedule WHERE kind = 'sweep'`);
      this.schedule("expire", now + EXPIRE_AFTER_MS, "replace");
    });
    this.session = ended;
    this.nextSweepAt = null;
    this.counts = { viewers: 0, onlineFans: 0 };
    for (const ws of this.ctx.getWebSockets("view")) closeQuietly(ws, 1000, "session ended");
    this.markChanged();
    return true;
  }

  // ---------------------------------------------------------------- presence

  /**
   * Enters or refreshes one connection of `userId`: ONE object call for a join as for a refresh.
   * Entering twice is one viewer. With `isFan` null (what the Worker sends) a refresh reuses the
   * status recorded at join, with no Redis; a user new to the room is looked up here, in the
   * viewer's follow cache (`FanLookups`: concurrent joins share one Redis round trip). Only when the
   * cache cannot say does the object answer `need_fan`, and the Worker calls again with the status
   * from Postgres (a rebuild of the cache, or a primary-key lookup).
   */
  async enter(d: SessionDescriptor, userId: string, isFan: boolean | null, connId: string, kind: ConnectionKind): Promise<EnterResult> {
    this.ready();
    if (!this.checkSession(d)) return { status: "stale" };
    if (isFan === null) {
      const known = this.sql.exec<{ is_fan: number }>(`SELECT is_fan FROM viewers WHERE user_id = ?`, userId).toArray()[0];
      if (known) isFan = known.is_fan === 1;
      else {
        const state = userId === d.hostId ? "not_following" : await this.fanLookups.lookup(userId, d.hostId);
        if (state !== "follows" && state !== "not_following") return { status: "need_fan", cache: state };
        // Other calls ran during the lookup: the session may have ended or moved on.
        if (!this.checkSession(d)) return { status: "stale" };
        isFan = state === "follows";
      }
    }
    const joined = this.enterLocally(userId, isFan, connId, kind, this.now());
    await this.rearm();
    return { status: "ok", joined, isFan, ...this.counts };
  }

  protected enterLocally(userId: string, isFan: boolean, connId: string, kind: ConnectionKind, now: number): boolean {
    const sessionId = this.session!.sessionId;
    const fan = isFan ? 1 : 0;
    const { joined, fanDelta } = this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        `INSERT INTO connections (user_id, conn_id, kind, last_seen_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id, conn_id) DO UPDATE SET last_seen_at = excluded.last_seen_at`,
        userId,
        connId,
        kind,
        now,
      );
      const existing = this.sql.exec<{ is_fan: number }>(`SELECT is_fan FROM viewers WHERE user_id = ?`, userId).toArray()[0];
      if (existing && existing.is_fan === fan) return { joined: false, fanDelta: 0 };
      if (existing) {
        // Followed or unfollowed the host while watching: the latest lookup wins.
        this.sql.exec(`UPDATE viewers SET is_fan = ? WHERE user_id = ?`, fan, userId);
        this.sql.exec(`UPDATE attendance SET is_fan = ? WHERE session_id = ? AND user_id = ?`, fan, sessionId, userId);
        return { joined: false, fanDelta: fan - existing.is_fan };
      }
      this.sql.exec(`INSERT INTO viewers (user_id, is_fan, joined_at) VALUES (?, ?, ?)`, userId, fan, now);
      this.sql.exec(
        `INSERT INTO attendance (session_id, user_id, is_fan, first_joined_at, last_joined_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (session_id, user_id) DO UPDATE SET is_fan = excluded.is_fan, last_joined_at = excluded.last_joined_at`,
        sessionId,
        userId,
        fan,
        now,
        now,
      );
      return { joined: true, fanDelta: fan };
    });
    if (joined) this.counts.viewers += 1;
    this.counts.onlineFans += fanDelta;
    if (kind === "http" || this.nextSweepAt === null) this.ensureSweep(now);
    if (joined || fanDelta !== 0) this.markChanged();
    return joined;
  }

  /** Drops one connection; the viewer leaves when it was their last. Leaving twice is fine. */
  async leave(userId: string, connId: string): Promise<{ left: boolean } & Counts> {
    this.ready();
    const left = this.leaveLocally([[userId, connId]], this.now()) > 0;
    await this.rearm();
    return { left, ...this.counts };
  }

  /**
   * Ejects `userId` at once (a block between them and the host, or their suspension: src/safety):
   * every socket they hold here is closed (CLOSE_BLOCKED, or CLOSE_SUSPENDED) and every connection, HTTP included, dropped, so the counts
   * (viewers, online fans) stop counting them in this call. Answers how many connections went.
   */
  async eject(userId: string, reason: "blocked" | "suspended" = "blocked"): Promise<{ dropped: number } & Counts> {
    this.ready();
    for (const ws of this.ctx.getWebSockets(`user:${userId}`)) closeQuietly(ws, reason === "suspended" ? CLOSE_SUSPENDED : CLOSE_BLOCKED, reason);
    const pairs = this.sql
      .exec<{ conn_id: string }>(`SELECT conn_id FROM connections WHERE user_id = ?`, userId)
      .toArray()
      .map((r): [string, string] => [userId, r.conn_id]);
    if (pairs.length > 0) this.leaveLocally(pairs, this.now());
    await this.rearm();
    return { dropped: pairs.length, ...this.counts };
  }

  /** Removes connections; returns how many viewers left the room because of it. */
  private leaveLocally(pairs: [userId: string, connId: string][], now: number): number {
    const sessionId = this.session?.sessionId ?? "";
    const { left, fansLeft } = this.ctx.storage.transactionSync(() => {
      let left = 0;
      let fansLeft = 0;
      for (const [userId, connId] of pairs) {
        const removed = this.sql.exec(`DELETE FROM connections WHERE user_id = ? AND conn_id = ?`, userId, connId).rowsWritten;
        if (removed === 0) continue;
        const remaining = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM connections WHERE user_id = ?`, userId).one().n;
        if (remaining > 0) continue;
        const viewer = this.sql.exec<{ is_fan: number }>(`DELETE FROM viewers WHERE user_id = ? RETURNING is_fan`, userId).toArray()[0];
        if (!viewer) continue;
        this.sql.exec(`UPDATE attendance SET last_left_at = ? WHERE session_id = ? AND user_id = ?`, now, sessionId, userId);
        left += 1;
        fansLeft += viewer.is_fan;
      }
      return { left, fansLeft };
    });
    if (left > 0) {
      this.counts.viewers -= left;
      this.counts.onlineFans -= fansLeft;
      this.markChanged();
    }
    return left;
  }

  /**
   * Drops HTTP viewers not refreshed within the timeout and WebSockets that stopped answering pings
   * (bounded per run; the alarm comes back for the rest). Public so tests can run it at a given time.
   */
  async sweep(now = this.now()): Promise<{ dropped: number }> {
    this.ready();
    const cutoff = now - PRESENCE_TIMEOUT_MS;
    const stale = this.sql
      .exec<{ user_id: string; conn_id: string }>(
        `SELECT user_id, conn_id FROM connections WHERE kind = 'http' AND last_seen_at < ? ORDER BY last_seen_at LIMIT ?`,
        cutoff,
        EXPIRE_CHUNK_ROWS,
      )
      .toArray()
      .map((r): [string, string] => [r.user_id, r.conn_id]);
    for (const ws of this.ctx.getWebSockets("view")) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      if (!att) continue;
      const pong = this.ctx.getWebSocketAutoResponseTimestamp(ws)?.getTime() ?? 0;
      if (Math.max(att.lastSeenAt, pong) < cutoff) {
        closeQuietly(ws, 1001, "presence timeout");
        stale.push([att.userId, att.connId]);
      }
    }
    const dropped = this.leaveLocally(stale, now);
    this.sql.exec(`DELETE FROM schedule WHERE kind = 'sweep'`);
    this.nextSweepAt = null;
    if (this.counts.viewers > 0) this.ensureSweep(now);
    await this.rearm();
    return { dropped };
  }

  /** The next sweep: when the oldest HTTP refresh times out, or one timeout from now for sockets. */
  private ensureSweep(now: number) {
    const oldest = this.sql
      .exec<{ t: number | null }>(`SELECT min(last_seen_at) AS t FROM connections WHERE kind = 'http'`)
      .one().t;
    const due = Math.max(now, Math.min(oldest === null ? Infinity : oldest + PRESENCE_TIMEOUT_MS, now + PRESENCE_TIMEOUT_MS));
    if (this.nextSweepAt !== null && this.nextSweepAt <= due) return;
    this.schedule("sweep", due, "replace");
    this.nextSweepAt = due;
  }

  /** Reads sweep lazily, so a count is never older than the timeout even if the alarm is late. */
  private async sweepIfDue() {
    if (this.nextSweepAt !== null && this.nextSweepAt <= this.now()) await this.sweep();
  }

  // ---------------------------------------------------------------- reads

  /** The counts of `sessionId` here (zero when this object is on another session). */
  async getCounts(sessionId?: string): Promise<Counts & { sessionId: string | null; live: boolean }> {
    this.ready();
    await this.sweepIfDue();
    const session = this.session;
    const live = session !== null && session.endedAt === null;
    if (sessionId !== undefined && session?.sessionId !== sessionId) return { viewers: 0, onlineFans: 0, sessionId, live: false };
    return { ...this.counts, sessionId: session?.sessionId ?? null, live };
  }

  /** Primary: the room's totals over every shard (what watchers are pushed), for the operations view. */
  async liveTotals(): Promise<ReturnType<LiveRoom["totals"]>> {
    this.ready();
    await this.sweepIfDue();
    return this.totals();
  }

  async viewer(userId: string): Promise<{ online: boolean; isFan: boolean; joinedAt: number | null }> {
    this.ready();
    await this.sweepIfDue();
    const row = this.sql
      .exec<{ is_fan: number; joined_at: number }>(`SELECT is_fan, joined_at FROM viewers WHERE user_id = ?`, userId)
      .toArray()[0];
    return { online: row !== undefined, isFan: row?.is_fan === 1, joinedAt: row?.joined_at ?? null };
  }

  /** Online fans after `after` in user-id (text) order, at most `limit`. */
  async listFans(after: string, limit: number): Promise<string[]> {
    this.ready();
    await this.sweepIfDue();
    return this.sql
      .exec<{ user_id: string }>(`SELECT user_id FROM viewers WHERE is_fan = 1 AND user_id > ? ORDER BY user_id LIMIT ?`, after, limit)
      .toArray()
      .map((r) => r.user_id);
  }

  /** Distinct fans with a join (first or latest of a session) in [from, to). */
  async joinedFans(from: number, to: number): Promise<number> {
    this.ready();
    return this.sql
      .exec<{ n: number }>(
        `SELECT count(DISTINCT user_id) AS n FROM attendance
         WHERE is_fan = 1 AND ((first_joined_at >= ?1 AND first_joined_at < ?2) OR (last_joined_at >= ?1 AND last_joined_at < ?2))`,
        from,
        to,
      )
      .one().n;
  }

  /** Fans who attended every (`all`, INTERSECT) or any (`any`, UNION) of `sessionIds`. */
  async loyalFans(sessionIds: string[], mode: "all" | "any", after: string, limit: number): Promise<{ count: number; ids: string[] }> {
    this.ready();
    if (sessionIds.length === 0) return { count: 0, ids: [] };
    const compound = sessionIds
      .map(() => `SELECT user_id FROM attendance WHERE session_id = ? AND is_fan = 1`)
      .join(mode === "all" ? " INTERSECT " : " UNION ");
    const count = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM (${compound})`, ...sessionIds).one().n;
    const ids =
      limit > 0
        ? this.sql
            .exec<{ user_id: string }>(`SELECT user_id FROM (${compound}) WHERE user_id > ? ORDER BY user_id LIMIT ?`, ...sessionIds, after, limit)
            .toArray()
            .map((r) => r.user_id)
        : [];
    return { count, ids };
  }

  // ---------------------------------------------------------------- push

  /** Primary only: a shard's latest counts, summed into the pushed total. */
  async reportShard(sessionId: string, shard: number, counts: Counts): Promise<void> {
    this.ready();
    if (this.session?.sessionId !== sessionId || shard <= 0) return;
    this.sql.exec(
      `INSERT OR REPLACE INTO shard_counts (shard, viewers, online_fans) VALUES (?, ?, ?)`,
      shard,
      counts.viewers,
      counts.onlineFans,
    );
    this.markChanged();
    await this.rearm();
  }

  /** Counts changed: push (or report to the primary) now if the last one was over a second ago, else at that second. */
  private markChanged() {
    const primary = (this.session?.shard ?? 0) === 0;
    if (primary && this.ctx.getWebSockets("watch").length === 0) return;
    this.schedule("push", Math.max(this.now(), this.lastPushAt + PUSH_INTERVAL_MS), "keep");
  }

  private async push() {
    const session = this.session;
    if (!session) return;
    this.lastPushAt = this.now();
    if (session.shard > 0) {
      const primary = this.env.LIVE_ROOMS.get(this.env.LIVE_ROOMS.idFromName(session.roomId));
      try {
        await primary.reportShard(session.sessionId, session.shard, { ...this.counts });
      } catch {
        this.schedule("push", this.now() + PUSH_INTERVAL_MS, "keep");
      }
      return;
    }
    const message = JSON.stringify({ type: "counts", ...this.totals() } satisfies LiveRoomMessage);
    for (const ws of this.ctx.getWebSockets("watch")) {
      try {
        ws.send(message);
      } catch {
        // A dead watcher is cleaned up by its close event.
      }
    }
  }

  /** Primary: own counts plus the other shards' last reports. */
  private totals() {
    const session = this.session;
    const live = session !== null && session.endedAt === null;
    const others = this.sql
      .exec<{ v: number | null; f: number | null }>(`SELECT sum(viewers) AS v, sum(online_fans) AS f FROM shard_counts`)
      .one();
    return {
      viewers: live ? this.counts.viewers + (others.v ?? 0) : 0,
      onlineFans: live ? this.counts.onlineFans + (others.f ?? 0) : 0,
      sessionId: session?.sessionId ?? null,
      live,
    };
  }

  // ---------------------------------------------------------------- alarm

  /** `keep` leaves an earlier due time alone; `replace` sets it. Call `rearm()` afterwards. */
  private schedule(kind: ScheduleKind, dueAt: number, how: "keep" | "replace") {
    this.sql.exec(
      how === "keep"
        ? `INSERT INTO schedule (kind, due_at) VALUES (?, ?) ON CONFLICT (kind) DO UPDATE SET due_at = min(due_at, excluded.due_at)`
        : `INSERT OR REPLACE INTO schedule (kind, due_at) VALUES (?, ?)`,
      kind,
      dueAt,
    );
  }

  /** One alarm per object: always set to the earliest scheduled job (in real time). */
  protected async rearm() {
    if (!this.migrated) return;
    const next = this.sql.exec<{ t: number | null }>(`SELECT min(due_at) AS t FROM schedule`).one().t;
    const at = next === null ? null : next - this.clockOffsetMs;
    if (at === this.alarmAt) return;
    this.alarmAt = at;
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  override async alarm(): Promise<void> {
    this.alarmAt = null;
    this.ready();
    const now = this.now();
    const due = this.sql
      .exec<{ kind: ScheduleKind }>(`SELECT kind FROM schedule WHERE due_at <= ? ORDER BY due_at`, now)
      .toArray()
      .map((r) => r.kind);
    this.sql.exec(`DELETE FROM schedule WHERE due_at <= ?`, now);
    for (const kind of due) {
      if (kind === "sweep") {
        this.nextSweepAt = null;
        await this.sweep(now);
      } else if (kind === "push") await this.push();
      else if (kind === "tokens") this.closeExpiredTokens();
      else if (kind === "expire" && (await this.expireChunk(now))) return;
    }
    await this.rearm();
  }

  /**
   * Deletes at most EXPIRE_CHUNK_ROWS rows and comes back at once for the rest; when nothing is left,
   * frees the storage. Returns true when the object was wiped.
   */
  private async expireChunk(now: number): Promise<boolean> {
    const session = this.session;
    if (session && (session.endedAt === null || session.endedAt + EXPIRE_AFTER_MS > now)) return false;
    let budget = EXPIRE_CHUNK_ROWS;
    for (const [table, key] of EXPIRING_TABLES) {
      if (budget <= 0) break;
      // RETURNING counts rows exactly (rowsWritten also counts index writes).
      budget -= this.sql.exec(`DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} LIMIT ?) RETURNING 1`, budget).toArray().length;
    }
    if (budget <= 0) {
      this.schedule("expire", now, "replace");
      return false;
    }
    await this.ctx.storage.deleteAlarm();
    const ownerId = this.ownerId;
    if (ownerId === null) await this.ctx.storage.deleteAll();
    else {
      // The owner outlives the room: the emptied tables go, its row stays (written down here for
      // a room owned from before owners were recorded), in one transaction.
      this.ctx.storage.transactionSync(() => {
        this.recordOwner(ownerId, now);
        for (const table of DROPPED_ON_EXPIRY) this.sql.exec(`DROP TABLE IF EXISTS ${table}`);
      });
    }
    this.migrated = false;
    this.session = null;
    this.counts = { viewers: 0, onlineFans: 0 };
    this.nextSweepAt = null;
    this.alarmAt = null;
    return true;
  }

  // ---------------------------------------------------------------- WebSockets

  /**
   * WebSocket upgrades only (the Worker authenticated the caller and resolved fan status). Headers
   * `X-Live-Session` (descriptor JSON), `X-Live-User`, `X-Live-Fan`, `X-Live-Mode`, `X-Live-Protocol`,
   * `X-Live-Expires` (the token's `exp` in ms: the alarm closes the socket then, 4001).
   */
  override async fetch(request: Request): Promise<Response> {
    this.ready();
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    const d = JSON.parse(request.headers.get("X-Live-Session") ?? "null") as SessionDescriptor;
    const userId = request.headers.get("X-Live-User") ?? "";
    const mode: SocketMode = request.headers.get("X-Live-Mode") === "watch" ? "watch" : "view";
    if (mode === "view" && !this.checkSession(d)) return new Response("stale session", { status: 409 });
    const now = this.now();
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    const expiresAt = Number(request.headers.get("X-Live-Expires")) || undefined;
    const attachment: SocketAttachment = { connId: `ws:${crypto.randomUUID()}`, userId, mode, connectedAt: now, lastSeenAt: now, expiresAt };
    this.ctx.acceptWebSocket(server, [mode, `user:${userId}`]);
    server.serializeAttachment(attachment);
    // Schedule times are in this object's clock (now()); the token's exp is real time.
    if (expiresAt) this.schedule("tokens", expiresAt + this.clockOffsetMs, "keep");
    if (mode === "view") this.enterLocally(userId, request.headers.get("X-Live-Fan") === "1", attachment.connId, "ws", now);
    else server.send(JSON.stringify({ type: "counts", ...this.totals() } satisfies LiveRoomMessage));
    await this.rearm();
    const protocol = request.headers.get("X-Live-Protocol");
    return new Response(null, { status: 101, webSocket: client, headers: protocol ? { "Sec-WebSocket-Protocol": protocol } : {} });
  }

  /** Closes the sockets whose token expired (4001; a viewer leaves) and schedules the next expiry. */
  private closeExpiredTokens() {
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    const gone: [userId: string, connId: string][] = [];
    for (const ws of this.ctx.getWebSockets()) {
      const att = ws.deserializeAttachment() as SocketAttachment | null;
      if (!att?.expiresAt) continue;
      if (att.expiresAt > now) {
        next = Math.min(next, att.expiresAt);
        continue;
      }
      closeQuietly(ws, CLOSE_TOKEN_EXPIRED, "token expired");
      if (att.mode === "view") gone.push([att.userId, att.connId]);
    }
    if (gone.length > 0) this.leaveLocally(gone, this.now());
    if (Number.isFinite(next)) this.schedule("tokens", next + this.clockOffsetMs, "keep");
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const att = ws.deserializeAttachment() as SocketAttachment | null;
    if (!att) return;
    // Any message proves the socket alive (pings are answered by the runtime and timestamped there).
    att.lastSeenAt = this.now();
    ws.serializeAttachment(att);
    if (message === "counts") ws.send(JSON.stringify({ type: "counts", ...(att.mode === "watch" ? this.totals() : this.counts) } satisfies LiveRoomMessage));
  }

  override async webSocketClose(ws: WebSocket, code: number, _reason: string, _wasClean: boolean): Promise<void> {
    await this.dropSocket(ws);
    closeQuietly(ws, code === 1005 || code === 1006 ? 1000 : code, "bye");
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.dropSocket(ws);
  }

  private async dropSocket(ws: WebSocket) {
    const att = ws.deserializeAttachment() as SocketAttachment | null;
    if (!att || att.mode !== "view") return;
    this.ready();
    this.leaveLocally([[att.userId, att.connId]], this.now());
    await this.rearm();
  }
}

function closeQuietly(ws: WebSocket, code: number, reason: string) {
  try {
    ws.close(code, reason);
  } catch {
    // already closed
  }
}
