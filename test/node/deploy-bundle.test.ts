import { readFileSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { BENCH_ENTRY } from "../../scripts/bench/harness";
import { bundleWorker } from "../../scripts/stack/workerd";

/** What only the benchmarks' baselines and seeding tools contain. */
const BENCH_ONLY_MARKERS = ["/v1/bench/", "naive-online", "bench-seed", "bench-storage", "viewerIds", "enterMany", "storageBytes"];

const bundles: string[] = [];
function bundled(entry?: string): string {
  const { outdir, main } = bundleWorker(entry);
  bundles.push(outdir);
  return readFileSync(main, "utf8");
}
afterAll(() => {
  for (const dir of bundles) rmSync(dir, { recursive: true, force: true });
});

describe("the deployed bundle (wrangler deploy --dry-run)", () => {
  it("contains none of the benchmark baselines, while the bench entry has them all", () => {
    const deployed = bundled();
    const bench = bundled(BENCH_ENTRY);
    for (const marker of BENCH_ONLY_MARKERS) {
      expect(bench, `bench entry lacks ${marker}`).toContain(marker);
      expect(deployed, `deployed Worker contains ${marker}`).not.toContain(marker);
    }
    expect(deployed).not.toContain("BENCH_NAIVE_ROUTES");
  }, 60_000);
});
