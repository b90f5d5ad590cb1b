/**
 * `npm test`: `vitest run` with its arguments, under a stall watchdog. A whole-suite run is split
 * into shards (scripts/test-shards.ts) run side by side, each with its own test stack, watchdog and
 * JSON report; the reports are merged into the one asked for.
 *
 * Now and then the Workers test pool, `@cloudflare/vitest-pool-workers` 0.23, stops between two
 * test files: the last file's results are printed, then nothing — no timer pending in vitest,
 * workerd idle, the pool waiting for a message that never comes (an open upstream report:
 * cloudflare/workers-sdk#15498, "Vitest run stalls indefinitely mid-suite after a workerd pool
 * test file finishes"). Here it came with the Worker's log lines: with a line per request going
 * through the pool (TEST_LOG_LEVEL=info) 3 of 4 full runs stalled (4 stalls); with them off, as
 * the tests run now, none of 12 did. Nothing in a test can time a stall out, so this wrapper still
 * does. A reporter, `test-progress.ts`, records the files the run will run, each file as its
 * runner takes it up, each test result and each finished file; every STALL_CHECK_MS the watchdog
 * reads that record and decides (`decideStall`, test-stall.ts): with no file running and files
 * left, nothing started within STALL_GAP_SECONDS of the last file's end is the stall; while a file
 * runs, only STALL_MINUTES without progress or output (far above the slowest file) is, so a slow
 * test is never cut off. On a stall it stops vitest's whole process group (workerd, the test
 * stack's Postgres and Redis), removes the run's own TMPDIR, says so, and runs again only the
 * files that did not finish (`vitest.config.ts` skips the others through TEST_SKIP_FILES), up to
 * ATTEMPTS runs. A run that fails without writing its JSON report crashed before its reporters
 * ended (a shard once lost its 330 tests that way, its cause unlogged) and is run again the same
 * way. Test failures are never retried: a file that finished with a failure stays failed. With
 * `--outputFile.json=PATH`, the report at PATH adds the files finished by stalled or crashed runs
 * to the last run's report, so its totals cover the suite.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { estimateWeights, mergeJsonReports, readDurations, recordDurations, splitIntoShards, testFiles } from "./test-shards";
import { decideStall, finishedFiles, longestStartGap, runEnding, runSpan, type FileProgress, type ProgressEvent, type StallLimits } from "./test-stall";

const STALL_MINUTES = Number(process.env.TEST_STALL_MINUTES ?? 3);
/**
 * 15 s: the longest wait for a next file seen in full runs is 2.2 s (5 s on a loaded machine), and a
 * stall found late costs the whole run its wait. Too early only costs a rerun of the files left.
 */
const STALL_GAP_SECONDS = Number(process.env.TEST_STALL_GAP_SECONDS ?? 15);
const LIMITS: StallLimits = { gapMs: STALL_GAP_SECONDS * 1000, silenceMs: STALL_MINUTES * 60_000 };
/** How often the watchdog reads the progress record. */
const STALL_CHECK_MS = 2_000;
const ATTEMPTS = 5;

type Outcome = { code: number; stalled: boolean; pid: number };

/** Writes `chunk` to `out`, each line prefixed with `label` (none: as it is). */
function prefixer(out: NodeJS.WriteStream, label: string | undefined) {
  let partial = "";
  return {
    write(chunk: Buffer) {
      if (!label) return void out.write(chunk);
      const text = partial + chunk.toString("utf8");
      const end = text.lastIndexOf("\n") + 1;
      partial = text.slice(end);
      if (end > 0) out.write(text.slice(0, end).replace(/^(?=.)/gm, `${label} `));
    },
    flush() {
      if (partial) out.write(`${label} ${partial}\n`);
      partial = "";
    },
  };
}

function runVitest(args: string[], env: NodeJS.ProcessEnv, progressFile: string, label?: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(join("node_modules", ".bin", "vitest"), ["run", ...args], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group, so a stall can stop everything it started
    });
    let stalled = false;
    let lastOutputAt = Date.now();
    const stdout = prefixer(process.stdout, label);
    const stderr = prefixer(process.stderr, label);
    const check = setInterval(() => {
      const decision = decideStall(readProgress(progressFile), lastOutputAt, Date.now(), LIMITS);
      if (!decision.stalled) return;
      clearInterval(check);
      stalled = true;
      console.error(`\n[test]${label ? ` ${label}` : ""} stall detected: ${decision.reason}; stopping vitest (cloudflare/workers-sdk#15498, see scripts/test.ts)`);
      killGroup(child.pid!, "SIGTERM");
      setTimeout(() => killGroup(child.pid!, "SIGKILL"), 10_000).unref();
    }, STALL_CHECK_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout.write(chunk);
      lastOutputAt = Date.now();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr.write(chunk);
      lastOutputAt = Date.now();
    });
    const forward = (signal: NodeJS.Signals) => () => killGroup(child.pid!, signal);
    const onInt = forward("SIGINT");
    const onTerm = forward("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    child.on("exit", (code, signal) => {
      clearInterval(check);
      stdout.flush();
      stderr.flush();
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      if (stalled) killGroup(child.pid!, "SIGKILL"); // whatever is left of the group
      resolve({ code: code ?? (signal ? 1 : 0), stalled, pid: child.pid! });
    });
  });
}

/** Resolves once no process of the group `pid` is left, or after `ms`. */
async function groupGone(pid: number, ms: number) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      process.kill(-pid, 0);
    } catch {
      return; // ESRCH: none left
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function killGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

const PROGRESS_REPORTER = "--reporter=./scripts/test-progress.ts";
const JSON_OUTPUT = "--outputFile.json=";

/**
 * `vitest run args` under the watchdog, again for the files left after each stall, up to ATTEMPTS
 * runs; resolves to the exit code. `label` prefixes its output (a shard's `[1/3]`).
 */
async function runAttempts(args: string[], label?: string, shard?: number): Promise<number> {
  // An added reporter replaces vitest's default one unless reporters are named: keep the default.
  const reporters = args.some((a) => a.startsWith("--reporter")) ? [PROGRESS_REPORTER] : ["--reporter=default", PROGRESS_REPORTER];
  const jsonReport = args.find((a) => a.startsWith(JSON_OUTPUT))?.slice(JSON_OUTPUT.length);
  const tag = label ? `[test] ${label}` : "[test]";
  const started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), "ce-test-"));
  chmodSync(scratch, 0o755); // see attemptTmp below
  const progressFile = join(scratch, "progress.jsonl");
  /** Files finished by runs that then stalled: not run again. */
  const finished: FileProgress[] = [];
  try {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      writeFileSync(progressFile, "");
      // Each attempt's own TMPDIR: the stack's temp dirs (Postgres and Redis data, the bundled
      // Worker) land there, so after a stall they go with it, never another shard's. 0755: as
      // root, embedded Postgres runs as the `postgres` user, which must get through to its data.
      const attemptTmp = join(scratch, `tmp-${attempt}`);
      mkdirSync(attemptTmp, { mode: 0o755 });
      const env = { ...process.env, TMPDIR: attemptTmp, TEST_PROGRESS_FILE: progressFile, TEST_SKIP_FILES: finished.map((f) => f.file).join("\n"), ...(shard ? { TEST_SHARD: String(shard) } : {}) };
      // A stall after the last file leaves nothing to run: that is a pass, not "no test files".
      const resumed = finished.length > 0 ? ["--passWithNoTests"] : [];
      if (jsonReport) rmSync(jsonReport, { force: true }); // so that a report found after the run is this run's
      const { code, stalled, pid } = await runVitest([...args, ...reporters, ...resumed], env, progressFile, label);
      const gap = longestStartGap(readProgress(progressFile));
      if (gap !== null) console.error(`${tag} longest wait for the next file to start: ${(gap / 1000).toFixed(1)} s (a stall is declared at ${STALL_GAP_SECONDS} s)`);
      // Like a stall, a crash keeps its finished files and runs the rest again (runEnding); a file
      // that crashes every run still fails the run.
      const crashed = runEnding({ code, stalled, reportWritten: jsonReport === undefined ? undefined : existsSync(jsonReport) }) === "crashed";
      if (crashed) console.error(`\n${tag} vitest exited with ${code} without writing its JSON report (a crash, not a test failure)`);
      if (!stalled && !crashed) {
        // Where this run's time went: its startup (stack, runtimes), its files, its teardown.
        const span = runSpan(readProgress(progressFile));
        const at = (ms: number) => `${((ms - started) / 1000).toFixed(1)} s`;
        if (span) console.error(`${tag} first file taken up at ${at(span.firstQueued)}, last file ended at ${at(span.lastEnded)}, exited at ${at(Date.now())}${attempt > 1 ? ` (attempt ${attempt})` : ""}`);
        if (jsonReport && finished.length > 0) addToJsonReport(jsonReport, finished);
        return finished.some((f) => !f.ok) ? Math.max(code, 1) : code;
      }
      finished.push(...finishedFiles(readProgress(progressFile)));
      if (crashed) killGroup(pid, "SIGKILL"); // what it started and left (workerd, the stack's servers)
      await groupGone(pid, 11_000); // it was sent SIGKILL: its processes go within moments
      rmSync(attemptTmp, { recursive: true, force: true });
      if (attempt < ATTEMPTS) {
        const what = crashed ? "vitest crashed" : "the test pool stalled (cloudflare/workers-sdk#15498)";
        console.error(`${tag} ${what}; ${finished.length} of the files are done, running the rest (attempt ${attempt + 1} of ${ATTEMPTS})\n`);
      }
    }
    console.error(`${tag} the test pool stalled or crashed ${ATTEMPTS} times; giving up`);
    return 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * How many shards a run gets: TEST_SHARDS, else two more than the cores, up to four. More shards
 * than cores: a shard's tests wait on sockets, alarms and queues much of the time, and beyond
 * that a further shard's own stack costs more than the waits it overlaps (on 2 cores, 4 shards
 * ended first; 5 no sooner than 3). Only a whole-suite run is split
 * (arguments that only name reporters or a report file); one naming files, projects or options
 * runs as it is.
 */
function shardCountFor(args: string[]): number {
  const wholeSuite = args.every((a) => a.startsWith("--reporter") || a.startsWith("--outputFile"));
  if (!wholeSuite) return 1;
  const wanted = Number(process.env.TEST_SHARDS ?? Math.min(4, availableParallelism() + 2));
  return Number.isInteger(wanted) && wanted > 1 ? wanted : 1;
}

async function main() {
  const args = process.argv.slice(2);
  let exitCode = 1;
  try {
    const root = process.cwd();
    const count = shardCountFor(args);
    const shards = count > 1 ? splitIntoShards(estimateWeights(testFiles(root), readDurations(root)), count) : [];
    const jsonReport = args.find((a) => a.startsWith(JSON_OUTPUT))?.slice(JSON_OUTPUT.length);
    const record = () => {
      if (process.env.TEST_RECORD_DURATIONS === "1" && jsonReport && exitCode === 0) recordDurations(jsonReport, root);
    };
    if (shards.length < 2) {
      exitCode = await runAttempts(args);
      record();
      return;
    }
    // Side by side, each shard with its own stack and its own JSON report, merged at the end.
    const shardReport = (i: number) => `${jsonReport}.shard-${i + 1}`;
    const started = Date.now();
    const codes = await Promise.all(
      shards.map((files, i) => {
        const shardArgs = args.map((a) => (jsonReport && a.startsWith(JSON_OUTPUT) ? `${JSON_OUTPUT}${shardReport(i)}` : a));
        return runAttempts([...shardArgs, ...files], `[${i + 1}/${shards.length}]`, i + 1);
      }),
    );
    if (jsonReport) mergeJsonReports(shards.map((_, i) => shardReport(i)), jsonReport, codes);
    console.error(`[test] ${shards.length} shards ran side by side in ${((Date.now() - started) / 1000).toFixed(0)} s (TEST_SHARDS=1 runs one)`);
    exitCode = Math.max(...codes);
    record();
  } finally {
    process.exit(exitCode);
  }
}

/** The progress record so far; a line still being written (no newline yet) waits for the next read. */
function readProgress(path: string): ProgressEvent[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ProgressEvent);
}

/** Adds files finished by stalled runs to vitest's JSON report of the last run (totals and one entry each). */
function addToJsonReport(path: string, files: FileProgress[]) {
  // A last run with no file left to run may write no report: the files finished before make it.
  const report = (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : { success: true, testResults: [] }) as Record<string, unknown> & { testResults: unknown[] };
  const add = (key: string, n: number) => (report[key] = Number(report[key] ?? 0) + n);
  for (const f of files) {
    add("numTotalTestSuites", 1);
    add(f.ok ? "numPassedTestSuites" : "numFailedTestSuites", 1);
    add("numTotalTests", f.passed + f.failed + f.skipped);
    add("numPassedTests", f.passed);
    add("numFailedTests", f.failed);
    add("numPendingTests", f.skipped);
    report.testResults.push({ name: join(process.cwd(), f.file), status: f.ok ? "passed" : "failed", message: "run to the end before the test pool stalled", assertionResults: [] });
  }
  report.success = report.success === true && files.every((f) => f.ok);
  writeFileSync(path, JSON.stringify(report));
}

void main();
