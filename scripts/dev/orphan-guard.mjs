/**
 * `node orphan-guard.mjs <command> [args…]`: runs the command in this (detached) process group and
 * stops the group when the dev script that started it dies, however it dies.
 *
 * The dev script keeps wrangler in a process group of its own so that Ctrl-C reaches the script
 * first (it still has to flush counters through wrangler). The price: a SIGKILL of the script's
 * group, or a closed terminal, would leave wrangler and workerd running on port 8787. The script
 * holds the write end of this guard's stdin; the kernel closes it when the script exits for any
 * reason, and the guard then SIGTERMs its group (SIGKILL after 5 s).
 */
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });

let stopping = false;
function stopGroup() {
  if (stopping) return;
  stopping = true;
  try {
    process.kill(-process.pid, "SIGTERM");
  } catch {}
  setTimeout(() => {
    try {
      process.kill(-process.pid, "SIGKILL");
    } catch {}
  }, 5_000).unref();
}

// The group's SIGTERM/SIGINT reaches the child too: wait for it instead of dying first, so
// whoever waits for this guard waits for the child.
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => {});
process.stdin.on("end", stopGroup);
process.stdin.on("error", stopGroup);
process.stdin.resume();
child.once("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
