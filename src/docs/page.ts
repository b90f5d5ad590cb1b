import { OPERATION_METHODS } from "../lib/openapi-examples";

/**
 * The API reference at `/docs`: an index of every operation, rendered here from the OpenAPI
 * document (readable without JavaScript), and Swagger UI on top of it for examples and "try it".
 *
 * Swagger UI's files are served by this Worker from its own bundle (src/docs/assets.ts, gzipped
 * from the pinned `swagger-ui-dist` by `npm run docs:assets`), so the page works offline and loads
 * nothing from another origin; the Content-Security-Policy below makes the browser enforce that.
 */

/** Where the renderer's files are served from (src/docs/assets.ts). */
export const DOCS_ASSET_BASE = "/docs/assets";

/**
 * Same origin only, for scripts, styles, images, fonts and "try it" requests alike. Styles allow
 * inline because Swagger UI sets style attributes; no inline script is needed.
 */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";


type Operation = { summary?: string; tags?: string[]; security?: unknown[] };
type Document = { info: { title: string }; paths?: object };

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The page for `doc`: the operation index grouped by tag, and the mount point of Swagger UI. */
export function renderDocsPage(doc: Document): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Partial<Record<(typeof OPERATION_METHODS)[number], Operation>>>)) {
    for (const method of OPERATION_METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? "Other";
      const lock = op.security?.length ? ' <span class="lock" title="Bearer token">🔒</span>' : "";
      const row = `<li><code class="m ${method}">${method.toUpperCase()}</code> <code>${escape(path)}</code> ${escape(op.summary ?? "")}${lock}</li>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), row]);
    }
  }
  const index = [...byTag].map(([tag, rows]) => `<h3>${escape(tag)}</h3><ul>${rows.join("")}</ul>`).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${DOCS_ASSET_BASE}/swagger-ui.css">
<link rel="stylesheet" href="${DOCS_ASSET_BASE}/docs.css">
</head><body>
<header><h1>${escape(doc.info.title)}</h1>
<p>OpenAPI 3.1 document: <a href="/openapi.json">/openapi.json</a>. Press <b>Authorize</b> and paste a JWT to try
authenticated routes against this server; each route shows a request and a response example.</p>
<details id="route-index"><summary>Every route</summary>${index}</details></header>
<div id="swagger-ui"></div>
<script src="${DOCS_ASSET_BASE}/swagger-ui-bundle.js"></script>
<script src="${DOCS_ASSET_BASE}/init.js"></script>
</body></html>`;
}
