import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanLeftovers, devRecordPath, isOurs, writeDevRecord, type StartedProcess } from "../../scripts/dev/leftovers";
import { exited } from "../../scripts/stack/processes";

let dir: string;
const spawned: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ce-leftovers-"));
});
afterEach(() => {
  for (const child of spawned.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A long sleep in a process group of its own, as wrangler runs under the dev script. */
function leader(seconds: number): ChildProcess {
  const child = spawn("sleep", [String(seconds)], { detached: true, stdio: "ignore" });
  spawned.push(child);
  return child;
}

/** The pid of a process that has already exited (a dev script killed hard). */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await exited(child);
  return child.pid!;
}

describe("cleanLeftovers", () => {
  it("does nothing without a record", async () => {
    expect(await cleanLeftovers(devRecordPath(dir))).toEqual({ stopped: [] });
  });

  it("stops the process group a dead dev run left, says so, and removes the record", async () => {
    const wrangler = leader(301);
    const entry: StartedProcess = { pid: wrangler.pid!, what: "wrangler", match: "sleep 301", group: true };
    const path = devRecordPath(dir);
    const previous = await deadPid();
    writeDevRecord(path, { pid: previous, port: 1, startedAt: new Date().toISOString(), processes: [entry] });

    const result = await cleanLeftovers(path);
    await exited(wrangler);

    expect(result).toEqual({ previousPid: previous, stopped: [`wrangler (pid ${wrangler.pid}, with its process group)`] });
    expect(isOurs(entry)).toBe(false);
    expect(existsSync(path)).toBe(false);
  });

  it("leaves alone a pid that now runs something else", async () => {
    const other = leader(302);
    const path = devRecordPath(dir);
    writeDevRecord(path, {
      pid: await deadPid(),
      port: 1,
      startedAt: new Date().toISOString(),
      processes: [{ pid: other.pid!, what: "workerd", match: "workerd" }],
    });

    expect((await cleanLeftovers(path)).stopped).toEqual([]);
    expect(isOurs({ pid: other.pid!, match: "sleep 302" })).toBe(true);
  });

  it("refuses while the recorded dev run is still alive", async () => {
    const running = leader(303);
    const path = devRecordPath(dir);
    writeDevRecord(path, { pid: running.pid!, port: 1, startedAt: new Date().toISOString(), processes: [] });

    await expect(cleanLeftovers(path, { devMatch: "sleep 303" })).rejects.toThrow(/another dev run/);
    expect(existsSync(path)).toBe(true);
  });
});
