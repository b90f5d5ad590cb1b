/**
 * The /docs page's renderer, served by this Worker from its own bundle (src/lib/static-files.ts):
 * Swagger UI's files from the pinned `swagger-ui-dist` and our own init.js / docs.css, gzipped
 * into `files/` by `npm run docs:assets` (test/node/docs-assets.test.ts fails when they drift).
 */
import { staticFiles, type StaticFile } from "../lib/static-files";
import { DOCS_ASSET_BASE } from "./page";

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";
const TEXT = "text/plain; charset=utf-8";

/** Every file under DOCS_ASSET_BASE, by name (the licence ships with Swagger UI's files). */
export const DOCS_FILES: Record<string, StaticFile> = {
  "swagger-ui-bundle.js": { load: () => import("./files/swagger-ui-bundle.js.gz"), type: JS },
  "swagger-ui.css": { load: () => import("./files/swagger-ui.css.gz"), type: CSS },
  "init.js": { load: () => import("./files/init.js.gz"), type: JS },
  "docs.css": { load: () => import("./files/docs.css.gz"), type: CSS },
  LICENSE: { load: () => import("./files/LICENSE.gz"), type: TEXT },
  NOTICE: { load: () => import("./files/NOTICE.gz"), type: TEXT },
};

/** The routes serving DOCS_FILES (`app.route("/", docsAssetRoutes)`). */
export const docsAssetRoutes = staticFiles(Object.fromEntries(Object.entries(DOCS_FILES).map(([name, file]) => [`${DOCS_ASSET_BASE}/${name}`, file])));
