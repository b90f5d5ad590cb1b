/**
 * `npm test` splits a whole-suite run into shards run side by side (scripts/test-shards.ts): every
 * file in exactly one shard, the shards near-equal, and one report that counts them all.
 */
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isFarRegionFile, mergeJsonReports, readDurations, splitIntoShards, testFiles } from "../../scripts/test-shards";

describe("splitting the suite into shards", () => {
  it("puts every test file of the repository in exactly one shard, each within the heaviest file of the others", () => {
    const files = testFiles(process.cwd());
    expect(files.map((f) => f.file)).toContain("test/node/test-shards.test.ts");
    expect(files.every((f) => f.file.startsWith("test/") && f.file.endsWith(".test.ts") && f.weight > 0)).toBe(true);
    for (const count of [2, 3]) {
      const shards = splitIntoShards(files, count);
      expect(shards).toHaveLength(count);
      expect(shards.flat().sort()).toEqual(files.map((f) => f.file).sort());
      const weightOf = new Map(files.map((f) => [f.file, f.weight]));
      const loads = shards.map((shard) => shard.reduce((sum, file) => sum + weightOf.get(file)!, 0));
      const heaviest = Math.max(...files.map((f) => f.weight));
      expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(heaviest);
    }
  });

  it("has a recorded duration for most files, each named as testFiles names it (else the split falls back to file sizes)", () => {
    const files = new Set(testFiles(process.cwd()).map((f) => f.file));
    const recorded = Object.keys(readDurations(process.cwd()));
    expect(recorded.filter((file) => files.has(file)).length).toBeGreaterThanOrEqual(files.size * 0.8);
  });

  it("is the same split whatever order the files come in, and never an empty shard", () => {
    const files = Array.from({ length: 9 }, (_, i) => ({ file: `test/f${i}.test.ts`, weight: (i * 7919) % 13 }));
    const once = splitIntoShards(files, 2);
    expect(splitIntoShards([...files].reverse(), 2)).toEqual(once);
    expect(splitIntoShards(files.slice(0, 1), 2)).toEqual([["test/f0.test.ts"]]);
    // Largest first to the lightest shard: 10 | 6 + 5 → 10 + 4 | 11.
    expect(splitIntoShards([{ file: "a", weight: 10 }, { file: "b", weight: 6 }, { file: "c", weight: 5 }, { file: "d", weight: 4 }], 2)).toEqual([["a", "d"], ["b", "c"]]);
  });

  it("keeps the far-region files in one shard, placed by their summed weight (one far stack per run)", () => {
    const files = testFiles(process.cwd());
    const far = files.filter((f) => isFarRegionFile(f.file)).map((f) => f.file);
    expect(far).toEqual(expect.arrayContaining(["test/counters/model-far.test.ts", "test/feed/model-far.test.ts", "test/live/model-far.test.ts", "test/badges/live-model-far.test.ts"]));
    expect(isFarRegionFile("test/node/far-region.test.ts")).toBe(false);
    for (const count of [2, 3, 4]) {
      const shards = splitIntoShards(files, count);
      expect(shards.filter((shard) => shard.some(isFarRegionFile))).toHaveLength(1);
      expect(shards.find((shard) => shard.some(isFarRegionFile))).toEqual(expect.arrayContaining(far));
    }
    // x and y weigh 6 as one, placed first: x, y | a, b — where alone they would be split, a, x | b, y.
    const four = [{ file: "a", weight: 4 }, { file: "b", weight: 4 }, { file: "x", weight: 3 }, { file: "y", weight: 3 }];
    expect(splitIntoShards(four, 2, () => undefined)).toEqual([["a", "x"], ["b", "y"]]);
    expect(splitIntoShards(four, 2, (f) => (f === "x" || f === "y" ? "xy" : undefined))).toEqual([["x", "y"], ["a", "b"]]);
  });
});

describe("the shards' reports, merged", () => {
  const report = (passed: number, failed: number, file: string) => ({
    numTotalTestSuites: 1,
    numPassedTestSuites: failed ? 0 : 1,
    numFailedTestSuites: failed ? 1 : 0,
    numTotalTests: passed + failed,
    numPassedTests: passed,
    numFailedTests: failed,
    startTime: 1000 + passed,
    success: failed === 0,
    testResults: [{ name: file }],
  });

  it("sum the counts, keep every file and succeed only if every shard did", () => {
    const dir = mkdtempSync(join(tmpdir(), "ce-shards-"));
    const parts = [join(dir, "r.json.shard-1"), join(dir, "r.json.shard-2")];
    writeFileSync(parts[0]!, JSON.stringify(report(5, 0, "a")));
    writeFileSync(parts[1]!, JSON.stringify(report(3, 1, "b")));
    mergeJsonReports(parts, join(dir, "r.json"));
    const merged = JSON.parse(readFileSync(join(dir, "r.json"), "utf8"));
    expect(merged).toMatchObject({ numTotalTests: 9, numPassedTests: 8, numFailedTests: 1, numFailedTestSuites: 1, startTime: 1003, success: false });
    expect(merged.testResults).toEqual([{ name: "a" }, { name: "b" }]);
    expect(parts.some((p) => existsSync(p))).toBe(false);
  });

  it("fail when a shard wrote no report, and name that shard and its exit code among the failed files", () => {
    const dir = mkdtempSync(join(tmpdir(), "ce-shards-"));
    writeFileSync(join(dir, "r.json.shard-1"), JSON.stringify(report(5, 0, "a")));
    mergeJsonReports([join(dir, "r.json.shard-1"), join(dir, "r.json.shard-2")], join(dir, "r.json"), [0, 137]);
    const merged = JSON.parse(readFileSync(join(dir, "r.json"), "utf8"));
    expect(merged.numPassedTests).toBe(5);
    expect(merged.numFailedTestSuites).toBe(1);
    expect(merged.success).toBe(false);
    expect(merged.testResults).toHaveLength(2);
    expect(merged.testResults[1]).toMatchObject({ name: "shard 2 of 2", status: "failed", assertionResults: [] });
    expect(merged.testResults[1].message).toContain("exit 137");
  });
});
