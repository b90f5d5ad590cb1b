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

/** The vars a deploy gives the Worker, as the dry run lists them (`env.NAME ("value")  Environment Variable`). */
function deployedVars(): Map<string, string> {
  const { outdir, printed } = bundleWorker();
  bundles.push(outdir);
  const vars = new Map<string, string>();
  for (const match of printed.matchAll(/^env\.([A-Za-z0-9_]+) \("(.*)"\)\s+Environment Variable\s*$/gm)) vars.set(match[1]!, match[2]!);
  return vars;
}

/**
 * Settings that only local runs give the Worker: what the dev runner and the tests set (the dev
 * identity provider, the notify clock offset, the local push services and Neon proxy, the stack's
 * own bindings). A deployment names none of them.
 */
const LOCAL_ONLY_SETTINGS = ["DEV_JWKS", "NOTIFY_CLOCK_OFFSET_MS", "FCM_API_URL", "APNS_API_URL", "NEON_WS_PROXY", "NEON_HTTP_PROXY", "STACK_PUSH_ENV", "STACK_PUSH_URL", "STACK_CONTROL_URL"];
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

describe("the deploy configuration (wrangler deploy --dry-run)", () => {
  it("runs production: nothing development-only is on, and no var points at this machine", () => {
    const vars = deployedVars();
    expect(vars.size, "the dry run's bindings list was read").toBeGreaterThan(5);
    // Every development-only behaviour is `ENVIRONMENT === "development"` (src/lib/dev-jwks.ts,
    // src/notify/clock.ts, src/notify/devices.ts): anything else, unset included, is production.
    expect(vars.get("ENVIRONMENT")).toBe("production");
    for (const name of LOCAL_ONLY_SETTINGS) expect(vars.has(name), `${name} is set in wrangler.toml`).toBe(false);
    for (const [name, value] of vars) expect(value, `${name} points at this machine`).not.toMatch(/localhost|127\.0\.0\.1|\[::1\]/);
  }, 60_000);
});
