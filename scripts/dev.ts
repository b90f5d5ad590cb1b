/**
 * `npm run dev [-- --serve] [--port 8787] [--data-dir .data]`: the local stack and the Worker
 * (`scripts/dev/run.ts`), supervised from here.
 *
 * The runner lives in a process group of its own: Ctrl-C is sent to the terminal's whole
 * foreground group, and would otherwise reach redis-server, Postgres and workerd directly and
 * stop them before the runner could flush buffered counters through them. Here Ctrl-C becomes
 * one SIGTERM to the runner (flush, then an orderly stop); a second Ctrl-C kills it at once.
 * If this process dies without a word (SIGKILL, closed terminal), the runner sees its stdin
 * close and stops in order all the same.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./stack/migrate.js";

const runner = spawn(process.execPath, [...process.execArgv, join(REPO_ROOT, "scripts/dev/run.ts"), ...process.argv.slice(2)], {
  cwd: REPO_ROOT,
  detached: true,
  stdio: ["pipe", "inherit", "inherit"],
});

let signalled = 0;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    signalled += 1;
    if (signalled === 1) runner.kill("SIGTERM");
    else {
      console.log("[dev] stopping now, without the flush (the next start cleans up what is left)");
      try {
        process.kill(-runner.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
}
runner.once("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
