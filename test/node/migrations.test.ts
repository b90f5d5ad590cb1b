/**
 * The committed drizzle/ migrations apply cleanly to an empty database, the
 * way `npm run dev` and the test stack apply them.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { REPO_ROOT, hasMigrations, migrate } from "../../scripts/stack/migrate.js";

const migrationsDir = join(REPO_ROOT, "drizzle");
const database = `ce_migrate_${randomBytes(6).toString("hex")}`;
const serverUrl = (db: string) => Object.assign(new URL(inject("databaseUrl")), { pathname: `/${db}` }).toString();

async function withClient<T>(db: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl(db) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe.skipIf(!hasMigrations())("drizzle/ migrations", () => {
  afterAll(() => withClient("postgres", (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)));

  it("apply to an empty database, creating every table they declare and recording each migration", async () => {
    await withClient("postgres", (c) => c.query(`CREATE DATABASE ${database}`));
    await migrate(serverUrl(database));

    const sql = readdirSync(migrationsDir)
      .filter((f) => f.endsWith(".sql"))
      .map((f) => readFileSync(join(migrationsDir, f), "utf8"))
      .join("\n");
    const declared = [...sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"(?:[^"]+"\.")?([^"]+)"/g)].map((m) => m[1]!);
    const journal = JSON.parse(readFileSync(join(migrationsDir, "meta/_journal.json"), "utf8")) as { entries: unknown[] };

    const { tables, applied } = await withClient(database, async (c) => ({
      tables: (await c.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'")).rows.map((r) => r.name),
      applied: (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations")).rows[0]!.n,
    }));
    expect(declared.length).toBeGreaterThan(0);
    expect(tables.sort()).toEqual(expect.arrayContaining(declared));
    expect(applied).toBe(journal.entries.length);
  });

  it("are idempotent: a second run applies nothing and fails nothing", async () => {
    await migrate(serverUrl(database));
    const applied = await withClient(database, async (c) => (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations")).rows[0]!.n);
    expect(applied).toBe(readdirSync(migrationsDir).filter((f) => f.endsWith(".sql")).length);
  });
});
