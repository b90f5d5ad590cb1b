/**
 * The hub's writes of one synchronous pass over many users — a broadcast's stamp over every online
 * user of a shard, a fan-out page's followers — sent as a few statements for the whole pass rather
 * than one or two per socket: a statement costs the hub more than the rest of a socket's push
 * (a broadcast to a shard's 150 users was 300 of them).
 *
 * Rows change when `commit` runs. A pass reads each (user, cap) once, before its own writes, so
 * nothing in it reads what it has recorded; the caller commits before anything else can read
 * (before its next `await`, and before it starts a read of a user it moved).
 */

/** Rows per statement: one JSON parameter each (a Durable Object's SQL binds at most 100), well under the 2 MB a value may hold. */
const ROWS_PER_STATEMENT = 500;

type Sql = Pick<SqlStorage, "exec">;

export class HubWrites {
  /**
   * (user, cap) → [user, cap, current, counted_to, read_at]: its values moved in place, or by a
   * partial read (read_at; null: not read). Keyed, so a pair recorded twice is written once, as
   * last recorded (one UPDATE ... FROM would apply an arbitrary one of two rows).
   */
  private readonly states = new Map<string, [string, number, string, number, number | null]>();
  /** conn → [conn, sent_at]: the socket was sent its (user, cap)'s `current`, as this pass leaves it. */
  private readonly sent = new Map<string, [string, number]>();
  /** conn → [conn, due]: when a push held back by its interval is due (null: none waits). */
  private readonly dues = new Map<string, [string, number | null]>();
  private soonest: number | null = null;

  /** The soonest push held back by its interval, for the alarm (null: none). */
  get due(): number | null {
    return this.soonest;
  }

  /**
   * `current` for the (user, cap); `countedTo`: the publish time of a post counted in place (0:
   * none); `readAt`: when a partial read that set some of it ended (none: moved in place, unread).
   */
  state(userId: string, cap: number, current: string, countedTo = 0, readAt?: number) {
    const key = `${userId} ${cap}`;
    const earlier = this.states.get(key);
    this.states.set(key, [userId, cap, current, Math.max(countedTo, earlier?.[3] ?? 0), readAt ?? earlier?.[4] ?? null]);
  }

  /**
   * The socket was sent its (user, cap)'s values as they stand once this pass is written: a push
   * only ever sends a socket the state's `current`, so the statement copies it from `state` rather
   * than carrying a second copy of every user's values.
   */
  sentTo(connId: string, at: number) {
    this.sent.set(connId, [connId, at]);
  }

  /** A socket's held-back push: due at `at`, or none (null). */
  dueAt(connId: string, at: number | null) {
    this.dues.set(connId, [connId, at]);
    if (at !== null) this.wakeBy(at);
  }

  /** The alarm must come by `at` (a push held back, already recorded as due then). */
  wakeBy(at: number) {
    this.soonest = Math.min(this.soonest ?? at, at);
  }

  /** Writes what was recorded (and forgets it, so a second commit writes nothing twice). */
  commit(sql: Sql) {
    // States first: the sends copy what they leave.
    each(this.states, (rows) =>
      sql.exec(
        `UPDATE state SET current = json_extract(j.value, '$[2]'), counted_to = max(counted_to, json_extract(j.value, '$[3]')),
           read_at = coalesce(json_extract(j.value, '$[4]'), read_at)
         FROM json_each(?) AS j WHERE state.user_id = json_extract(j.value, '$[0]') AND state.cap = json_extract(j.value, '$[1]')`,
        rows,
      ),
    );
    // Dues before sends: a socket sent now has none waiting.
    each(this.dues, (rows) =>
      sql.exec(`UPDATE sockets SET due = json_extract(j.value, '$[1]') FROM json_each(?) AS j WHERE sockets.conn_id = json_extract(j.value, '$[0]')`, rows),
    );
    each(this.sent, (rows) =>
      sql.exec(
        `UPDATE sockets SET sent = (SELECT current FROM state WHERE state.user_id = sockets.user_id AND state.cap = sockets.cap),
           sent_at = json_extract(j.value, '$[1]'), due = NULL
         FROM json_each(?) AS j WHERE sockets.conn_id = json_extract(j.value, '$[0]')`,
        rows,
      ),
    );
  }
}

/** Runs `write` over `rows`' values in chunks of ROWS_PER_STATEMENT, each as one JSON array, and empties `rows`. */
function each<T>(rows: Map<string, T>, write: (json: string) => void) {
  const all = [...rows.values()];
  for (let i = 0; i < all.length; i += ROWS_PER_STATEMENT) write(JSON.stringify(all.slice(i, i + ROWS_PER_STATEMENT)));
  rows.clear();
}
