/**
 * A hub's SQLite tables made by an earlier version are brought up to date when the object starts:
 * the columns added hold what they would had they always been there, and nothing held is lost.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { migrateHubSchema, type BadgeHub } from "../../src/badges/live/hub";
import { PUSH_INTERVAL_MS } from "../../src/badges/live/protocol";
import { newId } from "../support/api";

/** The tables as the version before `due`, `expires_at` and `counted_to` made them. */
const OLD_TABLES = [
  `CREATE TABLE sockets (conn_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, cap INTEGER NOT NULL, sent TEXT, sent_at INTEGER NOT NULL, degraded INTEGER NOT NULL DEFAULT 0)`,
  `CREATE INDEX sockets_user ON sockets (user_id)`,
  `CREATE TABLE state (user_id TEXT NOT NULL, cap INTEGER NOT NULL, current TEXT NOT NULL, read_at INTEGER NOT NULL, PRIMARY KEY (user_id, cap)) WITHOUT ROWID`,
];

describe("hub tables made by an earlier version", () => {
  it("gain due (a held-back push for every socket already sent something), expires_at (from each socket's attachment) and counted_to; a second start changes nothing", async () => {
    const user = newId();
    // An object of its own, not one of the shards other tests' sockets live on: its tables are replaced.
    const hubs = (env as unknown as Env).BADGE_HUBS;
    await runInDurableObject(hubs.get(hubs.idFromName(`hub-schema-${user}`)), (_hub: BadgeHub, state) => {
      const sql = state.storage.sql;
      sql.exec(`DROP TABLE sockets`);
      sql.exec(`DROP TABLE state`);
      for (const statement of OLD_TABLES) sql.exec(statement);
      sql.exec(`INSERT INTO sockets (conn_id, user_id, cap, sent, sent_at) VALUES ('sent', ?, 99, '{}', 5000), ('waiting', ?, 99, NULL, 0)`, user, user);
      sql.exec(`INSERT INTO state (user_id, cap, current, read_at) VALUES (?, 99, '{}', 7)`, user);
      const attachments = [
        { connId: "sent", userId: user, cap: 99, expiresAt: 123_000 },
        { connId: "waiting", userId: user, cap: 99, expiresAt: 456_000 },
      ];
      const sockets = () => attachments.map((a) => ({ deserializeAttachment: () => a }));

      migrateHubSchema(sql, sockets);
      const rows = () => sql.exec(`SELECT conn_id, sent, sent_at, due, expires_at FROM sockets ORDER BY conn_id`).toArray();
      expect(rows()).toEqual([
        { conn_id: "sent", sent: "{}", sent_at: 5000, due: 5000 + PUSH_INTERVAL_MS, expires_at: 123_000 },
        { conn_id: "waiting", sent: null, sent_at: 0, due: null, expires_at: 456_000 },
      ]);
      expect(sql.exec(`SELECT user_id, current, read_at, counted_to FROM state`).toArray()).toEqual([{ user_id: user, current: "{}", read_at: 7, counted_to: 0 }]);
      expect(sql.exec(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'sockets_due'`).toArray()).toEqual([{ name: "sockets_due" }]);

      // A later start finds the columns there: what the hub wrote since stays as it is.
      sql.exec(`UPDATE sockets SET due = NULL, expires_at = 999 WHERE conn_id = 'sent'`);
      migrateHubSchema(sql, sockets);
      expect(rows()[0]).toEqual({ conn_id: "sent", sent: "{}", sent_at: 5000, due: null, expires_at: 999 });
    });
  });
});
