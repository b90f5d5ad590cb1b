/**
 * `npm run docs:assets`: copies Swagger UI's browser files from the installed `swagger-ui-dist`
 * into `public/docs/assets/`, which the Worker serves as static assets (wrangler.toml `[assets]`)
 * for the /docs page. They are committed, so `wrangler dev`, tests and deploys need no build step;
 * test/node/docs-assets.test.ts fails when they differ from the installed package (run this after
 * upgrading it). Our own files there (init.js, docs.css) are left alone.
 */
import { copyFileSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const REPO_ROOT = resolve(import.meta.dirname, "..");

/** Files of swagger-ui-dist the page loads (or must ship with them: the licence). */
export const SWAGGER_UI_FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"] as const;
export const SWAGGER_UI_DIR = join(REPO_ROOT, "node_modules/swagger-ui-dist");
export const DOCS_ASSETS_DIR = join(REPO_ROOT, "public/docs/assets");

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const file of SWAGGER_UI_FILES) copyFileSync(join(SWAGGER_UI_DIR, file), join(DOCS_ASSETS_DIR, file));
  const { version } = JSON.parse(readFileSync(join(SWAGGER_UI_DIR, "package.json"), "utf8")) as { version: string };
  console.log(`copied swagger-ui-dist ${version}: ${SWAGGER_UI_FILES.join(", ")} → public/docs/assets/`);
}
