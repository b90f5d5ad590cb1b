/**
 * Applies the committed SQL migrations in `drizzle/` with drizzle-kit, which
 * reads `DATABASE_URL` through `drizzle.config.ts` and talks plain TCP via `pg`.
 *
 * Run directly: `DATABASE_URL=… tsx scripts/stack/migrate.ts`.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

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
  const drizzleKit = join(REPO_ROOT, "node_modules/.bin/drizzle-kit");
  let output = "";
  const code = await new Promise<number | null>((resolveExit, reject) => {
    const child = spawn(drizzleKit, ["migrate"], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", resolveExit);
  });
  if (code !== 0) throw new Error(`drizzle-kit migrate failed (exit ${code}):\n${output}`);
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
