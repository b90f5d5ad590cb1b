/**
 * A vitest reporter for `scripts/test.ts`: appends one JSON line per event to `TEST_PROGRESS_FILE`
 * (`ProgressEvent`, scripts/test-stall.ts): the files the run will run, each file queued in its
 * runner, each test's result, and each finished file (how many of its tests passed, failed or were
 * skipped). From it the watchdog tells the Workers pool's stall between two files from a slow test,
 * and after a stalled run knows which files are done and runs only the others.
 * Writes nothing to the terminal.
 */
import { appendFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, TestCase, TestModule, TestSpecification } from "vitest/node";
import type { ProgressEvent } from "./test-stall";

export type { FileProgress } from "./test-stall";

function record(event: ProgressEvent) {
  const path = process.env.TEST_PROGRESS_FILE;
  if (path) appendFileSync(path, `${JSON.stringify(event)}\n`);
}

const fileOf = (moduleId: string) => relative(process.cwd(), moduleId);

export default class TestProgressReporter implements Reporter {
  onTestRunStart(specifications: ReadonlyArray<TestSpecification>) {
    record({ type: "run", at: Date.now(), files: specifications.map((s) => fileOf(s.moduleId)) });
  }

  /** Called when the file's runner (in the pool) takes it up, before it imports it. */
  onTestModuleQueued(module: TestModule) {
    record({ type: "queued", at: Date.now(), file: fileOf(module.moduleId) });
  }

  onTestCaseResult(test: TestCase) {
    record({ type: "test", at: Date.now(), file: fileOf(test.module.moduleId) });
  }

  onTestModuleEnd(module: TestModule) {
    const event: ProgressEvent = { type: "end", at: Date.now(), file: fileOf(module.moduleId), project: module.project.name, passed: 0, failed: 0, skipped: 0, ok: module.ok() };
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === "passed") event.passed++;
      else if (state === "failed") event.failed++;
      else event.skipped++;
    }
    record(event);
  }
}
