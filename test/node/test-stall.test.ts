/**
 * The watchdog's stall decision (scripts/test-stall.ts): the Workers pool's stall between two files
 * is found within the gap limit, while a running file, however slow, keeps the long limit.
 */
import { describe, expect, it } from "vitest";
import { decideStall, finishedFiles, longestStartGap, runEnding, runSpan, type ProgressEvent } from "../../scripts/test-stall";

const limits = { gapMs: 30_000, silenceMs: 180_000 };
const T = 1_000_000;
const run: ProgressEvent = { type: "run", at: T, files: ["a.test.ts", "b.test.ts", "c.test.ts"] };
const end = (file: string, at: number): ProgressEvent => ({ type: "end", at, file, project: "workers", passed: 1, failed: 0, skipped: 0, ok: true });
const queued = (file: string, at: number): ProgressEvent => ({ type: "queued", at, file });
const test = (file: string, at: number): ProgressEvent => ({ type: "test", at, file });

/** a.test.ts ran from T+1 s to T+10 s; b and c are left. */
const afterA = [run, queued("a.test.ts", T + 1_000), test("a.test.ts", T + 5_000), end("a.test.ts", T + 10_000)];

describe("decideStall", () => {
  it("declares a stall when no file starts within the gap after a file ends while files remain", () => {
    expect(decideStall(afterA, T + 10_000, T + 39_000, limits)).toEqual({ stalled: false });
    const decision = decideStall(afterA, T + 10_000, T + 40_000, limits);
    expect(decision).toEqual({ stalled: true, reason: "no test file started within 30 s of the last one ending, with 2 file(s) left" });
  });

  it("output printed after the file ended (its results, teardown noise) does not hold the stall off", () => {
    expect(decideStall(afterA, T + 35_000, T + 41_000, limits).stalled).toBe(true);
  });

  it("a file taken up by its runner after the end is running: it keeps the long limit, however quiet", () => {
    const events = [...afterA, queued("b.test.ts", T + 12_000)];
    expect(decideStall(events, T + 12_000, T + 12_000 + 179_000, limits)).toEqual({ stalled: false });
    expect(decideStall(events, T + 12_000, T + 12_000 + 180_000, limits)).toEqual({ stalled: true, reason: "no output and no test progress for 3 min" });
  });

  it("a slow test that reports a result now and then, or prints, is never cut off", () => {
    const events = [...afterA, queued("b.test.ts", T + 12_000)];
    for (let k = 1; k <= 10; k++) events.push(test("b.test.ts", T + 12_000 + k * 170_000));
    expect(decideStall(events, T, T + 12_000 + 10 * 170_000 + 100_000, limits)).toEqual({ stalled: false });
    expect(decideStall([...afterA, queued("b.test.ts", T + 12_000)], T + 12_000 + 900_000, T + 12_000 + 1_000_000, limits)).toEqual({ stalled: false });
  });

  it("two files in flight: one ending while the other runs is no stall", () => {
    const events = [run, queued("a.test.ts", T + 1_000), queued("b.test.ts", T + 1_000), end("a.test.ts", T + 5_000)];
    expect(decideStall(events, T + 5_000, T + 100_000, limits)).toEqual({ stalled: false });
  });

  it("after the last file ends, only the long limit applies (the stack's teardown, the summary)", () => {
    const events = [...afterA, queued("b.test.ts", T + 11_000), end("b.test.ts", T + 20_000), queued("c.test.ts", T + 21_000), end("c.test.ts", T + 30_000)];
    expect(decideStall(events, T + 30_000, T + 30_000 + 179_000, limits)).toEqual({ stalled: false });
    expect(decideStall(events, T + 30_000, T + 30_000 + 180_000, limits).stalled).toBe(true);
  });

  it("before the first file (the stack and the pool starting), only the long limit applies", () => {
    expect(decideStall([run], T, T + 179_000, limits)).toEqual({ stalled: false });
    expect(decideStall([], T, T + 180_000, limits).stalled).toBe(true);
  });

  it("a test result after the end (a file whose module was queued before) counts as progress", () => {
    const events = [...afterA, test("b.test.ts", T + 15_000)];
    expect(decideStall(events, T + 15_000, T + 60_000, limits)).toEqual({ stalled: false });
  });

  it("measures the longest wait between a file's end, none running, and the next file taken up", () => {
    expect(longestStartGap(afterA)).toBeNull();
    const events = [...afterA, queued("b.test.ts", T + 14_000), queued("c.test.ts", T + 15_000), end("b.test.ts", T + 20_000), end("c.test.ts", T + 30_000)];
    expect(longestStartGap(events)).toBe(4_000);
  });

  it("tells when a run took up its first file and when its last one ended", () => {
    expect(runSpan([run])).toBeNull();
    const events = [...afterA, queued("b.test.ts", T + 14_000), queued("c.test.ts", T + 15_000), end("c.test.ts", T + 30_000), end("b.test.ts", T + 20_000)];
    expect(runSpan(events)).toEqual({ firstQueued: T + 1_000, lastEnded: T + 30_000 });
  });

  it("lists the finished files with their counts, for the rerun and the JSON report", () => {
    expect(finishedFiles([...afterA, queued("b.test.ts", T + 12_000)])).toEqual([{ file: "a.test.ts", project: "workers", passed: 1, failed: 0, skipped: 0, ok: true }]);
  });
});

describe("runEnding", () => {
  it("calls a failed run that wrote no report a crash, to be run again, and a failed run with its report final", () => {
    expect(runEnding({ code: 1, stalled: false, reportWritten: false })).toBe("crashed");
    expect(runEnding({ code: 137, stalled: false, reportWritten: false })).toBe("crashed");
    expect(runEnding({ code: 1, stalled: false, reportWritten: true })).toBe("done");
    expect(runEnding({ code: 1, stalled: false, reportWritten: undefined })).toBe("done");
    expect(runEnding({ code: 0, stalled: false, reportWritten: false })).toBe("done");
    expect(runEnding({ code: 1, stalled: true, reportWritten: false })).toBe("stalled");
  });
});
