/**
 * `npm run dev` as a developer runs it (its script, with a test's own `--port` and `--data-dir`):
 * a private stack, independent of the test stack, started until its Worker answers and stopped as
 * Ctrl-C stops it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../../scripts/stack/free-port";
import { REPO_ROOT } from "../../../scripts/stack/migrate";
import { DEV_DATA_DIR } from "../../../scripts/stack/postgres";

export const TSX = join(REPO_ROOT, "node_modules/.bin/tsx");

/** The child's environment: nothing of the test stack's (its own Redis and Postgres, the dev secret). */
export function devChildEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["REDIS_URL", "DATABASE_URL", "UPSTASH_REDIS_DATABASES", "UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN", "JWT_SECRET"]) delete env[name];
  return env;
}

/**
 * A data directory under the repository's `.data/` (where `npm run dev` keeps its data), not the
 * test run's private TMPDIR: as root, Postgres runs as an unprivileged user who must reach it.
 */
export function devDataDir(prefix: string): { path: string; remove(): void } {
  mkdirSync(DEV_DATA_DIR, { recursive: true });
  const path = mkdtempSync(join(DEV_DATA_DIR, prefix));
  chmodSync(path, 0o755);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface DevRun {
  url: string;
  /** Every line it printed so far. */
  output: string[];
  /** One SIGTERM (it flushes, then stops what it started), until it exited. */
  stop(): Promise<void>;
}

/** `npm run dev -- ...args --port P --data-dir D`, until its Worker answers `/health`. */
export async function startDevRun(args: readonly string[], options: { dataDir: string; port?: number; output?: string[] }): Promise<DevRun> {
  const port = options.port ?? (await freePort());
  const output = options.output ?? [];
  const child: ChildProcess = spawn(TSX, ["scripts/dev.ts", ...args, "--port", String(port), "--data-dir", options.dataDir], {
    cwd: REPO_ROOT,
    env: devChildEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let exited = false;
  child.once("exit", () => (exited = true));
  const lines = (chunk: Buffer) => output.push(...chunk.toString("utf8").split("\n").filter(Boolean));
  child.stdout!.on("data", lines);
  child.stderr!.on("data", lines);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await gone;
  };
  for (;;) {
    if (exited) throw new Error(`npm run dev exited while starting:\n${output.slice(-30).join("\n")}`);
    const ok = await fetch(`${url}/health`).then((r) => r.status === 200, () => false);
    if (ok) return { url, output, stop };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
