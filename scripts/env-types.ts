/**
 * `npm run types`: regenerates `src/worker-configuration.d.ts`, the bindings wrangler.toml declares
 * (`Cloudflare.Env`), with `wrangler types`. `src/env.ts` builds the Worker's `Env` on it, so a
 * binding added to wrangler.toml is typed everywhere once this has run; test/node/env-types.test.ts
 * fails while the committed file and wrangler.toml disagree.
 *
 * Secrets are not in wrangler.toml and are declared by hand in src/env.ts: `--env-file /dev/null`
 * keeps wrangler from reading a local `.dev.vars`, so the file is the same on every machine.
 * Vars stay `string` (not their literal values) because tests and `.dev.vars` override them.
 */
import { execFileSync } from "node:child_process";
import { join, relative, resolve } from "node:path";

const REPO_ROOT = resolve(import.meta.dirname, "..");
export const ENV_TYPES_FILE = join(REPO_ROOT, "src/worker-configuration.d.ts");
export const ENV_TYPES_ARGS = ["--include-runtime=false", "--strict-vars=false", "--env-file", "/dev/null"];

/** Runs `wrangler types` into `out` (default: the committed file; its header names the path given). */
export function generateEnvTypes(out = ENV_TYPES_FILE) {
  execFileSync(join(REPO_ROOT, "node_modules/.bin/wrangler"), ["types", relative(REPO_ROOT, out), ...ENV_TYPES_ARGS], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  generateEnvTypes();
  console.log(`wrote ${ENV_TYPES_FILE}`);
}
