/**
 * `npm run docs:assets`: gzips the /docs page's browser files into `src/docs/files/*.gz`, which the
 * Worker bundles as Data modules and serves itself (src/docs/assets.ts): Swagger UI's files from
 * the installed `swagger-ui-dist`, and our own `init.js` and `docs.css` from beside them. They are
 * committed, so `wrangler dev`, tests and deploys need no build step; test/node/docs-assets.test.ts
 * fails when one no longer unpacks to its source (run this after upgrading swagger-ui-dist or
 * editing init.js / docs.css).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { constants, gzipSync } from "node:zlib";

const REPO_ROOT = resolve(import.meta.dirname, "..");

/** Files of swagger-ui-dist the page loads (or must ship with them: the licence). */
export const SWAGGER_UI_FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"] as const;
/** Our own files of the page, edited by hand in DOCS_FILES_DIR. */
export const OWN_FILES = ["init.js", "docs.css"] as const;
export const SWAGGER_UI_DIR = join(REPO_ROOT, "node_modules/swagger-ui-dist");
export const DOCS_FILES_DIR = join(REPO_ROOT, "src/docs/files");

/** Where each served file comes from, by its name under /docs/assets/. */
export function docsFileSources(): Record<string, string> {
  return Object.fromEntries([
    ...SWAGGER_UI_FILES.map((file) => [file, join(SWAGGER_UI_DIR, file)]),
    ...OWN_FILES.map((file) => [file, join(DOCS_FILES_DIR, file)]),
  ]);
}

/** The compressed copy the Worker bundles (level 9: compressed once here, served many times). */
export const gzipFile = (source: string) => gzipSync(readFileSync(source), { level: constants.Z_BEST_COMPRESSION });

if (import.meta.url === `file://${process.argv[1]}`) {
  const lines: string[] = [];
  for (const [file, source] of Object.entries(docsFileSources())) {
    const gz = gzipFile(source);
    writeFileSync(join(DOCS_FILES_DIR, `${file}.gz`), gz);
    lines.push(`  ${file}.gz  ${readFileSync(source).length} → ${gz.length} bytes`);
  }
  const { version } = JSON.parse(readFileSync(join(SWAGGER_UI_DIR, "package.json"), "utf8")) as { version: string };
  console.log(`gzipped swagger-ui-dist ${version} and our own files → src/docs/files/\n${lines.join("\n")}`);
}
