import { DurableObject } from "cloudflare:workers";
import { applyLogLevel } from "../../lib/log";
import { ConsistencyScope, runInScope } from "../../lib/consistency";
import { mergeSyncTokens, type SyncTokens } from "../../lib/consistency-token";
import type { Env } from "../../env";
import { createEventBus } from "../../lib/events";
import { createServices } from "../../lib/services";
import { maxPulledAccounts } from "../../feed/keys";
import { getBadgesAndBigFollows, type Badges } from "../badges";
import { capped } from "../shared";
import {
  CLOSE_MESSAGE_TOO_BIG,
  CLOSE_SUSPENDED,
  CLOSE_TOKEN_EXPIRED,
  CLOSE_TOO_MANY_SOCKETS,
  DEGRADED_RETRY_MS,
  FRESH_READ_MS,
  PUBLISHED_CLOCK_SLACK_MS,
  HUB_HEADERS,
  MAX_CLIENT_MESSAGE_BYTES,
  MAX_SOCKETS_PER_USER,
  PUSH_INTERVAL_MS,
  TALLY_ORDER_MS,
  type BigPost,
  type HubStamp,
  type PostedTo,
  type TallyChange,
} from "./protocol";
import { readFeedUnseenMany } from "../../feed/unseen";
import { safetyNow } from "../../safety/clock";
import { suspendedArg } from "../../safety/copy";
import { changedKinds, oneMore, readCheapKinds, valuesOf, type BadgeValues, type CheapKind } from "./values";
import { HubWrites } from "./writes";

/** Users whose last tally time is remembered (the oldest is forgotten first). */
const MAX_TALLY_TIMES = 10_000;

/** Kept on the socket itself, so an object that hibernated and wakes knows whose socket it is. */
type Attachment = { connId: string; userId: string; cap: number; expiresAt: number };
type SocketRow = { conn_id: string; user_id: string; cap: number; sent: string | null; sent_at: number; degraded: number; due: number | null; expires_at: number | null };
type StateRow = { user_id: string; cap: number; current: string; read_at: number; counted_to: number };
/** What a read must cover: every kind (`full`), or only kinds with a cheap read of their own. */
type Wanted = { full: boolean; kinds: Set<CheapKind> };
/** A user's read loop: what the next read must cover, and whether one more is needed. */
type ReadLoop = Wanted & { again: boolean };

const SCHEMA = [
  // One row per socket: what it was last sent (null until its snapshot) and when; when a push
  // held back by its interval is due (null: none waits), so the alarm visits only those; when its
  // token expires (the attachment has it too, but reading attachments costs a deserialization each).
  `CREATE TABLE IF NOT EXISTS sockets (conn_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, cap INTEGER NOT NULL, sent TEXT, sent_at INTEGER NOT NULL, degraded INTEGER NOT NULL DEFAULT 0, due INTEGER, expires_at INTEGER)`,
  `CREATE INDEX IF NOT EXISTS sockets_user ON sockets (user_id)`,
  // One row per online (user, cap): the latest values known, which sockets converge to; when they
  // were last read, and the publish time of the latest post counted in place since (`counted_to`).
  `CREATE TABLE IF NOT EXISTS state (user_id TEXT NOT NULL, cap INTEGER NOT NULL, current TEXT NOT NULL, read_at INTEGER NOT NULL, counted_to INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (user_id, cap)) WITHOUT ROWID`,
  // The big accounts each online user follows (the feed's pulled set, as their last read saw it):
  // a big account's post finds its online followers here, by author, with nothing read.
  `CREATE TABLE IF NOT EXISTS big_follows (author_id TEXT NOT NULL, user_id TEXT NOT NULL, PRIMARY KEY (author_id, user_id)) WITHOUT ROWID`,
  `CREATE INDEX IF NOT EXISTS big_follows_user ON big_follows (user_id)`,
];
/** Indexes on columns a table made by an earlier version may lack: made once the columns are added. */
const LATER_INDEXES = [`CREATE INDEX IF NOT EXISTS sockets_due ON sockets (due) WHERE due IS NOT NULL`];

/**
 * Makes the hub's tables, and brings tables an earlier version made up to date: columns added
 * (with what they would hold had they always been there) and the indexes on them. Idempotent.
 */
export function migrateHubSchema(sql: SqlStorage, sockets: () => { deserializeAttachment(): unknown }[]): void {
  const added = (table: string, column: string, type: string) => {
    try {
      sql.exec(`SELECT ${column} FROM ${table} LIMIT 0`);
      return false;
    } catch {
      // A table made before the column existed.
      sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
      return true;
    }
  };
  for (const statement of SCHEMA) sql.exec(statement);
  added("state", "counted_to", "INTEGER NOT NULL DEFAULT 0");
  // Sockets accepted before `due` existed may hold a push back: the first alarm looks at each.
  if (added("sockets", "due", "INTEGER")) sql.exec(`UPDATE sockets SET due = sent_at + ? WHERE sent IS NOT NULL`, PUSH_INTERVAL_MS);
  if (added("sockets", "expires_at", "INTEGER")) {
    for (const ws of sockets()) {
      const a = ws.deserializeAttachment() as Attachment | null;
      if (a) sql.exec(`UPDATE sockets SET expires_at = ? WHERE conn_id = ?`, a.expiresAt, a.connId);
    }
  }
  for (const statement of LATER_INDEXES) sql.exec(statement);
}

const noEvents = createEventBus([]);

/** A move in place of a user's known values, per cap. */
type Move = (values: BadgeValues, cap: number) => void;
type BumpOptions = { set?: { exact: true; kind: CheapKind }; since?: number; post?: true };
/** A followed author's post counted in place, with when it was published (if known). */
type CountedPost = { move: Move; since: number | undefined };
function groupBy<T>(rows: T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

const countPost: Move = (values, cap) => {
  values.authors = oneMore(values.authors, cap);
};

/** The tag that finds one socket by its connection id (tags share one namespace with user ids, which are digits). */
const connTag = (connId: string) => `c:${connId}`;

/**
 * One shard of the live badge sockets: every socket of the users whose id hashes to it (so all of a
 * user's devices share one object). Sockets hibernate: an idle one costs no CPU and no Redis, and
 * `ping` is answered by the runtime without waking the object.
 *
 * Values come from two places. A targeted change (`changed`) reads the user's badges once — the
 * same function `GET /v1/me/badges` runs — and only if the user is online here. A shard-wide change
 * (`stamp`, `posted`, `bigPosted`) moves each online user's known value in place, reading nothing
 * (but `feed`, which `posted` reads for the online followers the post reached, one request per
 * call and database of those followers; every read goes to the user's own database; a big account's followers are found by author in `big_follows`, which the reads keep). Either way
 * each socket is sent the kinds that differ from what it last got, at once after a quiet second,
 * then at most once per PUSH_INTERVAL_MS (the alarm sends what waited).
 */
export class BadgeHub extends DurableObject<Env> {
  /** Users whose read is in flight; `again` asks the loop for one more read when it ends. */
  private reading = new Map<string, ReadLoop>();
  /** Client messages this object handled since it woke (tests: a `ping` must not add one). */
  private handled = 0;
  /** Calls from the Worker (`changed`, `stamp`, `posted`, `bigPosted`, `tallied`) since it woke, for the benchmark's count. */
  private calls = 0;
  /** When each user's last tally change was set (two close together may arrive out of order). */
  private talliedAt = new Map<string, number>();
  /** Tests shorten this to watch counts move in place (FRESH_READ_MS). */
  freshReadMs = FRESH_READ_MS;
  /** Tests point the hub's Redis and Postgres at an outage-simulating pair. */
  servicesEnv: Partial<Env> = {};

  /** The alarm's time as this object last set or read it (null: none); undefined until known after a wake. */
  private alarmAt: number | null | undefined;

  /** The newest sync token per database the Worker's writes told the hub of (read regions; empty otherwise). */
  private seen: SyncTokens = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    applyLogLevel(env.LOG_LEVEL);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
    migrateHubSchema(ctx.storage.sql, () => ctx.getWebSockets());
  }

  private get sql() {
    return this.ctx.storage.sql;
  }

  // ---------------------------------------------------------------- sockets

  override async fetch(request: Request): Promise<Response> {
    const userId = request.headers.get(HUB_HEADERS.user)!;
    const cap = Number(request.headers.get(HUB_HEADERS.cap));
    const expiresAt = Number(request.headers.get(HUB_HEADERS.expiresAt));
    const protocol = request.headers.get(HUB_HEADERS.protocol);
    const headers = protocol ? { "Sec-WebSocket-Protocol": protocol } : undefined;
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    if (this.ctx.getWebSockets(userId).length >= MAX_SOCKETS_PER_USER) {
      // Not hibernatable: it only lives to carry the close code to the client.
      server.accept();
      server.close(CLOSE_TOO_MANY_SOCKETS, `at most ${MAX_SOCKETS_PER_USER} sockets per user`);
      return new Response(null, { status: 101, webSocket: client, headers });
    }
    const attachment: Attachment = { connId: crypto.randomUUID(), userId, cap, expiresAt };
    // Tagged by user (all of a user's sockets) and by connection (one socket found without reading
    // every attachment of the user: a broadcast looks one up per socket).
    this.ctx.acceptWebSocket(server, [userId, connTag(attachment.connId)]);
    server.serializeAttachment(attachment);
    this.sql.exec(`INSERT INTO sockets (conn_id, user_id, cap, sent, sent_at, expires_at) VALUES (?, ?, ?, NULL, 0, ?)`, attachment.connId, userId, cap, expiresAt);
    await this.scheduleAlarm(expiresAt);
    // The snapshot is read after the socket is registered: a change written from now on either is
    // in the snapshot or reaches this socket as a push (reads of one user run one after another).
    this.ctx.waitUntil(this.refresh(userId));
    return new Response(null, { status: 101, webSocket: client, headers });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer) {
    this.handled++;
    const size = typeof message === "string" ? new TextEncoder().encode(message).byteLength : message.byteLength;
    const { connId, userId } = ws.deserializeAttachment() as Attachment;
    if (size > MAX_CLIENT_MESSAGE_BYTES) {
      ws.close(CLOSE_MESSAGE_TOO_BIG, `messages are at most ${MAX_CLIENT_MESSAGE_BYTES} bytes`);
      this.forget(connId, userId);
      return;
    }
    if (message === "badges") {
      // A fresh snapshot: forget what the socket was sent, the next read sends it everything.
      this.sql.exec(`UPDATE sockets SET sent = NULL, due = NULL WHERE conn_id = ?`, connId);
      await this.refresh(userId);
      return;
    }
    ws.send(JSON.stringify({ type: "error", error: { code: "bad_request", message: "unknown message: send `ping` or `badges`" } }));
  }

  override async webSocketClose(ws: WebSocket, code: number) {
    const { connId, userId } = ws.deserializeAttachment() as Attachment;
    this.forget(connId, userId);
    try {
      ws.close(code === 1005 ? 1000 : code, "closed");
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket) {
    const { connId, userId } = ws.deserializeAttachment() as Attachment;
    this.forget(connId, userId);
  }

  private forget(connId: string, userId: string) {
    this.sql.exec(`DELETE FROM sockets WHERE conn_id = ?`, connId);
    const left = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM sockets WHERE user_id = ?`, userId).one().n;
    if (left === 0) {
      this.sql.exec(`DELETE FROM state WHERE user_id = ?`, userId);
      this.sql.exec(`DELETE FROM big_follows WHERE user_id = ?`, userId);
    }
  }

  // ---------------------------------------------------------------- changes

  /**
   * Targeted change: the online ones among `userIds` get their badges read and pushed — only
   * `kinds` when every one of them has a cheap read of its own (one hash), otherwise everything.
   * Answers the online ones (a push notification skips them: the open app has it).
   */
  async changed(userIds: string[], kinds?: CheapKind[], tokens?: SyncTokens): Promise<string[]> {
    this.calls++;
    const online = userIds.filter((u) => this.isOnline(u));
    this.told(tokens);
    await Promise.all(online.map((u) => this.refresh(u, kinds)));
    return online;
  }

  /**
   * Which of `userIds` have an open socket here, and nothing else: no read, no push. For a caller
   * that only needs the answer (a broadcast's push notifications: the broadcast's own stamp already
   * moved the open apps' counts).
   */
  /** Closes every socket of a user just suspended (CLOSE_SUSPENDED); how many it closed. */
  async closeUser(userId: string): Promise<number> {
    const sockets = this.ctx.getWebSockets(userId);
    for (const ws of sockets) ws.close(CLOSE_SUSPENDED, "suspended");
    return sockets.length;
  }

  async online(userIds: string[]): Promise<string[]> {
    this.calls++;
    return userIds.filter((u) => this.isOnline(u));
  }

  /**
   * A tally write's answer, set as it is (no read). Two writes for one user in quick succession may
   * reach the hub in either order, so the second within TALLY_ORDER_MS is followed by a read of
   * the kind, which sees both.
   */
  async tallied(userId: string, change: TallyChange, tokens?: SyncTokens): Promise<boolean> {
    this.calls++;
    this.told(tokens);
    if (!this.isOnline(userId)) return false;
    const now = Date.now();
    const previous = this.talliedAt.get(userId);
    this.talliedAt.set(userId, now);
    if (previous !== undefined && now - previous < TALLY_ORDER_MS) {
      await this.refresh(userId, [change.kind]);
      return true;
    }
    if (this.talliedAt.size > MAX_TALLY_TIMES) this.talliedAt.delete(this.talliedAt.keys().next().value!);
    const writes = new HubWrites();
    const moved = this.bump(userId, this.stateRows(userId), (values, cap) => {
      if (change.kind === "dms") values.dms = capped(change.total, cap);
      else {
        const byType = change.all ? {} : { ...values.notifications.byType };
        if (change.key !== undefined) {
          if ((change.count ?? 0) > 0) byType[change.key] = capped(change.count!, cap);
          else delete byType[change.key];
        }
        values.notifications = { byType, total: capped(change.total, cap) };
      }
    }, { set: { exact: true, kind: change.kind } }, writes);
    this.commit(writes);
    if (!moved) this.ctx.waitUntil(this.refresh(userId, [change.kind]));
    return true;
  }

  /**
   * A broadcast or a red-dot stamp: every online user's value moves in place, nothing is read, but
   * for a user read since it was written (`writtenAt`), whose read may hold it already (a broadcast
   * counted, a dot the user has since seen): they are read instead, however late the stamp comes.
   */
  async stamp(stamp: HubStamp): Promise<number> {
    this.calls++;
    const move: Move = (values, cap) => {
      if (stamp.kind === "broadcasts") values.broadcasts = oneMore(values.broadcasts, cap);
      else values.reddots = { ...values.reddots, [stamp.channel]: true };
    };
    const options: BumpOptions = { since: stamp.writtenAt };
    // Every online user at once: the shard's state and the sockets a push may go to in one
    // statement each, not two per user (a broadcast moves every one of them).
    const byUser = groupBy(this.sql.exec<StateRow>(`SELECT * FROM state`).toArray(), (r) => r.user_id);
    const sockets = groupBy(this.sql.exec<SocketRow>(`SELECT * FROM sockets WHERE sent IS NOT NULL AND degraded = 0`).toArray(), (r) => `${r.user_id} ${r.cap}`);
    const now = Date.now();
    const writes = new HubWrites();
    const reads: string[] = [];
    for (const [userId, rows] of byUser) {
      if (this.mustRead(userId, rows, options, now)) reads.push(userId);
      else for (const row of rows) this.moveState(userId, row, move, now, writes, sockets.get(`${userId} ${row.cap}`) ?? []);
    }
    this.commit(writes);
    for (const userId of reads) this.ctx.waitUntil(this.refresh(userId));
    return byUser.size;
  }

  /**
   * One fan-out page of a post: each online follower's `authors` is one more, unless a read of theirs
   * ended after the post was published (`publishedAt`; a page may come long after, behind a queue
   * backlog): that read may count it already, so they are read instead. Where the post was
   * new to the timeline, `feed` is read (a small read of its own): the badge counts the posts above
   * the follower's last first-page read, and a late delivery of an older post is not one of them,
   * so one more is not always right. The page's `feed` reads are one request per database holding
   * some of those followers (one at N = 1), in parallel. Offline followers
   * cost nothing.
   */
  async posted(followers: PostedTo[], publishedAt?: number): Promise<number> {
    this.calls++;
    let online = 0;
    const withFeed: string[] = [];
    const counted: CountedPost = { move: countPost, since: publishedAt };
    const options: BumpOptions = { since: publishedAt, post: true };
    const writes = new HubWrites();
    const reads: string[] = [];
    for (const { userId, feed } of followers) {
      if (!this.isOnline(userId)) continue;
      online++;
      // A follower whose `feed` is read gets `authors` moved in the same update as that read's
      // answer: one push carrying both, not a second one held back by the push interval. One who
      // must be read anyway gets a full read from `bump`, `feed` included.
      const rows = this.stateRows(userId);
      if (feed && !this.mustRead(userId, rows, options)) withFeed.push(userId);
      else if (!this.bump(userId, rows, countPost, options, writes)) reads.push(userId);
    }
    this.commit(writes);
    for (const userId of reads) this.ctx.waitUntil(this.refresh(userId));
    await this.refreshFeeds(withFeed, counted);
    return online;
  }

  /**
   * A big account's post (or its delete), sent to every shard: its followers were never walked.
   * The online ones are found here, by author, among the big accounts each user's last read saw
   * them follow. A post moves `authors` and `feed` one up in place, nothing read (but for a reader
   * read since it was published, who may count it already: read again, as in `posted`); a reader who
   * follows more big accounts than a page merges (MAX_PULLED_ACCOUNTS) has `feed` read instead (the
   * post may push another account's out of the merge). A delete has them read (a post already
   * counted or not, seen or not: only a read knows). Offline followers cost nothing.
   */
  async bigPosted(post: BigPost): Promise<number> {
    this.calls++;
    const users = this.sql
      .exec<{ user_id: string }>(`SELECT b.user_id FROM big_follows b WHERE b.author_id = ? AND EXISTS (SELECT 1 FROM state s WHERE s.user_id = b.user_id)`, post.authorId)
      .toArray()
      .map((r) => r.user_id);
    if (post.op === "remove") {
      await Promise.all(users.map((u) => this.refresh(u)));
      return users.length;
    }
    const maxPulled = this.maxPulled();
    const options: BumpOptions = { since: post.publishedAt, post: true };
    const writes = new HubWrites();
    const fullReads: string[] = [];
    const reads: string[] = [];
    for (const userId of users) {
      const follows = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM big_follows WHERE user_id = ?`, userId).one().n;
      const exact = follows <= maxPulled;
      const move: Move = (values, cap) => {
        values.authors = oneMore(values.authors, cap);
        if (exact) values.feed = oneMore(values.feed, cap);
      };
      if (!this.bump(userId, this.stateRows(userId), move, options, writes)) fullReads.push(userId);
      else if (!exact) reads.push(userId);
    }
    this.commit(writes);
    for (const userId of fullReads) this.ctx.waitUntil(this.refresh(userId));
    await this.refreshFeeds(reads);
    return users.length;
  }

  /** Replaces what is known of the big accounts `userId` follows (a read's answer). */
  private learnBigFollows(userId: string, authors: string[] | null) {
    if (!authors) return;
    this.sql.exec(`DELETE FROM big_follows WHERE user_id = ?`, userId);
    for (const authorId of new Set(authors)) this.sql.exec(`INSERT INTO big_follows (author_id, user_id) VALUES (?, ?)`, authorId, userId);
  }

  private maxPulled() {
    return maxPulledAccounts({ ...this.env, ...this.servicesEnv });
  }

  /**
   * Sockets and users here, sockets whose snapshot waits for a retry (degraded: the alarm reads
   * them again); client messages handled and Worker calls received since the object woke.
   */
  async stats() {
    const sockets = this.ctx.getWebSockets().length;
    const users = this.sql.exec<{ n: number }>(`SELECT count(DISTINCT user_id) AS n FROM sockets`).one().n;
    const degraded = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM sockets WHERE degraded = 1`).one().n;
    return { sockets, users, degraded, handled: this.handled, calls: this.calls };
  }

  private isOnline(userId: string) {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM sockets WHERE user_id = ?`, userId).one().n > 0;
  }

  /**
   * Moves a user's known values (`rows`) in place, into `writes`; false, moving nothing, where it
   * must be a read instead (`mustRead`: a read in flight, or one so recent it may already hold the
   * change — exact, at the price of one read), which the caller starts once `writes` is committed.
   * For a `post`, `counted_to` keeps the post's publish time (`since`): a read that ended after it,
   * or a move in place for a post published since (or this one, its page delivered again), may hold it.
   */
  private bump(userId: string, rows: StateRow[], move: Move, options: BumpOptions, writes: HubWrites): boolean {
    const now = Date.now();
    if (this.mustRead(userId, rows, options, now)) return false;
    const { since, post } = options;
    const sockets = rows.length > 0 ? this.flushable(userId) : [];
    for (const row of rows) this.moveState(userId, row, move, now, writes, sockets.filter((s) => s.cap === row.cap), post ? (since ?? 0) : 0);
    return true;
  }

  /**
   * One (user, cap)'s values moved by `move`, and its sockets (`sockets`, those of the cap that
   * were sent a snapshot) sent what changed: the state and the sends into `writes`.
   */
  private moveState(userId: string, row: StateRow, move: Move, now: number, writes: HubWrites, sockets: SocketRow[], countedTo = 0) {
    const before = JSON.parse(row.current) as BadgeValues;
    // A move replaces the kinds it changes (never edits one in place), so `before` stays as read.
    const values = { ...before };
    move(values, row.cap);
    const json = JSON.stringify(values);
    writes.state(userId, row.cap, json, countedTo);
    this.flushSockets(userId, values, sockets, now, writes, { json: row.current, values: before });
  }

  /** The user's sockets that were sent a snapshot (the ones a push may go to). */
  private flushable(userId: string, cap?: number): SocketRow[] {
    return cap === undefined
      ? this.sql.exec<SocketRow>(`SELECT * FROM sockets WHERE user_id = ? AND sent IS NOT NULL AND degraded = 0`, userId).toArray()
      : this.sql.exec<SocketRow>(`SELECT * FROM sockets WHERE user_id = ? AND cap = ? AND sent IS NOT NULL AND degraded = 0`, userId, cap).toArray();
  }

  /** Writes what a pass recorded, and sets the alarm for a push it held back. */
  private commit(writes: HubWrites) {
    writes.commit(this.sql);
    if (writes.due !== null) this.ctx.waitUntil(this.scheduleAlarm(writes.due));
  }

  private stateRows(userId: string): StateRow[] {
    return this.sql.exec<StateRow>(`SELECT * FROM state WHERE user_id = ?`, userId).toArray();
  }

  /**
   * Whether a move in place of `userId`'s values must be a read instead: a read in flight (which
   * may answer from before the change), or — for a change not set from a write's own answer,
   * which is exact whatever was read before — a read so recent, or a post counted since, that it
   * may hold the change already.
   */
  private mustRead(userId: string, rows: StateRow[], { set, since, post }: BumpOptions, now = Date.now()): boolean {
    const mayHoldChange = (r: StateRow) =>
      now - r.read_at < this.freshReadMs || (since !== undefined && (r.read_at >= since - PUBLISHED_CLOCK_SLACK_MS || (post && since <= r.counted_to)));
    return this.reading.has(userId) || (!set && rows.some(mayHoldChange));
  }

  /**
   * Read regions: keeps the newest sync token of each database a write's call told this hub of
   * (`changed`, `tallied`). A value a write handed the hub is shown at once; a later read by a
   * read region that has not applied that write yet would take it back. Every read here carries
   * what the hub was told, so it is never older than a write the hub already knows.
   *
   * Shared by every user of the shard, so it holds only what the Worker's writes answered
   * (`writtenSyncTokens`), never a token a request carried in: one caller's token must not hold
   * back another's reads.
   */
  private told(tokens: SyncTokens | undefined) {
    if (tokens) this.seen = mergeSyncTokens(this.seen, tokens);
  }

  /**
   * Runs a read carrying the sync tokens the hub was told of, in a scope of the hub's own: never in
   * whatever request scope the call that woke it may have come with (read regions off, the scope
   * is never consulted).
   */
  private carryingSeen<T>(read: () => Promise<T>): Promise<T> {
    return runInScope(new ConsistencyScope(this.seen), read);
  }

  /**
   * Reads the user's badges (once per cap their sockets asked for) and pushes what changed. Reads
   * of one user never overlap, so an older answer never overwrites a newer one: a change arriving
   * during a read asks for one more read after it.
   */
  private async refresh(userId: string, kinds?: CheapKind[]): Promise<void> {
    const inFlight = this.reading.get(userId);
    if (inFlight) {
      inFlight.again = true;
      if (kinds) for (const k of kinds) inFlight.kinds.add(k);
      else inFlight.full = true;
      return;
    }
    const loop = { again: true, full: !kinds, kinds: new Set(kinds ?? []) };
    this.reading.set(userId, loop);
    try {
      while (loop.again) {
        const wanted: Wanted = { full: loop.full, kinds: loop.kinds };
        Object.assign(loop, { again: false, full: false, kinds: new Set<CheapKind>() });
        await this.carryingSeen(() => this.readAndPush(userId, wanted));
      }
    } finally {
      this.reading.delete(userId);
    }
  }

  /**
   * `refresh(userId, ["feed"])` for many users, their reads made as one Redis request per database of those
   * users, in parallel (one request at N = 1): a fan-out
   * page reaches ~80 online followers of a hub, and a request each would wait its turn for the
   * Workers' few simultaneous connections. Exact as `refresh` is: a user already being read only
   * asks that loop for one more read; the others are marked as being read for the batch's
   * duration, so a change arriving meanwhile asks for one more read, made after it by `refresh`.
   * A user the batch cannot settle (a socket awaiting its snapshot, no state, Redis failed) is
   * read on their own, as `refresh` would.
   */
  private async refreshFeeds(userIds: string[], counted?: CountedPost): Promise<void> {
    // With a post to count as well, a user the batch cannot settle gets a full read (it covers `authors` too).
    const fallback = counted ? undefined : (["feed"] as CheapKind[]);
    const batch: string[] = [];
    for (const userId of new Set(userIds)) {
      if (this.reading.has(userId)) void this.refresh(userId, fallback); // only marks the loop: returns at once
      else {
        this.reading.set(userId, { again: false, full: false, kinds: new Set() });
        batch.push(userId);
      }
    }
    if (batch.length === 0) return;
    const counts = await this.carryingSeen(() => this.readFeeds(batch));
    const writes = new HubWrites();
    const again: [string, ReadLoop][] = [];
    for (const [i, userId] of batch.entries()) {
      const loop = this.reading.get(userId)!;
      const count = counts?.[i];
      if (count == null || !this.applyFeed(userId, count, writes, counted)) {
        loop.again = true;
        if (counted) loop.full = true;
        else loop.kinds.add("feed");
      }
      this.reading.delete(userId);
      if (loop.again) again.push([userId, loop]);
    }
    // Written before any read starts: a read reads the state these answers moved.
    this.commit(writes);
    await Promise.all(again.map(([userId, loop]) => this.refresh(userId, loop.full ? undefined : [...loop.kinds])));
  }

  /**
   * Sets and pushes a user's `feed` per cap, as a partial read does, with the post `counted` moved
   * in the same update; false (nothing set) when a cap has no settled state.
   */
  private applyFeed(userId: string, count: number, writes: HubWrites, counted?: CountedPost): boolean {
    const caps = this.sql.exec<{ cap: number }>(`SELECT DISTINCT cap FROM sockets WHERE user_id = ?`, userId).toArray().map((r) => r.cap);
    const states = caps.map((cap) => this.settledState(userId, cap));
    if (states.some((state) => !state)) return false;
    for (const state of states) this.applyPart(userId, state!, { feed: capped(count, state!.cap) }, writes, counted);
    return true;
  }

  /** The (user, cap) state a partial read may update: none while a socket awaits a snapshot. */
  private settledState(userId: string, cap: number): StateRow | undefined {
    const state = this.sql.exec<StateRow>(`SELECT * FROM state WHERE user_id = ? AND cap = ?`, userId, cap).toArray()[0];
    const waiting = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM sockets WHERE user_id = ? AND cap = ? AND (sent IS NULL OR degraded = 1)`, userId, cap).one().n;
    return waiting === 0 ? state : undefined;
  }

  /** Only the kinds that moved, each from its own read; the rest is what the hub knows (and a post `counted` in place, as `bump` does). */
  private applyPart(userId: string, state: StateRow, part: Partial<BadgeValues>, writes: HubWrites, counted?: CountedPost) {
    const before = JSON.parse(state.current) as BadgeValues;
    const values = { ...before, ...part };
    counted?.move(values, state.cap);
    const now = Date.now();
    const json = JSON.stringify(values);
    writes.state(userId, state.cap, json, counted?.since ?? 0, now);
    this.flushSockets(userId, values, this.flushable(userId, state.cap), now, writes, { json: state.current, values: before });
  }

  private async readAndPush(userId: string, wanted: Wanted) {
    const caps = this.sql.exec<{ cap: number }>(`SELECT DISTINCT cap FROM sockets WHERE user_id = ?`, userId).toArray().map((r) => r.cap);
    for (const cap of caps) {
      const state = this.settledState(userId, cap);
      if (!wanted.full && state) {
        const part = await this.readCheap(userId, cap, [...wanted.kinds]);
        if (part) {
          const writes = new HubWrites();
          this.applyPart(userId, state, part, writes);
          this.commit(writes);
          continue;
        }
      }
      const { badges, bigFollows } = await this.readBadges(userId, cap);
      const now = Date.now();
      if (badges.degraded) {
        // Nothing trustworthy to push: sockets still waiting for a snapshot get the degraded one
        // (as the HTTP call answers), and every socket of the user is offered a fresh one later.
        const waiting = this.sql.exec<SocketRow>(`SELECT * FROM sockets WHERE user_id = ? AND cap = ? AND sent IS NULL`, userId, cap).toArray();
        for (const row of waiting) this.sendSnapshot(row.conn_id, userId, badges, true);
        this.sql.exec(`UPDATE sockets SET degraded = 1, due = NULL WHERE user_id = ? AND cap = ?`, userId, cap);
        await this.scheduleAlarm(now + DEGRADED_RETRY_MS);
        continue;
      }
      const values = valuesOf(badges);
      this.learnBigFollows(userId, bigFollows);
      this.sql.exec(
        `INSERT INTO state (user_id, cap, current, read_at) VALUES (?, ?, ?, ?) ON CONFLICT (user_id, cap) DO UPDATE SET current = excluded.current, read_at = excluded.read_at`,
        userId,
        cap,
        JSON.stringify(values),
        now,
      );
      const fresh = this.sql.exec<SocketRow>(`SELECT * FROM sockets WHERE user_id = ? AND cap = ? AND (sent IS NULL OR degraded = 1)`, userId, cap).toArray();
      for (const row of fresh) this.sendSnapshot(row.conn_id, userId, badges, false);
      this.push(userId, cap, values, now);
    }
  }

  private async readBadges(userId: string, cap: number): Promise<{ badges: Badges; bigFollows: string[] | null }> {
    const background: Promise<unknown>[] = [];
    const { services, close } = createServices({ ...this.env, ...this.servicesEnv }, { waitUntil: (p) => background.push(p) }, noEvents);
    try {
      return await getBadgesAndBigFollows(services, userId, cap);
    } finally {
      // A Neon pool may not outlive its work: close it once the background writes settled.
      this.ctx.waitUntil(Promise.allSettled(background).then(close));
    }
  }

  /** The cheap kinds' values (null when Redis failed: the caller falls back to a full read, which degrades). */
  private async readCheap(userId: string, cap: number, kinds: CheapKind[]): Promise<Partial<BadgeValues> | null> {
    const { services } = createServices({ ...this.env, ...this.servicesEnv }, this.ctx, noEvents);
    try {
      const { values, bigFollows } = await readCheapKinds(services.redisFor(userId), userId, cap, kinds, this.maxPulled(), safetyNow(services.env), await suspendedArg(services));
      this.learnBigFollows(userId, bigFollows);
      return values;
    } catch {
      return null;
    }
  }

  /**
   * Each user's `feed` count: one request per database holding some of them, in parallel (null for
   * the users of a database that failed, or for all on a command error: each is then read on their
   * own, so only that database's users degrade).
   */
  private async readFeeds(userIds: string[]): Promise<(number | null)[] | null> {
    const { services } = createServices({ ...this.env, ...this.servicesEnv }, this.ctx, noEvents);
    try {
      return await readFeedUnseenMany(services, userIds, this.maxPulled(), await suspendedArg(services));
    } catch {
      return null;
    }
  }

  private socket(connId: string, userId: string): WebSocket | undefined {
    const [tagged] = this.ctx.getWebSockets(connTag(connId));
    if (tagged) return tagged;
    // A socket accepted before sockets carried their connection's tag.
    return this.ctx.getWebSockets(userId).find((ws) => (ws.deserializeAttachment() as Attachment | null)?.connId === connId);
  }

  private sendSnapshot(connId: string, userId: string, badges: Badges, degraded: boolean) {
    const ws = this.socket(connId, userId);
    if (!ws) return this.forget(connId, userId);
    ws.send(JSON.stringify({ type: "badges", badges }));
    // A snapshot does not start a push interval: a change right after connecting shows at once.
    this.sql.exec(`UPDATE sockets SET sent = ?, degraded = ? WHERE conn_id = ?`, JSON.stringify(valuesOf(badges)), degraded ? 1 : 0, connId);
  }

  /**
   * Sends each socket of (user, cap) the kinds it lacks, now or (inside its push interval) from the
   * alarm, into `writes` (`writes.due`: when the earliest deferred push is due).
   */
  private flushUser(userId: string, cap: number, current: BadgeValues, now: number, writes: HubWrites) {
    this.flushSockets(userId, current, this.flushable(userId, cap), now, writes);
  }

  /**
   * `flushUser` over the (user, cap)'s sockets already read, into `writes`; `current` is the
   * state's values as the pass leaves them (what a sent socket is recorded as having). With `previous` (the values `current` was moved from, and their JSON as
   * stored): a socket last sent exactly those is sent what the move changed, compared once for
   * the user rather than per socket.
   */
  private flushSockets(
    userId: string,
    current: BadgeValues,
    rows: SocketRow[],
    now: number,
    writes: HubWrites,
    previous?: { json: string; values: BadgeValues },
  ) {
    let moved: Partial<BadgeValues> | undefined;
    for (const row of rows) {
      const changed = previous && row.sent === previous.json ? (moved ??= changedKinds(previous.values, current)) : changedKinds(JSON.parse(row.sent!) as BadgeValues, current);
      if (Object.keys(changed).length === 0) {
        if (row.due !== null) writes.dueAt(row.conn_id, null);
        continue;
      }
      if (now - row.sent_at < PUSH_INTERVAL_MS) {
        const at = row.sent_at + PUSH_INTERVAL_MS;
        if (row.due !== at) writes.dueAt(row.conn_id, at);
        else writes.wakeBy(at); // recorded already: the alarm still has to come by then
        continue;
      }
      const ws = this.socket(row.conn_id, userId);
      if (!ws) {
        this.forget(row.conn_id, userId);
        continue;
      }
      ws.send(JSON.stringify({ type: "badges", changed }));
      writes.sentTo(row.conn_id, now);
    }
  }

  /** Pushes now what can go now; the rest from the alarm. */
  private push(userId: string, cap: number, current: BadgeValues, now: number) {
    const writes = new HubWrites();
    this.flushUser(userId, cap, current, now, writes);
    this.commit(writes);
  }

  // ---------------------------------------------------------------- alarm

  /**
   * Sets the alarm to `at` unless one is due sooner. The time set is kept in memory (only this
   * object sets it), so a push held back by its interval — one per online user in a broadcast —
   * costs no storage read; the first after a wake reads it once.
   */
  private async scheduleAlarm(at: number) {
    if (this.alarmAt === undefined) {
      const stored = await this.ctx.storage.getAlarm();
      this.alarmAt ??= stored;
    }
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at; // before the await: calls made one after another set it in that order
    try {
      await this.ctx.storage.setAlarm(at);
    } catch (err) {
      this.alarmAt = undefined; // unknown again: the next call reads it
      throw err;
    }
  }

  /** Closes expired sockets (4001), sends pushes that waited for their interval, retries degraded snapshots. */
  override async alarm() {
    // The alarm that fired is gone; whatever is set from here on is the next one.
    this.alarmAt = null;
    const now = Date.now();
    for (const row of this.sql.exec<{ conn_id: string; user_id: string }>(`SELECT conn_id, user_id FROM sockets WHERE expires_at <= ?`, now).toArray()) {
      this.socket(row.conn_id, row.user_id)?.close(CLOSE_TOKEN_EXPIRED, "token expired");
      this.forget(row.conn_id, row.user_id);
    }
    // Only the (user, cap) pairs with a push held back and due: the rest have nothing waiting.
    const waiting = this.sql
      .exec<{ user_id: string; cap: number; current: string }>(
        `SELECT st.user_id, st.cap, st.current FROM state st WHERE EXISTS (SELECT 1 FROM sockets s WHERE s.due <= ? AND s.user_id = st.user_id AND s.cap = st.cap)`,
        now,
      )
      .toArray();
    const writes = new HubWrites();
    for (const row of waiting) this.flushUser(row.user_id, row.cap, JSON.parse(row.current) as BadgeValues, now, writes);
    // Not `this.commit`: the next alarm is set below, from every due time the table holds.
    writes.commit(this.sql);
    // What is still due now was flushed or cannot be (a socket awaiting its snapshot, which sends
    // everything): a push held back again has a due time ahead. Cleared, so no alarm fires for it.
    this.sql.exec(`UPDATE sockets SET due = NULL WHERE due <= ?`, now);
    const next = this.sql.exec<{ at: number | null }>(`SELECT min(at) AS at FROM (SELECT min(expires_at) AS at FROM sockets UNION ALL SELECT min(due) FROM sockets WHERE due IS NOT NULL)`).one().at;
    if (next !== null) await this.scheduleAlarm(next);
    // Offered a fresh snapshot; still degraded, the read schedules the next try.
    const degraded = this.sql.exec<{ user_id: string }>(`SELECT DISTINCT user_id FROM sockets WHERE degraded = 1`).toArray();
    await Promise.all(degraded.map(({ user_id }) => this.refresh(user_id)));
  }
}
