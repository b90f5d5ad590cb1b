/**
 * Waiting for, stopping and supervising the processes the stack and the dev runner start: one
 * place for all of them, because the obvious test gets it wrong. A process ended by a signal (a
 * crash, the OOM killer, `kill -9`) has `exitCode === null` and `signalCode` set, so "wait for
 * `exit` unless `exitCode` is set" waits forever for an event that has already fired.
 */
import type { ChildProcess } from "node:child_process";

/** True once `child` has exited, by a code or by a signal. */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves once `child` has exited: at once when it already has. */
export function exited(child: ChildProcess): Promise<void> {
  return hasExited(child) ? Promise.resolve() : new Promise((resolve) => child.once("exit", () => resolve()));
}

/** How `child` ended, for messages: `on SIGKILL`, `with exit code 1`. */
export function howItExited(child: ChildProcess): string {
  return child.signalCode ? `on ${child.signalCode}` : `with exit code ${child.exitCode}`;
}

export interface StopOptions {
  /** The polite signal (default SIGTERM; Postgres takes SIGINT, its fast shutdown). */
  signal?: NodeJS.Signals;
  /** Signal `child`'s whole process group (it leads one), even when `child` itself has exited. */
  group?: boolean;
  /** SIGKILL after this long without an exit (default 10 s). */
  graceMs?: number;
}

/** Stops `child` (SIGKILL after the grace) and resolves once it has exited; at once when it had. */
export async function stopChild(child: ChildProcess, { signal = "SIGTERM", group = false, graceMs = 10_000 }: StopOptions = {}): Promise<void> {
  const send = (name: NodeJS.Signals) => {
    if (!group) return void child.kill(name);
    try {
      process.kill(-child.pid!, name);
    } catch {
      // the group is gone
    }
  };
  if (child.pid === undefined) return; // never started (spawn failed)
  // A group is signalled even after its leader exited: what it left in the group goes too.
  if (hasExited(child) && !group) return;
  const done = exited(child);
  send(signal);
  const timer = setTimeout(() => send("SIGKILL"), graceMs);
  await done;
  clearTimeout(timer);
}

export interface SupervisedServer {
  /** The running process, if any (none while it is being restarted or once stopped). */
  readonly child: ChildProcess | undefined;
  /** Stops the server and starts it again the same way (same port, same data). */
  restart(): Promise<void>;
  /** Stops it for good: also when it died on its own, or while it is being restarted. */
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  /** Spawns the server and resolves once it serves; stops what it spawned when it fails. */
  launch(): Promise<ChildProcess>;
  stop?: Omit<StopOptions, "group">;
  /** Told at once when the server exits without being asked to (`how`: `on SIGKILL`, `with exit code 1`); it is then started again. */
  onExit?(how: string): void;
  /** Told once it serves again after such an exit. */
  onRestarted?(): void;
  /** Told when it could not be started again after such an exit (it then stays down). */
  onRestartFailed?(error: unknown): void;
  /**
   * Starts tried after an exit before giving up (default 5), `retryMs` apart (default 1 s); a
   * server that has exited `attempts` times within a minute is not started again either (it
   * would only die again: out of memory, a full disk).
   */
  attempts?: number;
  retryMs?: number;
}

const CRASH_LOOP_WINDOW_MS = 60_000;

/**
 * Starts a server and keeps it running: when it exits on its own, says so (`onExit`) and starts
 * it again, up to `attempts` tries (a Postgres killed hard refuses to start until the backends it
 * left have noticed and gone).
 */
export async function superviseServer({ launch, stop: stopOptions, onExit, onRestarted, onRestartFailed, attempts = 5, retryMs = 1_000 }: SuperviseOptions): Promise<SupervisedServer> {
  let current: ChildProcess | undefined;
  let stopping = false;
  let recovering: Promise<void> | undefined;
  const exits: number[] = [];

  const adopt = (child: ChildProcess) => {
    current = child;
    child.once("exit", () => {
      // Ours to restart only if nobody took it away first (restart(), stop()).
      if (current !== child || stopping) return;
      current = undefined;
      onExit?.(howItExited(child));
      const now = Date.now();
      exits.push(now);
      while (exits[0]! < now - CRASH_LOOP_WINDOW_MS) exits.shift();
      if (exits.length >= attempts) return onRestartFailed?.(new Error(`it exited ${exits.length} times within a minute`));
      const recovery = recover().finally(() => {
        if (recovering === recovery) recovering = undefined;
      });
      recovering = recovery;
    });
  };

  async function recover(): Promise<void> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (stopping) return;
      try {
        const child = await launch();
        if (stopping) return void (await stopChild(child, stopOptions));
        adopt(child);
        onRestarted?.();
        return;
      } catch (error) {
        lastError = error;
        if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    }
    if (!stopping) onRestartFailed?.(lastError);
  }

  adopt(await launch());
  return {
    get child() {
      return current;
    },
    async restart() {
      await recovering;
      stopping = false; // restart() after stop() starts it again, supervised
      const previous = current;
      current = undefined;
      if (previous) await stopChild(previous, stopOptions);
      adopt(await launch());
    },
    async stop() {
      stopping = true;
      const previous = current;
      current = undefined;
      if (previous) await stopChild(previous, stopOptions);
      await recovering; // a start under way sees `stopping` and stops what it started
    },
  };
}

/**
 * Polls `ready` until it answers true; fails at once when `child` exits first (a redis-server
 * that cannot start is not waited for), or after `timeoutMs`.
 */
export async function waitUntilServing(child: ChildProcess, what: string, ready: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!hasExited(child)) {
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} exited ${howItExited(child)} before it answered`);
}

/** First starts a server is given, each on a newly picked port, before its stack gives up. */
const FIRST_START_ATTEMPTS = 3;

/**
 * `start` on a port from `pickPort`, and again on another one when it fails, up to
 * FIRST_START_ATTEMPTS: a port free when picked can be taken before the server binds it (a shard's
 * stack starting beside this one picks ports too). `what` names the server in the log line.
 */
export async function startOnPickedPort<T>(what: string, log: (line: string) => void, pickPort: () => Promise<number>, start: (port: number) => Promise<T>): Promise<T> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= FIRST_START_ATTEMPTS; attempt++) {
    try {
      return await start(await pickPort());
    } catch (error) {
      lastError = error;
      if (attempt < FIRST_START_ATTEMPTS) log(`${what}: ${String(error)}; starting it again on another port (attempt ${attempt + 1} of ${FIRST_START_ATTEMPTS})`);
    }
  }
  throw lastError;
}
