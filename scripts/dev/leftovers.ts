/**
 * What a running `npm run dev` started, written to a pidfile in its data directory, so that a
 * dev script killed hard (SIGKILL, a closed terminal) is cleaned up by the next start: otherwise
 * its wrangler/workerd (in their own process group, or re-parented when only the script died)
 * keep port 8787, and its redis-server and Postgres keep the data directory.
 *
 * Every entry carries the command-line text it must still show: a pid the kernel has since
 * handed to another program is left alone.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface StartedProcess {
  pid: number;
  /** What it is, for messages ("wrangler", "workerd", "redis-server", "postgres"). */
  what: string;
  /** Text its /proc/<pid>/cmdline must contain for it to be ours. */
  match: string;
  /** True when the pid leads its own process group: the whole group is stopped. */
  group?: boolean;
}

export interface DevRecord {
  /** The dev script itself. */
  pid: number;
  port: number;
  startedAt: string;
  processes: StartedProcess[];
  /**
   * Where the run's Redis and Upstash bridge listen (database 0): `npm run load` counts round trips
   * and commands there — in every database of `databases` when the run has several.
   */
  stack?: { redisUrl: string; restUrl: string; restToken: string; databases?: { redisUrl: string; restUrl: string; restToken: string }[]; databaseUrl?: string };
}

export const devRecordPath = (dataDir: string) => join(dataDir, "dev.pid");

/** The record of the dev run in `dataDir`, if any (whether or not that run is still alive). */
export function readDevRecord(path: string): DevRecord | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as DevRecord;
  } catch {
    return undefined;
  }
}

export function writeDevRecord(path: string, record: DevRecord): void {
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
}

export function removeDevRecord(path: string): void {
  rmSync(path, { force: true });
}

function commandLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return undefined; // gone (or not Linux)
  }
}

/** Alive and still running what we started (not a recycled pid, not a zombie). */
export function isOurs(entry: Pick<StartedProcess, "pid" | "match">): boolean {
  const cmdline = commandLineOf(entry.pid);
  return cmdline !== undefined && cmdline.length > 0 && cmdline.includes(entry.match);
}

/**
 * Stops what a previous dev run recorded and did not stop, then removes the record. Throws when
 * that run is still alive (two dev scripts on one data directory would corrupt it). Returns the
 * previous run's pid (when there was a record) and one line per process stopped, for the caller
 * to print.
 */
export async function cleanLeftovers(
  path: string,
  { devMatch = "scripts/dev" }: { devMatch?: string } = {},
): Promise<{ previousPid?: number; stopped: string[] }> {
  if (!existsSync(path)) return { stopped: [] };
  let record: DevRecord;
  try {
    record = JSON.parse(readFileSync(path, "utf8")) as DevRecord;
  } catch {
    removeDevRecord(path);
    return { stopped: [] };
  }
  if (record.pid !== process.pid && isOurs({ pid: record.pid, match: devMatch })) {
    throw new Error(`another dev run (pid ${record.pid}, port ${record.port}) is using this data directory; stop it first`);
  }
  const stopped: string[] = [];
  for (const entry of record.processes) {
    if (!isOurs(entry)) continue;
    await stopProcess(entry);
    stopped.push(`${entry.what} (pid ${entry.pid}${entry.group ? ", with its process group" : ""})`);
  }
  removeDevRecord(path);
  return { previousPid: record.pid, stopped };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(entry: StartedProcess, graceMs = 5_000): Promise<void> {
  const target = entry.group ? -entry.pid : entry.pid;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(target, name);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (isOurs(entry)) {
    if (Date.now() > deadline) {
      signal("SIGKILL");
      if (Date.now() > deadline + 2_000) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Descendants of `root` (from /proc) whose program name is one of `names`: the workerd and
 * servers a dev run spawned, wherever in the tree they sit.
 */
export function descendantsNamed(root: number, names: string[]): StartedProcess[] {
  const children = new Map<number, number[]>();
  const comm = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // comm may contain spaces and parentheses: the fields after it start at the last ')'.
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      comm.set(Number(entry), name);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited while listing
    }
  }
  const found: StartedProcess[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      const name = comm.get(child) ?? "";
      const known = names.find((n) => name.startsWith(n));
      // Not below a match: a server's own workers (Postgres backends) go when it goes.
      if (known) found.push({ pid: child, what: known, match: known });
      else visit(child);
    }
  };
  visit(root);
  return found;
}
