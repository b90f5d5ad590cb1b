/**
 * How `npm test`'s watchdog (`scripts/test.ts`) tells the Workers pool's stall
 * (cloudflare/workers-sdk#15498) from a slow test, from what the progress reporter
 * (`scripts/test-progress.ts`) records: pure, so `test/node/test-stall.test.ts` can check it.
 *
 * The stall always comes between two files: one file's results are in, and the next file never
 * reaches its runner. So:
 * - no file running, files left to run, and nothing queued nor any test reported within
 *   `gapMs` of the last file's end: a stall, found within seconds of `gapMs`;
 * - a file running (queued in its runner, not ended): only silence for `silenceMs` (no progress and
 *   no output) stops it, so a long test (a bench-like model test) is never cut off;
 * - the same long limit before the first file and after the last (startup, the stack's teardown).
 */

/** One finished test file: how many of its tests passed, failed or were skipped. */
export type FileProgress = { file: string; project: string; passed: number; failed: number; skipped: number; ok: boolean };

/** One line of the progress file; `at` is `Date.now()` in the reporter (vitest's main process). */
export type ProgressEvent =
  | { type: "run"; at: number; files: string[] }
  | { type: "queued"; at: number; file: string }
  | { type: "test"; at: number; file: string }
  | ({ type: "end"; at: number } & FileProgress);

export type StallLimits = {
  /** Longest wait after a file ends, with none running and files left, for the next to be queued. */
  gapMs: number;
  /** Longest silence (no progress event, no output) in any other state. */
  silenceMs: number;
};

export type StallDecision = { stalled: false } | { stalled: true; reason: string };

/** Files seen ending, in order (a file that ended twice, in two projects, counts per project). */
export function finishedFiles(events: readonly ProgressEvent[]): FileProgress[] {
  return events.filter((e): e is Extract<ProgressEvent, { type: "end" }> => e.type === "end").map(({ type: _type, at: _at, ...file }) => file);
}

/**
 * Whether the run has stalled at `now`, given the progress events so far and when vitest last
 * printed anything (`lastOutputAt`; the run's start counts as output).
 */
export function decideStall(events: readonly ProgressEvent[], lastOutputAt: number, now: number, limits: StallLimits): StallDecision {
  const lastEventAt = events.reduce((latest, e) => Math.max(latest, e.at), Number.NEGATIVE_INFINITY);
  const quietMs = now - Math.max(lastOutputAt, lastEventAt);
  if (quietMs >= limits.silenceMs) {
    return { stalled: true, reason: `no output and no test progress for ${seconds(quietMs)}` };
  }
  // Files are counted by project and path: the same path may run in two projects.
  const planned = new Map<string, number>();
  const running = new Map<string, number>();
  let lastEndAt: number | null = null;
  let startedSinceEnd = false;
  for (const e of events) {
    if (e.type === "run") {
      for (const file of e.files) planned.set(file, (planned.get(file) ?? 0) + 1);
    } else if (e.type === "queued") {
      running.set(e.file, (running.get(e.file) ?? 0) + 1);
      startedSinceEnd = true;
    } else if (e.type === "test") {
      startedSinceEnd = true;
    } else {
      const left = (running.get(e.file) ?? 0) - 1;
      if (left > 0) running.set(e.file, left);
      else running.delete(e.file);
      const plannedLeft = (planned.get(e.file) ?? 0) - 1;
      if (plannedLeft > 0) planned.set(e.file, plannedLeft);
      else planned.delete(e.file);
      lastEndAt = e.at;
      startedSinceEnd = false;
    }
  }
  if (lastEndAt === null || running.size > 0 || planned.size === 0 || startedSinceEnd) return { stalled: false };
  const gap = now - lastEndAt;
  if (gap < limits.gapMs) return { stalled: false };
  return { stalled: true, reason: `no test file started within ${seconds(gap)} of the last one ending, with ${count(planned)} file(s) left` };
}

/**
 * The longest time a run went with no file running, from a file's end to the next file taken up
 * (ms; null before two files ran): how close an ordinary run comes to `gapMs`.
 */
export function longestStartGap(events: readonly ProgressEvent[]): number | null {
  let running = 0;
  let idleSince: number | null = null;
  let longest: number | null = null;
  for (const e of events) {
    if (e.type === "queued") {
      if (running === 0 && idleSince !== null) longest = Math.max(longest ?? 0, e.at - idleSince);
      running += 1;
    } else if (e.type === "end") {
      running = Math.max(0, running - 1);
      if (running === 0) idleSince = e.at;
    }
  }
  return longest;
}

/**
 * When a run took up its first file and when its last file ended (ms since epoch; null before any):
 * before the first, the run started its stack and runtimes; after the last, it stopped them. With
 * the shards' end times it shows where a run's time went (the startup, the files, the teardown, a
 * shard idle while another still runs).
 */
export function runSpan(events: readonly ProgressEvent[]): { firstQueued: number; lastEnded: number } | null {
  const queued = events.filter((e) => e.type === "queued").map((e) => e.at);
  const ended = events.filter((e) => e.type === "end").map((e) => e.at);
  if (queued.length === 0 || ended.length === 0) return null;
  return { firstQueued: Math.min(...queued), lastEnded: Math.max(...ended) };
}

function count(files: Map<string, number>): number {
  let n = 0;
  for (const k of files.values()) n += k;
  return n;
}

function seconds(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

/**
 * How a vitest run ended: `stalled` (the watchdog stopped it), `crashed` (it failed without
 * writing the JSON report it was asked for: it ended before its reporters did, so its unfinished
 * files never ran), else `done`. The first two run the files left again; `done` is final, test
 * failures included. `reportWritten` is undefined when no report was asked for.
 */
export function runEnding(run: { code: number; stalled: boolean; reportWritten: boolean | undefined }): "done" | "stalled" | "crashed" {
  if (run.stalled) return "stalled";
  if (run.code !== 0 && run.reportWritten === false) return "crashed";
  return "done";
}
