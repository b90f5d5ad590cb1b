/**
 * The live-room object as the benchmarks run it: the production `LiveRoom` plus what only a
 * benchmark asks of it (seeding thousands of viewers in one call, every online id for the naive
 * baseline, the SQLite size). The bench-only entry exports it under the production class name, so
 * wrangler.toml's binding is unchanged; the deployed Worker never contains these methods.
 */
import { LiveRoom, type ConnectionKind, type Counts, type EnterResult, type SessionDescriptor } from "../../src/live/room";

export class BenchLiveRoom extends LiveRoom {
  /** Many joins in one call with known fan status (seeding). */
  async enterMany(d: SessionDescriptor, users: [userId: string, isFan: boolean][], connId: string): Promise<Counts | null> {
    this.ready();
    if (!this.checkSession(d)) return null;
    const now = this.now();
    for (const [userId, isFan] of users) this.enterLocally(userId, isFan, connId, "http", now);
    await this.rearm();
    return { ...this.counts };
  }

  /**
   * The first of the two calls the join made before the object looked fan status up itself: a user
   * already in the room is entered, a new one answered `need_fan` with no lookup (the baseline join
   * then asks Postgres and calls `enter` with the status).
   */
  async enterIfKnown(d: SessionDescriptor, userId: string, connId: string, kind: ConnectionKind): Promise<EnterResult> {
    this.ready();
    if (!this.checkSession(d)) return { status: "stale" };
    const known = this.sql.exec<{ is_fan: number }>(`SELECT is_fan FROM viewers WHERE user_id = ?`, userId).toArray()[0];
    // Nothing was looked up: the baseline asks Postgres whatever the cache holds.
    if (!known) return { status: "need_fan", cache: "missing" };
    return this.enter(d, userId, known.is_fan === 1, connId, kind);
  }

  /** Every online user id: the naive baseline's input. */
  async viewerIds(): Promise<string[]> {
    this.ready();
    return this.sql.exec<{ user_id: string }>(`SELECT user_id FROM viewers`).toArray().map((r) => r.user_id);
  }

  /** SQLite bytes of this object (bytes per viewer). */
  async storageBytes(): Promise<number> {
    return this.sql.databaseSize;
  }
}
