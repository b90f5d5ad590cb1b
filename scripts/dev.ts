/**
 * `npm run dev`: the local stack (Redis, Postgres, Upstash bridge, Neon proxy),
 * migrations, then `wrangler dev` with the stack's URLs as vars, plus a cron
 * runner (wrangler dev does not fire crons). Ctrl-C stops everything it started.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Cron } from "croner";
import { startStack } from "./stack/index.js";
import { REPO_ROOT } from "./stack/migrate.js";
import { redactPassword } from "./stack/postgres.js";
import { DEV_JWT_SECRET, readDevVars } from "./dev-vars.js";
import { fireCron } from "./fire-cron.js";
import { CRON_SCHEDULES } from "../src/cron.js";

const PORT = 8787;
const WORKER_URL = `http://127.0.0.1:${PORT}`;
const log = (line: string) => console.log(`[dev] ${line}`);

const stack = await startStack({ mode: "dev", log });
const jwtSecret = readDevVars().JWT_SECRET ?? DEV_JWT_SECRET;

const vars: Record<string, string> = {
  UPSTASH_REDIS_REST_URL: stack.restUrl,
  UPSTASH_REDIS_REST_TOKEN: stack.restToken,
  DATABASE_URL: stack.databaseUrl,
  NEON_WS_PROXY: stack.wsProxy,
  JWT_SECRET: jwtSecret,
};

console.log(
  [
    "",
    "  Local stack",
    `    Postgres        ${redactPassword(stack.databaseUrl)}`,
    `    Redis           ${stack.redisUrl}`,
    `    Upstash bridge  ${stack.restUrl}  (token ${stack.restToken})`,
    `    Neon WS proxy   ${stack.wsProxy}`,
    `    Worker          ${WORKER_URL}`,
    `    JWT secret      ${jwtSecret === DEV_JWT_SECRET ? "dev default (set JWT_SECRET in .dev.vars)" : "from .dev.vars"}`,
    `    Crons           ${Object.entries(CRON_SCHEDULES).map(([name, expr]) => `${name} "${expr}"`).join(", ")} (UTC)`,
    "",
  ].join("\n"),
);

// Own process group (detached), so stopping kills wrangler AND the workerd it spawns.
const wrangler: ChildProcess = spawn(
  join(REPO_ROOT, "node_modules/.bin/wrangler"),
  [
    "dev",
    "--port",
    String(PORT),
    "--ip",
    "127.0.0.1",
    "--test-scheduled",
    ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ],
  {
    cwd: REPO_ROOT,
    // No stdin: a background process group reading the terminal would be stopped (SIGTTIN);
    // wrangler simply turns its hotkeys off.
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
  },
);

// Cloudflare runs cron triggers in UTC.
const crons = Object.entries(CRON_SCHEDULES).map(
  ([name, expression]) =>
    new Cron(expression, { timezone: "UTC", protect: true }, async () => {
      try {
        const { status } = await fireCron(expression, WORKER_URL);
        log(`cron ${name} (${expression}) → ${status}`);
      } catch (error) {
        log(`cron ${name} (${expression}) could not reach the Worker: ${String(error)}`);
      }
    }),
);

let stopping = false;
async function shutdown(exitCode: number): Promise<never> {
  if (stopping) return new Promise<never>(() => {});
  stopping = true;
  log("stopping…");
  for (const cron of crons) cron.stop();
  await stopProcessGroup(wrangler);
  await stack.stop();
  process.exit(exitCode);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
wrangler.once("exit", (code) => void shutdown(code ?? 1));

/**
 * SIGTERM the child's whole process group (also when wrangler itself already exited, so
 * no workerd is left behind); SIGKILL it if wrangler is still there after 5 s.
 */
async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  signalGroup("SIGTERM");
  const timer = setTimeout(() => signalGroup("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
