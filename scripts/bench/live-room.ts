/**
 * The live-room object as the benchmarks run it: the production `LiveRoom` plus what only a
 * benchmark asks of it (seeding thousands of viewers in one call, every online id for the naive
 * baseline, the SQLite size). The bench-only entry exports it under the production class name, so
 * wrangler.toml's binding is unchanged; the deployed Worker never contains these methods.
 */
import { LiveRoom, type Counts, type SessionDescriptor } from "../../src/live/room";

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
