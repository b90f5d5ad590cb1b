import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const REPO_ROOT = resolve(import.meta.dirname, "../..");

describe("community-edge/client types", () => {
  it("refuse a wrong field name, a wrong query type and a missing body, and accept the README example (tsc -p test/types)", () => {
    expectCompiles("test/types");
  }, 60_000);

  it("fit a service worker's own globals (ServiceWorkerGlobalScope, PushEvent, NotificationEvent) without the DOM (tsc -p test/types/service-worker)", () => {
    expectCompiles("test/types/service-worker");
  }, 60_000);
});

function expectCompiles(project: string) {
  const tsc = spawnSync(process.execPath, [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", project], { cwd: REPO_ROOT, encoding: "utf8" });
  // An unused `@ts-expect-error` is itself an error: a misuse the types accept fails this test.
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.status).toBe(0);
}
