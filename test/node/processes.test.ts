import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually";
import { exited, hasExited, howItExited, stopChild, superviseServer, type SupervisedServer, type SuperviseOptions } from "../../scripts/stack/processes";

const children: ChildProcess[] = [];
const servers: SupervisedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A process that runs until it is stopped, standing in for a server. */
function sleeper(): ChildProcess {
  const child = spawn("sleep", ["300"], { stdio: "ignore" });
  children.push(child);
  return child;
}

/** Polls until `check` holds, for at most 10 s: the supervision reacts to an exit event, not at a set time. */
const until = (check: () => boolean) => eventually(check, Boolean, 10_000);

/** A supervised server whose every start is a new sleeper, its starts and reported events recorded. */
async function superviseSleepers(options: Omit<SuperviseOptions, "launch" | "onExit" | "onRestarted" | "onRestartFailed">) {
  const events: string[] = [];
  const launched: ChildProcess[] = [];
  const server = await superviseServer({
    ...options,
    launch: async () => (launched.push(sleeper()), launched.at(-1)!),
    onExit: (how) => events.push(`exited ${how}`),
    onRestarted: () => events.push("restarted"),
    onRestartFailed: (error) => events.push(`gave up: ${(error as Error).message}`),
  });
  servers.push(server);
  return { events, launched, server };
}

describe("waiting for and stopping a child process", () => {
  it("sees a process killed by a signal as exited, though its exitCode stays null", async () => {
    const child = sleeper();
    child.kill("SIGKILL");
    await exited(child);
    expect(child.exitCode).toBeNull();
    expect(hasExited(child)).toBe(true);
    expect(howItExited(child)).toBe("on SIGKILL");
    await exited(child); // again, after the event has fired: resolves at once
    await stopChild(child); // and stopping it is done at once, not a wait for an exit that already happened
  });

  it("stops a running process and resolves once it has exited", async () => {
    const child = sleeper();
    await stopChild(child);
    expect(child.signalCode).toBe("SIGTERM");
  });
});

describe("superviseServer", () => {
  it("says how the server exited when nobody stopped it, starts it again, and still stops", async () => {
    const { events, launched, server } = await superviseSleepers({});

    process.kill(launched[0]!.pid!, "SIGKILL");
    await until(() => events.includes("restarted"));

    expect(events).toEqual(["exited on SIGKILL", "restarted"]);
    expect(launched).toHaveLength(2);
    expect(server.child).toBe(launched[1]);
    await server.stop();
    expect(launched.every(hasExited)).toBe(true);
    expect(events).toEqual(["exited on SIGKILL", "restarted"]); // a stop is no exit to report
  });

  it("does not start again what restart() or stop() stopped", async () => {
    const { events, launched, server } = await superviseSleepers({});
    await server.restart();
    await server.stop();
    expect(launched).toHaveLength(2);
    expect(launched.every(hasExited)).toBe(true);
    expect(events).toEqual([]);
  });

  it("reports a server it cannot start again, and stops at once all the same", async () => {
    const events: string[] = [];
    let starts = 0;
    const first = sleeper();
    const server = await superviseServer({
      launch: async () => {
        starts += 1;
        if (starts === 1) return first;
        throw new Error("port taken");
      },
      attempts: 3,
      retryMs: 0,
      onExit: (how) => events.push(`exited ${how}`),
      onRestartFailed: (error) => events.push(`gave up: ${(error as Error).message}`),
    });
    servers.push(server);

    first.kill("SIGKILL");
    await until(() => events.length === 2);

    expect(events).toEqual(["exited on SIGKILL", "gave up: port taken"]);
    expect(starts).toBe(4);
    expect(server.child).toBeUndefined();
    await server.stop();
  });

  it("does not start again a server that keeps exiting", async () => {
    const { events, launched } = await superviseSleepers({ attempts: 2 });

    launched[0]!.kill("SIGKILL");
    await until(() => events.includes("restarted"));
    launched[1]!.kill("SIGKILL"); // the second exit within the minute
    await until(() => events.length === 4);

    expect(events).toEqual(["exited on SIGKILL", "restarted", "exited on SIGKILL", "gave up: it exited 2 times within a minute"]);
    expect(launched).toHaveLength(2);
  });

  it("stops a server that died while its start again is still under way", async () => {
    let release!: () => void;
    const launched: ChildProcess[] = [];
    const server = await superviseServer({
      launch: async () => {
        if (launched.length === 1) await new Promise<void>((r) => (release = r)); // the second start hangs until released
        launched.push(sleeper());
        return launched.at(-1)!;
      },
    });
    launched[0]!.kill("SIGKILL");
    await until(() => release !== undefined);

    const stopped = server.stop();
    release();
    await stopped;
    expect(launched).toHaveLength(2);
    expect(launched.every(hasExited)).toBe(true); // what the late start brought up was stopped too
  });
});
