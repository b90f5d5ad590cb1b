/**
 * A vitest reporter for `scripts/test.ts`: appends one JSON line per finished test file to
 * `TEST_PROGRESS_FILE` (file, project, and how many of its tests passed, failed or were skipped),
 * so that after a stalled run the watchdog knows which files are done and runs only the others.
 * Writes nothing to the terminal.
 */
import { appendFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

export type FileProgress = { file: string; project: string; passed: number; failed: number; skipped: number; ok: boolean };

export default class TestProgressReporter implements Reporter {
  onTestModuleEnd(module: TestModule) {
    const path = process.env.TEST_PROGRESS_FILE;
    if (!path) return;
    const line: FileProgress = { file: relative(process.cwd(), module.moduleId), project: module.project.name, passed: 0, failed: 0, skipped: 0, ok: module.ok() };
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === "passed") line.passed++;
      else if (state === "failed") line.failed++;
      else line.skipped++;
    }
    appendFileSync(path, `${JSON.stringify(line)}\n`);
  }
}
