/**
 * The stand-in for Neon's HTTP query endpoint, proven with the real driver (`neon()` through
 * src/lib/db.ts, configured exactly as the Worker configures it for local runs): statements,
 * batches in one transaction, errors as Neon answers them, the types values arrive as, outages.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eq } from "drizzle-orm";
import { startNeonHttpProxy, type NeonHttpProxy } from "../../scripts/stack/neon-http-proxy.js";
import { httpDatabase, queryBatch, queryRows, type Database } from "../../src/lib/db";
import { isDependencyFailure } from "../../src/lib/errors";
import { posts } from "../../src/db/schema";

let proxy: NeonHttpProxy;
let db: Database;
const table = `http_proxy_test_${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  proxy = await startNeonHttpProxy({ databaseUrl: inject("databaseUrl") });
  db = httpDatabase({ DATABASE_URL: inject("databaseUrl"), NEON_HTTP_PROXY: proxy.url });
  await queryRows(db, `CREATE TABLE ${table} (id bigint PRIMARY KEY, note text, at timestamptz, meta jsonb, ok boolean, tags text[])`, []);
});

afterAll(async () => {
  proxy.setDown(false);
  await queryRows(db, `DROP TABLE IF EXISTS ${table}`, []);
  await proxy.close();
});

describe("Neon's HTTP query path through the stand-in", () => {
  it("runs a statement with parameters: one request, one statement", async () => {
    const before = { requests: proxy.stats.requests, statements: proxy.stats.statements };
    const rows = await queryRows<{ two: number; db: string }>(db, "SELECT $1::int + 1 AS two, current_database() AS db", [1]);
    expect(rows).toEqual([{ two: 2, db: new URL(inject("databaseUrl")).pathname.slice(1) }]);
    expect(proxy.stats.requests - before.requests).toBe(1);
    expect(proxy.stats.statements - before.statements).toBe(1);
  });

  it("answers every type as the WebSocket path does: bigint ids as text, timestamptz as Date, json, booleans, nulls, arrays", async () => {
    const at = new Date("2026-01-02T03:04:05.678Z");
    await queryRows(db, `INSERT INTO ${table} VALUES ($1, $2, $3, $4, $5, $6), ($7, NULL, NULL, NULL, NULL, NULL)`, ["9007199254740993", "a'b", at.toISOString(), JSON.stringify({ k: [1, "x"] }), true, ["p", "q r"], "2"]);
    const rows = await queryRows<Record<string, unknown>>(db, `SELECT id, note, at, meta, ok, tags, ARRAY[id, 1]::bigint[] AS ids FROM ${table} ORDER BY id DESC`, []);
    expect(rows).toEqual([
      { id: "9007199254740993", note: "a'b", at, meta: { k: [1, "x"] }, ok: true, tags: ["p", "q r"], ids: ["9007199254740993", "1"] },
      { id: "2", note: null, at: null, meta: null, ok: null, tags: null, ids: ["2", "1"] },
    ]);
  });

  it("runs a batch in one request and one transaction: every statement's rows, in order", async () => {
    const before = { requests: proxy.stats.requests, statements: proxy.stats.statements };
    const [inserted, counted] = await queryBatch(db, [
      { text: `INSERT INTO ${table} (id, note) VALUES ($1, 'batch') RETURNING id`, params: ["10"] },
      { text: `SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, params: ["10"] },
    ]);
    expect(inserted).toEqual([{ id: "10" }]);
    // The second statement sees the first: one transaction.
    expect(counted).toEqual([{ n: 1 }]);
    expect(proxy.stats.requests - before.requests).toBe(1);
    expect(proxy.stats.statements - before.statements).toBe(2);
  });

  it("rolls a batch back whole when a statement fails, and answers the Postgres error as Neon does", async () => {
    const error = await queryBatch(db, [
      { text: `INSERT INTO ${table} (id, note) VALUES ($1, 'lost')`, params: ["11"] },
      { text: `INSERT INTO ${table} (id, note) VALUES ($1, 'dup')`, params: ["10"] },
    ]).catch((e: unknown) => e as Error & { code?: string; constraint?: string });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "NeonDbError", code: "23505", constraint: `${table}_pkey` });
    expect(isDependencyFailure(error)).toBe(false);
    expect(await queryRows(db, `SELECT 1 FROM ${table} WHERE id = $1`, ["11"])).toEqual([]);
  });

  it("gives drizzle's queries their timestamps as drizzle maps them, and leaves raw queries' types alone", async () => {
    const author = String(8_000_000_000 + Math.floor(Math.random() * 1_000_000));
    const [row] = await db.insert(posts).values({ authorId: author, text: "over http" }).returning();
    expect(row!.authorId).toBe(author);
    const [read] = await db.select().from(posts).where(eq(posts.id, row!.id));
    expect(read!.text).toBe("over http");
    // mode "string" columns: Postgres' text, as drizzle's own drivers hand it over.
    expect(read!.createdAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    const [raw] = await queryRows<{ at: unknown }>(db, "SELECT now() AS at", []);
    expect(raw!.at).toBeInstanceOf(Date);
    await db.delete(posts).where(eq(posts.id, row!.id));
  });

  it("is unreachable while down (a dependency failure: 503), and answers again once up", async () => {
    proxy.setDown(true);
    try {
      const error = await queryRows(db, "SELECT 1", []).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(isDependencyFailure(error)).toBe(true);
    } finally {
      proxy.setDown(false);
    }
    expect(await queryRows(db, "SELECT 1 AS one", [])).toEqual([{ one: 1 }]);
  });
});
