/**
 * How `npm test` splits a full run into shards that scripts/test.ts runs side by side, each a
 * `vitest run` of its own files with a test stack of its own (its own Postgres database and Redis
 * servers), so two shards never see each other's keys, rows or command counts.
 *
 * The split is by file, balanced: each file, heaviest first, goes to the shard with the least so
 * far (the longest-processing-time rule). A file's weight is how long it took in a recorded full
 * run (`test/durations.json`, written by `TEST_RECORD_DURATIONS=1 npm test`, committed so a fresh
 * clone has it); a file not recorded yet weighs its size in bytes at the recorded files' average
 * milliseconds per byte. Every attempt of a shard gets the same files.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

export type Weighted = { file: string; weight: number };

/** Test files under `dir` (`*.test.ts`, any depth), as paths relative to `root` with `/`. */
export function testFiles(root: string, dir = "test"): Weighted[] {
  const found: Weighted[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory() && entry.name !== "node_modules") walk(child);
      else if (entry.isFile() && entry.name.endsWith(".test.ts")) found.push({ file: relative(root, child).split(sep).join("/"), weight: statSync(child).size });
    }
  };
  walk(join(root, dir));
  return found.sort((a, b) => (a.file < b.file ? -1 : 1));
}

export const DURATIONS_FILE = "test/durations.json";

/** Each file's weight in milliseconds: its recorded duration, else its size at the recorded rate. */
export function estimateWeights(files: readonly Weighted[], recorded: Record<string, number>): Weighted[] {
  const known = files.filter((f) => recorded[f.file] !== undefined);
  const bytes = known.reduce((sum, f) => sum + f.weight, 0);
  const ms = known.reduce((sum, f) => sum + recorded[f.file]!, 0);
  const msPerByte = bytes > 0 && ms > 0 ? ms / bytes : 1;
  return files.map((f) => ({ file: f.file, weight: recorded[f.file] ?? Math.round(f.weight * msPerByte) }));
}

/** The recorded durations (`{ "test/…": ms }`), or none when the file is missing or unreadable. */
export function readDurations(root: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(root, DURATIONS_FILE), "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

/** Writes each file's duration from a vitest JSON report to DURATIONS_FILE (sorted, to 100 ms). */
export function recordDurations(report: string, root: string): void {
  const { testResults } = JSON.parse(readFileSync(report, "utf8")) as { testResults: { name: string; startTime?: number; endTime?: number }[] };
  const durations: Record<string, number> = {};
  for (const r of testResults) {
    if (r.startTime === undefined || r.endTime === undefined) continue;
    durations[relative(root, r.name).split(sep).join("/")] = Math.max(100, Math.round((r.endTime - r.startTime) / 100) * 100);
  }
  const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(join(root, DURATIONS_FILE), `${JSON.stringify(sorted, null, 2)}\n`);
}

/**
 * The far-region model tests (vitest.config.ts' FAR_FILES, every `*-far.test.ts` outside test/node): their project
 * starts a stack of its own in every shard that runs one of them, so they all go to one shard.
 */
export function isFarRegionFile(file: string): boolean {
  return file.startsWith("test/") && !file.startsWith("test/node/") && file.endsWith("-far.test.ts");
}

/** Files that must share a shard name the same group; others none (each goes alone). */
export function shardGroupOf(file: string): string | undefined {
  return isFarRegionFile(file) ? "far-region stack" : undefined;
}

/**
 * `files` split into `count` shards of near-equal weight; every file lands in exactly one, and the
 * files `groupOf` names one group in the same one (their weights summed, placed as one).
 */
export function splitIntoShards(files: readonly Weighted[], count: number, groupOf: (file: string) => string | undefined = shardGroupOf): string[][] {
  const shards = Array.from({ length: count }, () => ({ load: 0, files: [] as string[] }));
  const units = new Map<string, { key: string; files: string[]; weight: number }>();
  for (const { file, weight } of files) {
    const key = groupOf(file) ?? file;
    const unit = units.get(key) ?? { key, files: [], weight: 0 };
    units.set(key, unit);
    unit.files.push(file);
    unit.weight += weight;
  }
  // Heaviest first; ties by path (or group), so the split is the same on every machine.
  const ordered = [...units.values()].sort((a, b) => b.weight - a.weight || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const unit of ordered) {
    const lightest = shards.reduce((best, shard) => (shard.load < best.load ? shard : best));
    lightest.load += unit.weight;
    lightest.files.push(...unit.files);
  }
  return shards.map((s) => s.files.sort()).filter((files) => files.length > 0);
}

/**
 * Merges vitest JSON reports (one per shard) into one at `path`: totals summed, every file's
 * results kept, success only if every shard succeeded. A missing report (a shard that wrote none)
 * fails the merged one.
 */
export function mergeJsonReports(parts: string[], path: string, exitCodes: number[] = []) {
  const reports = parts.map((part) => {
    try {
      return JSON.parse(readFileSync(part, "utf8")) as Record<string, unknown> & { testResults: unknown[] };
    } catch {
      return null;
    }
  });
  const merged: Record<string, unknown> & { testResults: unknown[] } = { testResults: [] };
  for (const [i, report] of reports.entries()) {
    if (!report) {
      // A shard that wrote no report (its vitest crashed or gave up) must be named in the totals'
      // failures, not only counted: its tests are missing from them.
      const exit = exitCodes[i] === undefined ? "" : ` (exit ${exitCodes[i]})`;
      merged.testResults.push({ name: `shard ${i + 1} of ${parts.length}`, status: "failed", message: `the shard wrote no JSON report${exit}: its files' tests are missing from these totals; its log lines carry [${i + 1}/${parts.length}]`, assertionResults: [] });
      merged.numFailedTestSuites = Number(merged.numFailedTestSuites ?? 0) + 1;
      continue;
    }
    for (const [key, value] of Object.entries(report)) {
      if (key === "testResults") merged.testResults.push(...(value as unknown[]));
      else if (typeof value === "number" && key.startsWith("num")) merged[key] = Number(merged[key] ?? 0) + value;
      else if (key === "startTime") merged[key] = Math.min(Number(merged[key] ?? value), value as number);
      else if (!(key in merged)) merged[key] = value;
    }
  }
  merged.success = reports.every((r) => r?.success === true);
  writeFileSync(path, JSON.stringify(merged));
  for (const part of parts) rmSync(part, { force: true });
}
