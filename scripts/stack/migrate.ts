/**
 * Applies the committed SQL migrations in `drizzle/` over plain TCP (`pg`), with drizzle-orm's
 * migrator: what `drizzle-kit migrate` runs (the same files, the same `drizzle.__drizzle_migrations`
 * record, each pending migration in one transaction), in this process. Spawning drizzle-kit cost
 * a Node start and the load of its CLI bundle on every stack start (seconds on a loaded machine).
 *
 * Run directly: `DATABASE_URL=… tsx scripts/stack/migrate.ts`.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate as applyMigrations } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";

export const REPO_ROOT = resolve(import.meta.dirname, "../..");
const MIGRATIONS_DIR = join(REPO_ROOT, "drizzle");

/** True when `drizzle/` holds at least one generated SQL migration. */
export function hasMigrations(): boolean {
  return existsSync(MIGRATIONS_DIR) && readdirSync(MIGRATIONS_DIR).some((name) => name.endsWith(".sql"));
}

export async function migrate(databaseUrl: string, log: (line: string) => void = () => {}): Promise<void> {
  if (!hasMigrations()) {
    log("migrate: drizzle/ has no migrations yet, skipping");
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await applyMigrations(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
  } catch (error) {
    throw new Error(`drizzle/ migrations failed: ${String(error)}`, { cause: error });
  } finally {
    await client.end();
  }
  log("migrate: applied drizzle/ migrations");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error("DATABASE_URL is not set (npm run dev migrates its own database when it starts)");
    process.exit(1);
  }
  await migrate(url, console.log);
}
