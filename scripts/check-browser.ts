/**
 * `npm run check:browser`: real-browser checks of the pages this Worker serves, in Debian's
 * `chromium` driven by `puppeteer-core` (no browser download). Each module in
 * `scripts/browser-checks/*.ts` exports `name` and `run(ctx)`; they run one after another against
 * one Worker:
 *
 * - `CHECK_BASE_URL` set: that Worker (e.g. an `npm run dev` already running; its Redis is found
 *   through the dev record in `.data`, or `CHECK_DEV_DATA_DIR`);
 * - otherwise `npm run dev` is started on a free port with a fresh data directory, and stopped
 *   (SIGTERM to the process this script started) at the end.
 *
 * Skipped, with the reason printed and exit code 0, when no Chromium is installed
 * (`CHROMIUM_PATH`, else /usr/bin/chromium or /usr/bin/chromium-browser).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sign } from "hono/jwt";
import puppeteer, { type Browser } from "puppeteer-core";
import { devJwtSecret } from "./dev-vars.js";
import { devRecordPath, readDevRecord } from "./dev/leftovers.js";
import { DEV_DATA_DIR } from "./stack/postgres.js";
import { REPO_ROOT } from "./stack/migrate.js";

export type BrowserCheckContext = {
  baseUrl: string;
  /** A JWT the Worker accepts for `sub` with `role`. */
  token: (sub: string, role?: "user" | "service" | "admin") => Promise<string>;
  browser: Browser;
  /** The Worker's Redis through its Upstash REST bridge, when known (checks that stage a failure need it). */
  redis?: { restUrl: string; restToken: string };
  log: (line: string) => void;
};
export type BrowserCheck = { name: string; run: (ctx: BrowserCheckContext) => Promise<void> };

/** Flags for a root user in a container, no network beyond the page, a fresh profile each run. */
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

const chromium = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p): p is string => !!p && existsSync(p));
if (!chromium) {
  console.log("check:browser skipped: no Chromium found (set CHROMIUM_PATH, or apt-get install chromium)");
  process.exit(0);
}

const checksDir = join(REPO_ROOT, "scripts/browser-checks");
const only = process.argv.slice(2);
const modules = readdirSync(checksDir)
  .filter((f) => f.endsWith(".ts"))
  .sort()
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, dev: ChildProcess | undefined, ms: number) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (dev && dev.exitCode !== null) throw new Error(`npm run dev exited with ${dev.exitCode}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url}/health did not answer 200 within ${ms} ms`);
}

let dev: ChildProcess | undefined;
let dataDir: string | undefined;
let baseUrl = process.env.CHECK_BASE_URL;
const stopDev = async () => {
  if (dev && dev.exitCode === null) {
    const exited = new Promise((r) => dev!.once("exit", r));
    dev.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 60_000))]);
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
};

const profile = mkdtempSync(join(tmpdir(), "check-browser-profile-"));
let browser: Browser | undefined;
let failed = 0;
try {
  if (!baseUrl) {
    const port = await freePort();
    dataDir = mkdtempSync(join(tmpdir(), "check-browser-dev-"));
    chmodSync(dataDir, 0o755); // Postgres runs as an unprivileged user when this runs as root
    const devLogPath = join(tmpdir(), "check-browser-dev.log");
    const devLog = openSync(devLogPath, "w");
    console.log(`[check:browser] starting npm run dev on port ${port} (data in ${dataDir}, its output in ${devLogPath})`);
    dev = spawn(process.execPath, [...process.execArgv, join(REPO_ROOT, "scripts/dev.ts"), "--port", String(port), "--data-dir", dataDir], {
      cwd: REPO_ROOT,
      stdio: ["pipe", devLog, devLog],
    });
    baseUrl = `http://127.0.0.1:${port}`;
  }
  await waitForHealth(baseUrl, dev, 240_000);
  const record = readDevRecord(devRecordPath(dataDir ?? process.env.CHECK_DEV_DATA_DIR ?? DEV_DATA_DIR));
  const secret = devJwtSecret();
  browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`] });
  console.log(`[check:browser] ${await browser.version()} at ${chromium}, Worker ${baseUrl}`);
  const ctx: BrowserCheckContext = {
    baseUrl,
    browser,
    token: (sub, role = "user") => sign({ sub, role, exp: Math.floor(Date.now() / 1000) + 3600 }, secret, "HS256"),
    redis: record?.stack ? { restUrl: record.stack.restUrl, restToken: record.stack.restToken } : undefined,
    log: (line) => console.log(`    ${line}`),
  };
  for (const file of modules) {
    const check = (await import(pathToFileURL(join(checksDir, file)).href)) as BrowserCheck;
    const started = Date.now();
    console.log(`[check:browser] ${check.name}`);
    try {
      await check.run(ctx);
      console.log(`  ✓ ${check.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (err) {
      failed += 1;
      console.log(`  ✗ ${check.name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
  }
} catch (err) {
  failed += 1;
  console.log(`[check:browser] could not run: ${err instanceof Error ? err.message : String(err)}`);
} finally {
  await browser?.close().catch(() => undefined);
  rmSync(profile, { recursive: true, force: true });
  await stopDev();
}
console.log(`[check:browser] ${modules.length - failed} of ${modules.length} passed`);
process.exit(failed > 0 ? 1 : 0);
