/**
 * Local secrets shared by `npm run dev` and `npm run token`: both must sign
 * and verify with the same JWT_SECRET.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./stack/migrate.js";

/** Used when `.dev.vars` has no JWT_SECRET: fine locally, never deploy it. */
export const DEV_JWT_SECRET = "dev-secret-change-me";

/** The Worker's address under `npm run dev`. */
export const DEV_WORKER_URL = process.env.WORKER_URL ?? "http://127.0.0.1:8787";

/** Parses `.dev.vars` (dotenv syntax: KEY=VALUE, # comments, optional quotes). */
export function readDevVars(path = join(REPO_ROOT, ".dev.vars")): Record<string, string> {
  if (!existsSync(path)) return {};
  const vars: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split(/\r?\n/)) {
    const match = line.match(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/);
    if (!match) continue;
    vars[match[1]!] = match[2]!.replace(/^(['"])(.*)\1$/, "$2");
  }
  return vars;
}

export function devJwtSecret(): string {
  return process.env.JWT_SECRET ?? readDevVars().JWT_SECRET ?? DEV_JWT_SECRET;
}
