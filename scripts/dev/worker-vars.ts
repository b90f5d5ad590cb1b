/**
 * The settings `npm run dev` gives the Worker beyond the stack's own bindings: the read-region
 * mode a far-region stack implies, and any `--var NAME=VALUE` a developer passes to try a setting
 * the docs describe. Pure, so the rules are tested without starting a stack.
 */

/** A Worker variable's name, as wrangler and `.dev.vars` take it. */
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `NAME=VALUE` strings (the value may hold `=` and be empty) → a map; throws naming the bad one. */
export function parseVarFlags(flags: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const flag of flags) {
    const at = flag.indexOf("=");
    const name = at < 0 ? flag : flag.slice(0, at);
    if (at < 0 || !VAR_NAME.test(name)) throw new Error(`--var ${JSON.stringify(flag)}: expected NAME=VALUE with NAME letters, digits and '_'`);
    vars[name] = flag.slice(at + 1);
  }
  return vars;
}

export type ReadRegionsFlag = "on" | "off";

/** `--read-regions` as given: on, off, or absent (undefined); throws on anything else. */
export function parseReadRegionsFlag(value: string | undefined): ReadRegionsFlag | undefined {
  if (value === undefined) return undefined;
  if (value === "on" || value === "off") return value;
  throw new Error(`--read-regions ${JSON.stringify(value)}: expected on or off`);
}

/**
 * The Worker's settings for a dev run: the stack's `base`, then `REDIS_READ_REGIONS` — "on" with a
 * far-region stack, as an Upstash Global deployment runs (its databases are read regions, so reads
 * go to the nearest one and writes answer X-Consistency-Token), unless `--read-regions off` asks
 * to compare with the single-region mode; without a far region only an explicit flag sets it
 * (wrangler.toml's "off" stays) — then every `--var`, which wins over everything.
 */
export function devWorkerVars(options: { base: Record<string, string>; farRegionMs: number | undefined; readRegions: ReadRegionsFlag | undefined; overrides: Record<string, string> }): Record<string, string> {
  const vars = { ...options.base };
  const readRegions = options.readRegions ?? (options.farRegionMs === undefined ? undefined : "on");
  if (readRegions) vars.REDIS_READ_REGIONS = readRegions;
  return { ...vars, ...options.overrides };
}
